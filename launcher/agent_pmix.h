/*
 * The PMIx server of a host's agent (agent.c): the job's process on this host is its one client,
 * and reaches the other hosts' processes through it (PMIx_Put, _Commit, _Fence, _Get). The
 * server's fence is every host's: the agent sends this host's contribution to mpcrun, which
 * answers once it has every host's (channel.h, FENCE and FENCE_DONE).
 *
 * In PMIx's terms, the job is a namespace of one process per host, ranked in host order.
 */
#ifndef TM_LAUNCH_AGENT_PMIX_H
#define TM_LAUNCH_AGENT_PMIX_H

#include <stddef.h>

/* Sends this host's fence contribution on (called from PMIx's thread). */
typedef void (*tm_agent_pmix_fence_fn)(const char *data, size_t len);

/* Starts the server for process `rank` of the namespace `nspace`, whose processes run on
 * `hosts` (comma-separated, in rank order), and registers the client. Adds what the client needs
 * to *env (a NULL-terminated array, malloc'ed). 0, or -1 with the reason on stderr. */
int tm_agent_pmix_start(const char *nspace, int rank, const char *hosts,
                        tm_agent_pmix_fence_fn fence_out, char ***env);

/* The fence's answer: every host's contribution, in host order. */
void tm_agent_pmix_fence_done(const char *data, size_t len);

void tm_agent_pmix_stop(void);

#endif /* TM_LAUNCH_AGENT_PMIX_H */
