/*
 * mpcrun's side of a job on other hosts (mpcrun --hosts): starts an agent on each host through
 * --rsh, and relays the job's output, standard input, signals and exit status over the channel
 * each agent opens back (channel.h, agent.c).
 */
#ifndef TM_LAUNCH_REMOTE_H
#define TM_LAUNCH_REMOTE_H

#include <stdbool.h>

#include "launcher/hosts.h"

typedef struct tm_launch_remote {
    const tm_launch_hosts_t *hosts;
    const char *rsh;      /* the command that reaches a host, split into words at blanks */
    const char *mpcrun;   /* this mpcrun's path, which every host has */
    const char *agent;    /* tm-agent's path, likewise */
    char *const *args;    /* what each host's mpcrun gets after -n (options, program, its args) */
    bool ordered;         /* print each host's output whole, in host order (--dry-run) */
    const char *progname; /* for messages */
} tm_launch_remote_t;

/* Runs the job. Returns mpcrun's exit status (the first non-zero status of a host, 0 if none),
 * or minus the signal that ended the first failing host, by which mpcrun should then end. */
int tm_launch_remote_run(const tm_launch_remote_t *job);

#endif /* TM_LAUNCH_REMOTE_H */
