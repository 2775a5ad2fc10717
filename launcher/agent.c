/*
 * tm-agent: what mpcrun --hosts starts on each host through --rsh. It connects back to mpcrun,
 * runs that host's part of the job (mpcrun itself, with the host's ranks) in the directory and
 * environment mpcrun gave, and carries over the channel (channel.h) the job's output and exit
 * status one way and standard input and signals the other. When the channel breaks, mpcrun is
 * gone: the agent kills the host's processes, so nothing outlives the job.
 *
 *   tm-agent ADDRESSES PORT TOKEN INDEX DIRECTORY NENV NAME=VALUE... COMMAND [ARGS...]
 *
 * ADDRESSES are mpcrun's, comma-separated, tried in turn; the environment is the NENV
 * assignments over the agent's own HOME, USER, LOGNAME, SHELL (the host's).
 */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "launcher/channel.h"

#define CONNECT_TIMEOUT_MS 5000

static const char *progname = "tm-agent";

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
static pid_t start(char **argv, const char *dir, char **env, int nenv, int in, int out, int err)
{
    pid_t pid = fork();
    if (pid != 0)
        return pid;
    setpgid(0, 0);
    /* An agent killed outright takes the job with it (the setting survives the execs). */
    prctl(PR_SET_PDEATHSIG, SIGKILL);
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
    execv(argv[0], argv);
    fprintf(stderr, "%s: cannot execute %s on this host: %s\n", progname, argv[0], strerror(errno));
    _exit(127);
}

/* Forwards what the pipe holds as one frame; false at end of file. */
static bool forward(int pipe_fd, int sock, uint32_t type)
{
    char buf[TM_CHANNEL_MAX_PAYLOAD];
    ssize_t n = read(pipe_fd, buf, sizeof buf);
    if (n < 0 && (errno == EINTR || errno == EAGAIN))
        return true;
    if (n <= 0)
        return false;
    if (tm_channel_send(sock, type, buf, (uint32_t)n) < 0)
        return true; /* mpcrun is gone: the channel's end of file says so */
    return true;
}

int main(int argc, char **argv)
{
    if (argc < 8) {
        fprintf(stderr, "%s: started by mpcrun --hosts, not by hand\n", progname);
        return 2;
    }
    const char *addresses = argv[1], *port = argv[2], *token = argv[3], *index = argv[4],
               *dir = argv[5];
    int nenv = atoi(argv[6]);
    if (nenv < 0 || 7 + nenv >= argc) {
        fprintf(stderr, "%s: a malformed command line\n", progname);
        return 2;
    }
    char **env = argv + 7, **command = argv + 7 + nenv;
    signal(SIGPIPE, SIG_IGN);
    /* ssh's end may hang up on us; the channel says when mpcrun is gone. */
    signal(SIGHUP, SIG_IGN);

    int sock = connect_back(addresses, port);
    if (sock < 0) {
        fprintf(stderr, "%s: cannot reach mpcrun at %s, port %s, from this host\n", progname,
                addresses, port);
        return 1;
    }
    char hello[128];
    snprintf(hello, sizeof hello, "%s %s", token, index);
    if (tm_channel_send(sock, TM_CHANNEL_HELLO, hello, (uint32_t)strlen(hello)) < 0)
        return 1;

    int in[2], out[2], err[2];
    if (pipe2(in, O_CLOEXEC) < 0 || pipe2(out, O_CLOEXEC) < 0 || pipe2(err, O_CLOEXEC) < 0) {
        fprintf(stderr, "%s: pipe: %s\n", progname, strerror(errno));
        return 1;
    }
    pid_t pid = start(command, dir, env, nenv, in[0], out[1], err[1]);
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
            out_open = forward(out[0], sock, TM_CHANNEL_OUT);
        if (p[1].revents)
            err_open = forward(err[0], sock, TM_CHANNEL_ERR);
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
            if (tm_channel_recv(sock, &type, buf, &len) < 0) {
                lost = true;
                kill(-pid, SIGKILL);
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
    if (!lost)
        tm_channel_send_int(sock, TM_CHANNEL_EXIT, status);
    free(pending);
    return 0;
}
