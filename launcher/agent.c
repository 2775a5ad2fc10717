/*
 * tm-agent: what mpcrun --hosts starts on each host through --rsh. It connects back to mpcrun,
 * runs that host's part of the job (mpcrun itself, with the host's ranks) in the directory and
 * environment mpcrun gave, and carries over the channel (channel.h) the job's output and exit
 * status one way and standard input and signals the other. When the channel breaks, mpcrun is
 * gone: the agent kills the host's processes, so nothing outlives the job.
 *
 *   tm-agent ADDRESSES PORT TOKEN INDEX RANK HOSTS DIRECTORY NENV NAME=VALUE... COMMAND [ARGS...]
 *
 * ADDRESSES are mpcrun's, comma-separated, tried in turn; INDEX is the host's in mpcrun's list;
 * RANK, the host's process's rank among the job's processes, which run on HOSTS (comma-separated,
 * in rank order); the environment is the NENV assignments over the agent's own HOME, USER,
 * LOGNAME, SHELL (the host's), and what the job's process needs to reach the agent's PMIx server
 * (agent_pmix.h).
 */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "launcher/agent_pmix.h"
#include "launcher/channel.h"

#define CONNECT_TIMEOUT_MS 5000

static const char *progname = "tm-agent";

/* The channel to mpcrun; PMIx's thread sends on it too (the fence). */
static int sock = -1;
static pthread_mutex_t send_lock = PTHREAD_MUTEX_INITIALIZER;

static int send_frame(uint32_t type, const void *payload, uint32_t len)
{
    pthread_mutex_lock(&send_lock);
    int rc = tm_channel_send(sock, type, payload, len);
    pthread_mutex_unlock(&send_lock);
    return rc;
}

/* This host's part of a PMIx fence, to mpcrun (on PMIx's thread). A lost channel ends the job
 * anyway: the main loop sees it. */
static void fence_out(const char *data, size_t len)
{
    if (len > TM_CHANNEL_MAX_PAYLOAD || send_frame(TM_CHANNEL_FENCE, data, (uint32_t)len) < 0)
        fprintf(stderr, "%s: cannot send this host's part of a fence to mpcrun\n", progname);
}

/* Connects to host:port within CONNECT_TIMEOUT_MS, or returns -1. */
static int connect_to(const char *host, const char *port)
{
    struct addrinfo hints = {.ai_socktype = SOCK_STREAM, .ai_flags = AI_NUMERICHOST}, *res;
    if (getaddrinfo(host, port, &hints, &res) != 0)
        return -1;
    int fd = socket(res->ai_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd >= 0 && connect(fd, res->ai_addr, res->ai_addrlen) < 0) {
        struct pollfd p = {.fd = fd, .events = POLLOUT};
        int soerr = 0;
        socklen_t len = sizeof soerr;
        if (errno != EINPROGRESS || poll(&p, 1, CONNECT_TIMEOUT_MS) != 1 ||
            getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &len) < 0 || soerr != 0) {
            close(fd);
            fd = -1;
        }
    }
    freeaddrinfo(res);
    if (fd >= 0)
        fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
    return fd;
}

static int connect_back(const char *addresses, const char *port)
{
    char *list = strdup(addresses), *save = NULL;
    int fd = -1;
    for (char *a = list ? strtok_r(list, ",", &save) : NULL; a && fd < 0;
         a = strtok_r(NULL, ",", &save))
        fd = connect_to(a, port);
    free(list);
    return fd;
}

/* The host's part of the job: its own process group, the pipes as its standard streams. */
static pid_t start(char **argv, const char *dir, char **env, int nenv, char **pmix_env, int in,
                   int out, int err)
{
    pid_t agent = getpid(), pid = fork();
    if (pid != 0)
        return pid;
    setpgid(0, 0);
    /* An agent killed outright takes the job with it (the setting survives the execs), even
     * one killed before this line. */
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != agent)
        _exit(127);
    signal(SIGPIPE, SIG_DFL);
    signal(SIGHUP, SIG_DFL);
    dup2(in, 0);
    dup2(out, 1);
    dup2(err, 2);
    if (chdir(dir) < 0) {
        fprintf(stderr, "%s: cannot enter %s on this host: %s\n", progname, dir, strerror(errno));
        _exit(127);
    }
    for (int i = 0; i < nenv; i++)
        if (putenv(env[i]) != 0)
            _exit(127);
    for (char **e = pmix_env; *e; e++)
        if (putenv(*e) != 0)
            _exit(127);
    execv(argv[0], argv);
    fprintf(stderr, "%s: cannot execute %s on this host: %s\n", progname, argv[0], strerror(errno));
    _exit(127);
}

/* Forwards what the pipe holds as one frame; false at end of file. */
static bool forward(int pipe_fd, uint32_t type)
{
    char buf[TM_CHANNEL_CHUNK];
    ssize_t n = read(pipe_fd, buf, sizeof buf);
    if (n < 0 && (errno == EINTR || errno == EAGAIN))
        return true;
    if (n <= 0)
        return false;
    /* If mpcrun is gone, the channel's end of file says so to the main loop. */
    (void)send_frame(type, buf, (uint32_t)n);
    return true;
}

int main(int argc, char **argv)
{
    if (argc < 10) {
        fprintf(stderr, "%s: started by mpcrun --hosts, not by hand\n", progname);
        return 2;
    }
    const char *addresses = argv[1], *port = argv[2], *token = argv[3], *index = argv[4],
               *hosts = argv[6], *dir = argv[7];
    int rank = atoi(argv[5]), nenv = atoi(argv[8]);
    if (nenv < 0 || 9 + nenv >= argc) {
        fprintf(stderr, "%s: a malformed command line\n", progname);
        return 2;
    }
    char **env = argv + 9, **command = argv + 9 + nenv;
    signal(SIGPIPE, SIG_IGN);
    /* ssh's end may hang up on us; the channel says when mpcrun is gone. */
    signal(SIGHUP, SIG_IGN);

    sock = connect_back(addresses, port);
    if (sock < 0) {
        fprintf(stderr, "%s: cannot reach mpcrun at %s, port %s, from this host\n", progname,
                addresses, port);
        return 1;
    }
    char hello[128];
    snprintf(hello, sizeof hello, "%s %s", token, index);
    if (send_frame(TM_CHANNEL_HELLO, hello, (uint32_t)strlen(hello)) < 0)
        return 1;

    /* The job's PMIx namespace: one per job, named after its token. */
    char nspace[64], **pmix_env = calloc(1, sizeof *pmix_env);
    snprintf(nspace, sizeof nspace, "threadmpi.%.16s", token);
    if (!pmix_env || tm_agent_pmix_start(nspace, rank, hosts, fence_out, &pmix_env) < 0)
        return 1;

    int in[2], out[2], err[2];
    if (pipe2(in, O_CLOEXEC) < 0 || pipe2(out, O_CLOEXEC) < 0 || pipe2(err, O_CLOEXEC) < 0) {
        fprintf(stderr, "%s: pipe: %s\n", progname, strerror(errno));
        return 1;
    }
    pid_t pid = start(command, dir, env, nenv, pmix_env, in[0], out[1], err[1]);
    if (pid < 0) {
        fprintf(stderr, "%s: fork: %s\n", progname, strerror(errno));
        return 1;
    }
    setpgid(pid, pid); /* also here, so that a signal sent at once finds the group */
    close(in[0]);
    close(out[1]);
    close(err[1]);
    fcntl(in[1], F_SETFL, O_NONBLOCK);

    /* Standard input waiting for the job to take it; -1 once closed. */
    char *pending = NULL;
    size_t npending = 0;
    int stdin_fd = in[1];
    bool out_open = true, err_open = true, lost = false, stdin_eof = false;
    while (out_open || err_open) {
        struct pollfd p[4] = {
            {.fd = out_open ? out[0] : -1, .events = POLLIN},
            {.fd = err_open ? err[0] : -1, .events = POLLIN},
            {.fd = lost ? -1 : sock, .events = POLLIN},
            {.fd = npending ? stdin_fd : -1, .events = POLLOUT},
        };
        if (poll(p, 4, -1) < 0) {
            if (errno == EINTR)
                continue;
            break;
        }
        if (p[0].revents)
            out_open = forward(out[0], TM_CHANNEL_OUT);
        if (p[1].revents)
            err_open = forward(err[0], TM_CHANNEL_ERR);
        if (p[3].revents) {
            ssize_t n = write(stdin_fd, pending, npending);
            if (n > 0) {
                memmove(pending, pending + n, npending - (size_t)n);
                npending -= (size_t)n;
            } else if (n < 0 && errno != EAGAIN && errno != EINTR) {
                npending = 0; /* the job closed its standard input */
            }
        }
        if (p[2].revents) {
            static char buf[TM_CHANNEL_MAX_PAYLOAD];
            uint32_t type, len;
            int32_t sig;
            if (tm_channel_recv(sock, &type, buf, sizeof buf, &len) < 0) {
                lost = true;
                kill(-pid, SIGKILL);
            } else if (type == TM_CHANNEL_FENCE_DONE) {
                tm_agent_pmix_fence_done(buf, len);
            } else if (type == TM_CHANNEL_SIGNAL && tm_channel_int(buf, len, &sig) == 0) {
                kill(-pid, sig);
            } else if (type == TM_CHANNEL_IN && stdin_fd >= 0 && len > 0) {
                char *more = realloc(pending, npending + len);
                if (more) {
                    memcpy(more + npending, buf, len);
                    pending = more;
                    npending += len;
                }
            } else if (type == TM_CHANNEL_IN && stdin_fd >= 0) {
                stdin_eof = true; /* closed once what came before it is in */
            }
        }
        if (stdin_eof && npending == 0 && stdin_fd >= 0) {
            close(stdin_fd);
            stdin_fd = -1;
        }
    }
    int status;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    tm_agent_pmix_stop();
    if (!lost)
        send_frame(TM_CHANNEL_EXIT, &(uint32_t){htonl((uint32_t)status)}, sizeof(uint32_t));
    free(pending);
    for (char **e = pmix_env; *e; e++)
        free(*e);
    free(pmix_env);
    return 0;
}
