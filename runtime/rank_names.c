/*
 * The C library's lookups of names that return a static result, for each rank on its own: the
 * user and group databases (getpwnam, getpwuid, getgrnam, getgrgid), the login and terminal
 * names (getlogin, ttyname), the host database (gethostbyname, gethostbyname2,
 * gethostbyaddr), and the service and protocol databases (getservbyname, getservbyport,
 * getprotobyname, getprotobynumber). Linked into each rank's private copy of the program (see
 * rank_getopt.c), each through its reentrant form into this copy's buffer, which grows to the
 * entry's size; a result stays valid until the copy's next call of the same kind, as the C
 * library's.
 */
#include <errno.h>
#include <grp.h>
#include <limits.h>
#include <netdb.h>
#include <pwd.h>
#include <stdlib.h>
#include <unistd.h>

/* A growing buffer for the entries of one kind. */
typedef struct buffer {
    char *bytes;
    size_t size;
} buffer_t;

/* Makes b twice as large (the first time: 1 KiB); false when that fails or passes 1 MiB. */
static int buffer_grow(buffer_t *b)
{
    size_t size = b->size ? 2 * b->size : 1024;
    char *bytes = size <= (1u << 20) ? realloc(b->bytes, size) : NULL;
    if (!bytes)
        return 0;
    b->bytes = bytes;
    b->size = size;
    return 1;
}

/* Runs `call` (a *_r lookup returning an errno value) with buffer b, larger as long as it is too
 * small; then returns `result`, or NULL with errno set. */
#define LOOKUP(b, result, call)                                                                    \
    for (;;) {                                                                                     \
        if ((b)->size == 0 && !buffer_grow(b)) {                                                   \
            errno = ENOMEM;                                                                        \
            return NULL;                                                                           \
        }                                                                                          \
        int rc_ = (call);                                                                          \
        if (rc_ == ERANGE && buffer_grow(b))                                                       \
            continue;                                                                              \
        if (rc_ != 0) {                                                                            \
            errno = rc_;                                                                           \
            return NULL;                                                                           \
        }                                                                                          \
        return result;                                                                             \
    }

static buffer_t passwd_buf, group_buf;
static struct passwd passwd_entry;
static struct group group_entry;

struct passwd *getpwnam(const char *name)
{
    struct passwd *found;
    LOOKUP(&passwd_buf, found,
           getpwnam_r(name, &passwd_entry, passwd_buf.bytes, passwd_buf.size, &found));
}

struct passwd *getpwuid(uid_t uid)
{
    struct passwd *found;
    LOOKUP(&passwd_buf, found,
           getpwuid_r(uid, &passwd_entry, passwd_buf.bytes, passwd_buf.size, &found));
}

struct group *getgrnam(const char *name)
{
    struct group *found;
    LOOKUP(&group_buf, found,
           getgrnam_r(name, &group_entry, group_buf.bytes, group_buf.size, &found));
}

struct group *getgrgid(gid_t gid)
{
    struct group *found;
    LOOKUP(&group_buf, found,
           getgrgid_r(gid, &group_entry, group_buf.bytes, group_buf.size, &found));
}

char *getlogin(void)
{
    static char name[LOGIN_NAME_MAX + 1];
    int rc = getlogin_r(name, sizeof name);
    if (rc != 0) {
        errno = rc;
        return NULL;
    }
    return name;
}

char *ttyname(int fd)
{
    static char name[PATH_MAX];
    int rc = ttyname_r(fd, name, sizeof name);
    if (rc != 0) {
        errno = rc;
        return NULL;
    }
    return name;
}

static buffer_t serv_buf, proto_buf;
static struct servent serv_entry;
static struct protoent proto_entry;

struct servent *getservbyname(const char *name, const char *proto)
{
    struct servent *found;
    LOOKUP(&serv_buf, found,
           getservbyname_r(name, proto, &serv_entry, serv_buf.bytes, serv_buf.size, &found));
}

struct servent *getservbyport(int port, const char *proto)
{
    struct servent *found;
    LOOKUP(&serv_buf, found,
           getservbyport_r(port, proto, &serv_entry, serv_buf.bytes, serv_buf.size, &found));
}

struct protoent *getprotobyname(const char *name)
{
    struct protoent *found;
    LOOKUP(&proto_buf, found,
           getprotobyname_r(name, &proto_entry, proto_buf.bytes, proto_buf.size, &found));
}

struct protoent *getprotobynumber(int proto)
{
    struct protoent *found;
    LOOKUP(&proto_buf, found,
           getprotobynumber_r(proto, &proto_entry, proto_buf.bytes, proto_buf.size, &found));
}

/* ---- hosts: the *_r forms report through h_errno's value in an argument ---- */

static buffer_t host_buf;
static struct hostent host_entry;

/* Runs a host lookup with the host buffer, larger as long as it is too small; sets h_errno as the
 * C library does when nothing is found. */
#define HOST_LOOKUP(call)                                                                          \
    for (;;) {                                                                                     \
        struct hostent *found = NULL;                                                              \
        int herr = NETDB_INTERNAL;                                                                 \
        if (host_buf.size == 0 && !buffer_grow(&host_buf)) {                                       \
            h_errno = NETDB_INTERNAL;                                                              \
            return NULL;                                                                           \
        }                                                                                          \
        int rc_ = (call);                                                                          \
        if (rc_ == ERANGE && buffer_grow(&host_buf))                                               \
            continue;                                                                              \
        if (!found)                                                                                \
            h_errno = rc_ == ERANGE ? NETDB_INTERNAL : herr;                                       \
        return found;                                                                              \
    }

struct hostent *gethostbyname(const char *name)
{
    HOST_LOOKUP(gethostbyname_r(name, &host_entry, host_buf.bytes, host_buf.size, &found, &herr));
}

struct hostent *gethostbyname2(const char *name, int af)
{
    HOST_LOOKUP(
        gethostbyname2_r(name, af, &host_entry, host_buf.bytes, host_buf.size, &found, &herr));
}

struct hostent *gethostbyaddr(const void *addr, socklen_t len, int type)
{
    HOST_LOOKUP(gethostbyaddr_r(addr, len, type, &host_entry, host_buf.bytes, host_buf.size, &found,
                                &herr));
}

/* Weak: a program that defines one of these itself keeps its own (and links). */
#pragma weak getpwnam
#pragma weak getpwuid
#pragma weak getgrnam
#pragma weak getgrgid
#pragma weak getlogin
#pragma weak ttyname
#pragma weak getservbyname
#pragma weak getservbyport
#pragma weak getprotobyname
#pragma weak getprotobynumber
#pragma weak gethostbyname
#pragma weak gethostbyname2
#pragma weak gethostbyaddr
