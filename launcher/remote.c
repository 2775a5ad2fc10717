/*
 * mpcrun --hosts (remote.h): start an agent per host, then relay until every host's part ends.
 *
 * The agents connect back to a listening socket of mpcrun's, on whichever of mpcrun's addresses
 * they reach first (all of them are on their command line: where the hosts' names resolve and
 * which of mpcrun's networks they see is theirs to know), and prove they belong to this job with
 * a random token. Everything a host needs is on its agent's command line, each word quoted for
 * the remote shell: mpcrun's working directory, its environment (less what belongs to a host:
 * HOME, USER, LOGNAME, SHELL, and the like), and the host's mpcrun command.
 *
 * The --rsh processes get their own process groups: a signal from the terminal reaches mpcrun
 * alone, which forwards it to the job over the channels; a host's end is its agent's EXIT frame.
 */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <time.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "launcher/channel.h"
#include "launcher/remote.h"
#include "runtime/settings.h"

extern char **environ;

/* How long mpcrun waits for the --rsh processes to end after their hosts' jobs have. */
#define RSH_GRACE_MS 3000

/* After a failure, how long the other hosts' parts have to end on SIGTERM (their runtime removes
 * its temporary files then) before SIGKILL. */
#define KILL_GRACE_MS 5000

/* After a host's part ended with a status (its ranks returned it, or called exit or MPI_Abort),
 * how long the others have to end on their own before they are ended: as many parts end at
 * once, each flushing its ranks' output, which SIGTERM would lose. */
#define EXIT_GRACE_MS 2000

typedef struct host_state {
    pid_t rsh;      /* the --rsh process; 0 once reaped */
    int fd;         /* the channel; -1 before the agent connects and after its end */
    bool connected; /* the agent said hello */
    bool done;      /* its part of the job has ended (EXIT), or failed */
    int status;     /* its wait status, once done */
    char *out;      /* output kept for the end (ordered) */
    size_t nout;
    char *fence; /* its part of the PMIx fence under way; NULL before it sends it */
    size_t nfence;
} host_state_t;

static int signal_pipe[2] = {-1, -1};

static void on_signal(int sig)
{
    int saved = errno;
    unsigned char c = (unsigned char)sig;
    (void)!write(signal_pipe[1], &c, 1);
    errno = saved;
}

static const int forwarded_signals[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2};

/* A word quoted for a POSIX shell: between single quotes, each ' as '\''. */
static char *shell_quote(const char *word)
{
    size_t n = 3;
    for (const char *p = word; *p; p++)
        n += *p == '\'' ? 4 : 1;
    char *q = malloc(n), *o = q;
    if (!q)
        return NULL;
    *o++ = '\'';
    for (const char *p = word; *p; p++) {
        if (*p == '\'') {
            memcpy(o, "'\\''", 4);
            o += 4;
        } else {
            *o++ = *p;
        }
    }
    *o++ = '\'';
    *o = '\0';
    return q;
}

/* Whether the variable `entry` (NAME=VALUE) belongs to the host rather than to the job. */
static bool host_variable(const char *entry)
{
    static const char *const own[] = {"HOME",     "USER",    "LOGNAME",    "SHELL",
                                      "HOSTNAME", "PWD",     "OLDPWD",     "SHLVL",
                                      "_",        "DISPLAY", "XAUTHORITY", "TERMCAP"};
    size_t len = strcspn(entry, "=");
    for (size_t i = 0; i < sizeof own / sizeof *own; i++)
        if (strlen(own[i]) == len && strncmp(entry, own[i], len) == 0)
            return true;
    /* mpcrun's own hand-over to the job: each host's mpcrun makes its own */
    return strncmp(entry, "SSH_", 4) == 0 || strncmp(entry, "THREADMPI_MPCRUN_", 17) == 0;
}

/* The listening socket, on every address of this machine; its port in *port. */
static int listen_any(int *port)
{
    int fd = socket(AF_INET6, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_storage ss = {0};
    socklen_t len;
    if (fd >= 0) {
        int off = 0;
        setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &off, sizeof off);
        struct sockaddr_in6 *a6 = (struct sockaddr_in6 *)&ss;
        a6->sin6_family = AF_INET6;
        a6->sin6_addr = in6addr_any;
        len = sizeof *a6;
    } else {
        fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        struct sockaddr_in *a4 = (struct sockaddr_in *)&ss;
        a4->sin_family = AF_INET;
        a4->sin_addr.s_addr = htonl(INADDR_ANY);
        len = sizeof *a4;
    }
    if (fd < 0 || bind(fd, (struct sockaddr *)&ss, len) < 0 || listen(fd, 64) < 0 ||
        getsockname(fd, (struct sockaddr *)&ss, &len) < 0) {
        if (fd >= 0)
            close(fd);
        return -1;
    }
    *port = ntohs(ss.ss_family == AF_INET6 ? ((struct sockaddr_in6 *)&ss)->sin6_port
                                           : ((struct sockaddr_in *)&ss)->sin_port);
    return fd;
}

/* This machine's addresses, comma-separated, loopback last (a host that is this machine). */
static char *own_addresses(void)
{
    struct ifaddrs *ifs;
    if (getifaddrs(&ifs) < 0)
        return strdup("127.0.0.1");
    size_t cap = 256, used = 0;
    char *list = malloc(cap);
    for (int loopback = 0; list && loopback < 2; loopback++) {
        for (struct ifaddrs *i = ifs; i; i = i->ifa_next) {
            char text[INET6_ADDRSTRLEN];
            if (!i->ifa_addr || !(i->ifa_flags & IFF_UP) ||
                !(i->ifa_flags & IFF_LOOPBACK) != !loopback)
                continue;
            if (i->ifa_addr->sa_family == AF_INET)
                inet_ntop(AF_INET, &((struct sockaddr_in *)i->ifa_addr)->sin_addr, text,
                          sizeof text);
            else if (i->ifa_addr->sa_family == AF_INET6 &&
                     !IN6_IS_ADDR_LINKLOCAL(&((struct sockaddr_in6 *)i->ifa_addr)->sin6_addr))
                inet_ntop(AF_INET6, &((struct sockaddr_in6 *)i->ifa_addr)->sin6_addr, text,
                          sizeof text);
            else
                continue;
            if (used + strlen(text) + 2 > cap) {
                char *more = realloc(list, cap *= 2);
                if (!more) {
                    free(list);
                    list = NULL;
                    break;
                }
                list = more;
            }
            used += (size_t)sprintf(list + used, "%s%s", used ? "," : "", text);
        }
    }
    freeifaddrs(ifs);
    if (list && used == 0)
        strcpy(list, "127.0.0.1");
    return list;
}

/* The words of the --rsh command, then the host, then the agent's command line, quoted. */
static char **rsh_argv(const tm_launch_remote_t *job, int h, const char *addresses, int port,
                       const char *token)
{
    const tm_launch_host_t *host = &job->hosts->v[h];
    size_t nenv = 0, nargs = 0, nrsh = 0;
    while (environ[nenv])
        nenv++;
    while (job->args[nargs])
        nargs++;
    char *rsh = strdup(job->rsh), *save = NULL;
    size_t cap = strlen(job->rsh) / 2 + 1 + 1 + 10 + nenv + 3 + 3 + nargs + 1;
    char **argv = calloc(cap, sizeof *argv);
    if (!rsh || !argv)
        goto fail;
    for (char *w = strtok_r(rsh, " \t", &save); w; w = strtok_r(NULL, " \t", &save))
        argv[nrsh++] = strdup(w);
    size_t n = nrsh;
    argv[n++] = strdup(host->name);

    char cwd[4096], portstr[16], index[16], prank[16], count[16], first[64], world[64], np[32];
    if (!getcwd(cwd, sizeof cwd))
        goto fail;
    /* The job's processes: one per host that runs ranks, in host order. */
    long nranks = 0;
    int rank = 0;
    size_t names_len = 1;
    for (int i = 0; i < job->hosts->n; i++) {
        nranks += job->hosts->v[i].nranks;
        rank += i < h && job->hosts->v[i].nranks > 0;
        names_len += strlen(job->hosts->v[i].name) + 1;
    }
    char *names = malloc(names_len);
    if (!names)
        goto fail;
    names[0] = '\0';
    for (int i = 0; i < job->hosts->n; i++)
        if (job->hosts->v[i].nranks > 0)
            sprintf(names + strlen(names), "%s%s", names[0] ? "," : "", job->hosts->v[i].name);
    snprintf(prank, sizeof prank, "%d", rank);
    snprintf(portstr, sizeof portstr, "%d", port);
    snprintf(index, sizeof index, "%d", h);
    snprintf(first, sizeof first, TM_RT_ENV_MPCRUN_FIRST_RANK "=%ld", host->first_rank);
    snprintf(world, sizeof world, TM_RT_ENV_MPCRUN_WORLD "=%ld", nranks);
    snprintf(np, sizeof np, "%ld", host->nranks);
    char *hostvar = malloc(strlen(host->name) + 32);
    if (!hostvar)
        goto fail;
    sprintf(hostvar, "%s=%s", TM_RT_ENV_MPCRUN_HOST, host->name);

    size_t env_first = n + 9, kept = 0;
    const char *fixed[] = {job->agent, addresses, portstr, token, index, prank, names, cwd};
    for (size_t i = 0; i < 8; i++)
        argv[n++] = shell_quote(fixed[i]);
    free(names);
    n++; /* the count, below */
    for (size_t i = 0; i < nenv; i++)
        if (!host_variable(environ[i])) {
            argv[n++] = shell_quote(environ[i]);
            kept++;
        }
    argv[n++] = shell_quote(hostvar);
    argv[n++] = shell_quote(first);
    argv[n++] = shell_quote(world);
    free(hostvar);
    snprintf(count, sizeof count, "%zu", kept + 3);
    argv[env_first - 1] = shell_quote(count);
    argv[n++] = shell_quote(job->mpcrun);
    argv[n++] = shell_quote("-n");
    argv[n++] = shell_quote(np);
    for (size_t i = 0; i < nargs; i++)
        argv[n++] = shell_quote(job->args[i]);
    for (size_t i = 0; i < n; i++)
        if (!argv[i])
            goto fail;
    free(rsh);
    return argv;
fail:
    if (argv)
        for (size_t i = 0; i < cap; i++)
            free(argv[i]);
    free(argv);
    free(rsh);
    return NULL;
}

static pid_t start_rsh(char **argv)
{
    pid_t pid = fork();
    if (pid != 0)
        return pid;
    setpgid(0, 0);
    for (size_t i = 0; i < sizeof forwarded_signals / sizeof *forwarded_signals; i++)
        signal(forwarded_signals[i], SIG_DFL);
    int null = open("/dev/null", O_RDONLY);
    if (null >= 0)
        dup2(null, 0);
    execvp(argv[0], argv);
    fprintf(stderr, "mpcrun: cannot execute the --rsh command %s: %s\n", argv[0], strerror(errno));
    _exit(127);
}

typedef struct relay {
    const tm_launch_remote_t *job;
    host_state_t *hosts;
    int nhosts;
    const char *token;
    int first_failure; /* the wait status of the first host that failed; 0 while none */
    bool failed;
    double kill_at; /* after a failure: when SIGKILL follows SIGTERM (CLOCK_MONOTONIC, s); 0
                     * once sent */
    double fail_at; /* after a host's part ended with a status: when the job fails if others
                     * still run (CLOCK_MONOTONIC, s); 0 for none */
    bool stdin_open;
} relay_t;

static void send_all_signal(relay_t *r, int sig)
{
    for (int h = 0; h < r->nhosts; h++)
        if (r->hosts[h].fd >= 0)
            tm_channel_send_int(r->hosts[h].fd, TM_CHANNEL_SIGNAL, sig);
}

static double monotonic_seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* Ends the job after a failure: the hosts' processes are ended (SIGTERM, then SIGKILL after
 * KILL_GRACE_MS), the --rsh processes too. */
static void fail_job(relay_t *r, int status)
{
    if (!r->failed) {
        r->failed = true;
        if (!r->first_failure)
            r->first_failure = status;
        r->kill_at = monotonic_seconds() + KILL_GRACE_MS / 1000.0;
    }
    send_all_signal(r, SIGTERM);
    for (int h = 0; h < r->nhosts; h++)
        if (!r->hosts[h].connected && r->hosts[h].rsh > 0)
            kill(-r->hosts[h].rsh, SIGTERM);
}

/* A PMIx fence (agent_pmix.h): once every host that runs has sent its part, each gets them all,
 * in host order. A host that ends before it sends its part would leave the others waiting: the
 * job fails. */
static void fence_step(relay_t *r)
{
    size_t total = 0;
    bool any = false;
    for (int h = 0; h < r->nhosts; h++) {
        host_state_t *hs = &r->hosts[h];
        if (r->job->hosts->v[h].nranks == 0)
            continue;
        if (hs->fence) {
            any = true;
            total += hs->nfence;
        } else if (!hs->done) {
            return; /* still to come */
        }
    }
    if (!any)
        return;
    for (int h = 0; h < r->nhosts; h++)
        if (r->job->hosts->v[h].nranks > 0 && !r->hosts[h].fence) {
            if (!r->failed)
                fprintf(stderr,
                        "%s: host %s: its job ended while the other hosts waited for it in the "
                        "job's wire-up (a PMIx fence)\n",
                        r->job->progname, r->job->hosts->v[h].name);
            fail_job(r, 1 << 8);
            return;
        }
    char *all = total <= TM_CHANNEL_MAX_PAYLOAD ? malloc(total ? total : 1) : NULL;
    if (!all) {
        fprintf(stderr, "%s: the hosts' wire-up is too large (%zu bytes)\n", r->job->progname,
                total);
        fail_job(r, 1 << 8);
        return;
    }
    size_t used = 0;
    for (int h = 0; h < r->nhosts; h++) {
        host_state_t *hs = &r->hosts[h];
        if (!hs->fence)
            continue;
        memcpy(all + used, hs->fence, hs->nfence);
        used += hs->nfence;
        free(hs->fence);
        hs->fence = NULL;
    }
    for (int h = 0; h < r->nhosts; h++)
        if (r->hosts[h].fd >= 0)
            tm_channel_send(r->hosts[h].fd, TM_CHANNEL_FENCE_DONE, all, (uint32_t)total);
    free(all);
}

static void host_done(relay_t *r, int h, int status)
{
    host_state_t *hs = &r->hosts[h];
    hs->done = true;
    hs->status = status;
    if (hs->fd >= 0)
        close(hs->fd);
    hs->fd = -1;
    if (status != 0 && !r->failed && WIFSIGNALED(status)) {
        fail_job(r, status);
        return;
    }
    if (status != 0 && !r->failed && !r->first_failure) {
        r->first_failure = status;
        r->fail_at = monotonic_seconds() + EXIT_GRACE_MS / 1000.0;
    }
    /* A part that ended with a status while the others wait in a fence (as at MPI_Finalize)
     * fails the job when the grace is over, not as one that left a fence. */
    if (!r->failed && status == 0)
        fence_step(r);
}

/* A new connection: it must say hello with the job's token and a host that has not. */
static void accept_agent(relay_t *r, int listener)
{
    int fd = accept4(listener, NULL, NULL, SOCK_CLOEXEC);
    if (fd < 0)
        return;
    struct timeval tv = {.tv_sec = 5};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    char buf[128];
    uint32_t type, len;
    int h = -1;
    if (tm_channel_recv(fd, &type, buf, sizeof buf - 1, &len) == 0 && type == TM_CHANNEL_HELLO) {
        buf[len] = '\0';
        size_t tlen = strlen(r->token);
        if (len > tlen + 1 && memcmp(buf, r->token, tlen) == 0 && buf[tlen] == ' ')
            h = atoi(buf + tlen + 1);
    }
    if (h < 0 || h >= r->nhosts || r->hosts[h].connected || r->hosts[h].done) {
        close(fd);
        return;
    }
    tv.tv_sec = 0;
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    r->hosts[h].fd = fd;
    r->hosts[h].connected = true;
    if (r->failed)
        tm_channel_send_int(fd, TM_CHANNEL_SIGNAL, SIGKILL);
    /* Standard input goes to the first host (rank 0's) only. */
    if (h != 0 || !r->stdin_open)
        tm_channel_send(fd, TM_CHANNEL_IN, NULL, 0);
}

static void from_agent(relay_t *r, int h)
{
    static char buf[TM_CHANNEL_MAX_PAYLOAD];
    host_state_t *hs = &r->hosts[h];
    uint32_t type, len;
    int32_t status;
    if (tm_channel_recv(hs->fd, &type, buf, sizeof buf, &len) < 0) {
        if (!r->failed)
            fprintf(stderr, "%s: host %s: the connection to its agent was lost\n", r->job->progname,
                    r->job->hosts->v[h].name);
        host_done(r, h, 1 << 8);
        return;
    }
    if (type == TM_CHANNEL_OUT && r->job->ordered) {
        char *more = realloc(hs->out, hs->nout + len);
        if (more) {
            memcpy(more + hs->nout, buf, len);
            hs->out = more;
            hs->nout += len;
        }
    } else if (type == TM_CHANNEL_OUT) {
        (void)tm_channel_write_all(1, buf, len);
    } else if (type == TM_CHANNEL_ERR) {
        (void)tm_channel_write_all(2, buf, len);
    } else if (type == TM_CHANNEL_FENCE && !hs->fence) {
        hs->fence = malloc(len ? len : 1);
        if (!hs->fence) {
            fprintf(stderr, "%s: out of memory\n", r->job->progname);
            fail_job(r, 1 << 8);
            return;
        }
        memcpy(hs->fence, buf, len);
        hs->nfence = len;
        fence_step(r);
    } else if (type == TM_CHANNEL_EXIT && tm_channel_int(buf, len, &status) == 0) {
        host_done(r, h, status);
    }
}

static void forward_stdin(relay_t *r)
{
    static char buf[TM_CHANNEL_CHUNK];
    ssize_t n = read(0, buf, sizeof buf);
    if (n < 0 && errno == EINTR)
        return;
    if (n <= 0) {
        r->stdin_open = false;
        n = 0;
    }
    if (r->hosts[0].fd >= 0)
        tm_channel_send(r->hosts[0].fd, TM_CHANNEL_IN, buf, (uint32_t)n);
}

/* Reaps the --rsh processes that ended. One that ends before its agent connected failed. */
static void reap(relay_t *r)
{
    int status;
    pid_t pid;
    while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
        for (int h = 0; h < r->nhosts; h++) {
            host_state_t *hs = &r->hosts[h];
            if (hs->rsh != pid)
                continue;
            hs->rsh = 0;
            if (!hs->connected && !hs->done) {
                if (!r->failed)
                    fprintf(stderr,
                            "%s: host %s: the --rsh command (%s) ended with status %d before "
                            "the host's agent connected back\n",
                            r->job->progname, r->job->hosts->v[h].name, r->job->rsh,
                            WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
                host_done(r, h, WIFEXITED(status) && WEXITSTATUS(status) ? status : 1 << 8);
            }
        }
    }
}

static bool all_done(const relay_t *r)
{
    for (int h = 0; h < r->nhosts; h++)
        if (!r->hosts[h].done)
            return false;
    return true;
}

static bool rsh_running(const relay_t *r)
{
    for (int h = 0; h < r->nhosts; h++)
        if (r->hosts[h].rsh > 0)
            return true;
    return false;
}

int tm_launch_remote_run(const tm_launch_remote_t *job)
{
    const char *progname = job->progname;
    int port = 0, nhosts = job->hosts->n;
    unsigned char secret[TM_CHANNEL_TOKEN_LEN / 2];
    char token[TM_CHANNEL_TOKEN_LEN + 1];
    if (getrandom(secret, sizeof secret, 0) != (ssize_t)sizeof secret) {
        fprintf(stderr, "%s: getrandom: %s\n", progname, strerror(errno));
        return 1;
    }
    for (size_t i = 0; i < sizeof secret; i++)
        sprintf(token + 2 * i, "%02x", secret[i]);
    int listener = listen_any(&port);
    char *addresses = own_addresses();
    host_state_t *hosts = calloc((size_t)nhosts, sizeof *hosts);
    if (listener < 0 || !addresses || !hosts || pipe2(signal_pipe, O_CLOEXEC | O_NONBLOCK) < 0) {
        fprintf(stderr, "%s: cannot listen for the hosts' agents: %s\n", progname, strerror(errno));
        free(addresses);
        free(hosts);
        return 1;
    }
    relay_t r = {.job = job, .hosts = hosts, .nhosts = nhosts, .token = token, .stdin_open = true};

    struct sigaction sa = {.sa_handler = on_signal};
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART;
    for (size_t i = 0; i < sizeof forwarded_signals / sizeof *forwarded_signals; i++)
        sigaction(forwarded_signals[i], &sa, NULL);
    sigaction(SIGCHLD, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);

    for (int h = 0; h < nhosts; h++)
        hosts[h].fd = -1;
    for (int h = 0; h < nhosts; h++) {
        if (job->hosts->v[h].nranks == 0) {
            hosts[h].done = true;
            continue;
        }
        char **argv = rsh_argv(job, h, addresses, port, token);
        if (!argv) {
            fprintf(stderr, "%s: out of memory\n", progname);
            fail_job(&r, 1 << 8);
            break;
        }
        hosts[h].rsh = start_rsh(argv);
        for (char **a = argv; *a; a++)
            free(*a);
        free(argv);
        if (hosts[h].rsh < 0) {
            fprintf(stderr, "%s: fork: %s\n", progname, strerror(errno));
            hosts[h].rsh = 0;
            fail_job(&r, 1 << 8);
            break;
        }
        setpgid(hosts[h].rsh, hosts[h].rsh);
    }
    for (int h = 0; h < nhosts && r.failed; h++)
        hosts[h].done = hosts[h].done || !hosts[h].connected;

    /* The relay: until every host's part has ended, then until the --rsh processes have. */
    int grace = -1;
    while (!all_done(&r) || rsh_running(&r)) {
        if (all_done(&r) && grace < 0) {
            grace = RSH_GRACE_MS / 100;
        } else if (all_done(&r) && --grace == 0) {
            for (int h = 0; h < nhosts; h++)
                if (hosts[h].rsh > 0)
                    kill(-hosts[h].rsh, SIGTERM);
        }
        struct pollfd p[3 + nhosts];
        p[0] = (struct pollfd){.fd = listener, .events = POLLIN};
        p[1] = (struct pollfd){.fd = signal_pipe[0], .events = POLLIN};
        p[2] = (struct pollfd){.fd = r.stdin_open && hosts[0].fd >= 0 ? 0 : -1, .events = POLLIN};
        for (int h = 0; h < nhosts; h++)
            p[3 + h] = (struct pollfd){.fd = hosts[h].fd, .events = POLLIN};
        if (r.kill_at > 0 && monotonic_seconds() >= r.kill_at) {
            send_all_signal(&r, SIGKILL);
            r.kill_at = 0;
        }
        if (r.fail_at > 0 && !r.failed && monotonic_seconds() >= r.fail_at)
            fail_job(&r, r.first_failure);
        bool timed = all_done(&r) || r.kill_at > 0 || (r.fail_at > 0 && !r.failed);
        if (poll(p, (nfds_t)(3 + nhosts), timed ? 100 : -1) < 0 && errno != EINTR)
            break;
        if (p[1].revents) {
            unsigned char sigs[64];
            ssize_t n = read(signal_pipe[0], sigs, sizeof sigs);
            for (ssize_t i = 0; i < n; i++) {
                if (sigs[i] == SIGCHLD)
                    continue;
                send_all_signal(&r, sigs[i]);
                /* a host not yet connected will not get it: the job ends there too */
                if (sigs[i] != SIGUSR1 && sigs[i] != SIGUSR2)
                    for (int h = 0; h < nhosts; h++)
                        if (!hosts[h].connected && hosts[h].rsh > 0)
                            kill(-hosts[h].rsh, SIGTERM);
            }
            reap(&r);
        }
        if (p[0].revents)
            accept_agent(&r, listener);
        if (p[2].revents)
            forward_stdin(&r);
        for (int h = 0; h < nhosts; h++)
            if (p[3 + h].fd >= 0 && p[3 + h].revents && hosts[h].fd >= 0)
                from_agent(&r, h);
    }

    int status = r.first_failure;
    for (int h = 0; h < nhosts; h++) {
        (void)tm_channel_write_all(1, hosts[h].out, hosts[h].nout);
        free(hosts[h].out);
        free(hosts[h].fence);
    }
    close(listener);
    free(addresses);
    free(hosts);
    if (WIFSIGNALED(status))
        return -WTERMSIG(status);
    return WEXITSTATUS(status);
}
