/*
 * Frames on the channel between mpcrun and its agents (channel.h).
 */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "launcher/channel.h"

int tm_channel_write_all(int fd, const void *buf, size_t len)
{
    const char *p = buf;
    while (len > 0) {
        ssize_t n = write(fd, p, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return -errno;
        p += n;
        len -= (size_t)n;
    }
    return 0;
}

/* 0, -EPIPE at end of file before the first byte, -EPROTO at end of file after it, -errno. */
static int read_all(int fd, void *buf, size_t len)
{
    char *p = buf;
    size_t got = 0;
    while (got < len) {
        ssize_t n = read(fd, p + got, len - got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return -errno;
        if (n == 0)
            return got == 0 ? -EPIPE : -EPROTO;
        got += (size_t)n;
    }
    return 0;
}

int tm_channel_send(int fd, uint32_t type, const void *payload, uint32_t len)
{
    uint32_t header[2] = {htonl(type), htonl(len)};
    char frame[sizeof header + 256];
    if (len <= 256) { /* one write: small frames are most of them */
        memcpy(frame, header, sizeof header);
        if (len)
            memcpy(frame + sizeof header, payload, len);
        return tm_channel_write_all(fd, frame, sizeof header + len);
    }
    int rc = tm_channel_write_all(fd, header, sizeof header);
    return rc ? rc : tm_channel_write_all(fd, payload, len);
}

int tm_channel_send_int(int fd, uint32_t type, int32_t value)
{
    uint32_t v = htonl((uint32_t)value);
    return tm_channel_send(fd, type, &v, sizeof v);
}

int tm_channel_recv(int fd, uint32_t *type, void *buf, uint32_t cap, uint32_t *len)
{
    uint32_t header[2];
    int rc = read_all(fd, header, sizeof header);
    if (rc)
        return rc;
    *type = ntohl(header[0]);
    *len = ntohl(header[1]);
    if (*len > cap)
        return -EPROTO;
    rc = read_all(fd, buf, *len);
    return rc == -EPIPE ? -EPROTO : rc;
}

int tm_channel_int(const void *buf, uint32_t len, int32_t *value)
{
    uint32_t v;
    if (len != sizeof v)
        return -1;
    memcpy(&v, buf, sizeof v);
    *value = (int32_t)ntohl(v);
    return 0;
}
