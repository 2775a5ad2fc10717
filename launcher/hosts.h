/*
 * The hosts of a job started with mpcrun --hosts or --hostfile, and how many ranks each runs.
 *
 * A host list is "HOST[:SLOTS],..." (MPICH's form); a host file has one host per line, as
 * "HOST [slots=N]" or "HOST:N", with blank lines and '#' comments. Ranks are numbered host by
 * host. When every host gives its slots, hosts take ranks in order up to their slots (and -n may
 * be left out: one rank per slot); when none does, the ranks are spread evenly, the first hosts
 * taking one more when they do not divide (-n 7 on two hosts: 4 and 3). A list where some hosts
 * give slots and others do not is refused, as is a host listed twice.
 */
#ifndef TM_LAUNCH_HOSTS_H
#define TM_LAUNCH_HOSTS_H

#include <stddef.h>

typedef struct tm_launch_host {
    char *name;
    long slots;      /* 0: not given */
    long nranks;     /* set by tm_launch_hosts_distribute */
    long first_rank; /* likewise */
} tm_launch_host_t;

typedef struct tm_launch_hosts {
    tm_launch_host_t *v;
    int n;
} tm_launch_hosts_t;

/* Adds the hosts of a --hosts list. 0, or -1 with the reason in err. */
int tm_launch_hosts_parse_list(tm_launch_hosts_t *h, const char *list, char *err, size_t errlen);

/* Adds the hosts of a host file. 0, or -1 with the reason (and line) in err. */
int tm_launch_hosts_parse_file(tm_launch_hosts_t *h, const char *path, char *err, size_t errlen);

/* Gives each host its ranks; nranks 0 means one per slot. 0, or -1 with the reason in err. */
int tm_launch_hosts_distribute(tm_launch_hosts_t *h, long nranks, char *err, size_t errlen);

/* How many hosts run at least one rank. */
int tm_launch_hosts_used(const tm_launch_hosts_t *h);

void tm_launch_hosts_free(tm_launch_hosts_t *h);

#endif /* TM_LAUNCH_HOSTS_H */
