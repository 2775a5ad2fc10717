/*
 * The channel between mpcrun and the agent it starts on each host of a --hosts job: one TCP
 * connection per host, opened by the agent back to mpcrun. It carries what ssh need not: the
 * ranks' output, standard input, signals, and the end of each host's part of the job.
 *
 * A frame is a header (type, then the payload's length, both in network order) and its payload.
 *
 *   agent -> mpcrun   HELLO "TOKEN INDEX"   first frame: the job's secret and the host's index
 *                     OUT, ERR bytes        the host's standard output and error
 *                     FENCE bytes           the host's part of a PMIx fence (agent_pmix.h)
 *                     EXIT int32            its wait status (as waitpid gives it), last frame
 *   mpcrun -> agent   IN bytes              standard input (host 0 only); empty: end of file
 *                     SIGNAL int32          a signal for the host's processes
 *                     FENCE_DONE bytes      every host's part of the fence, in host order
 */
#ifndef TM_LAUNCH_CHANNEL_H
#define TM_LAUNCH_CHANNEL_H

#include <stddef.h>
#include <stdint.h>

enum {
    TM_CHANNEL_HELLO = 1,
    TM_CHANNEL_OUT,
    TM_CHANNEL_ERR,
    TM_CHANNEL_EXIT,
    TM_CHANNEL_IN,
    TM_CHANNEL_SIGNAL,
    TM_CHANNEL_FENCE,
    TM_CHANNEL_FENCE_DONE,
};

#define TM_CHANNEL_MAX_PAYLOAD (16u << 20) /* a fence's answer from many hosts */
#define TM_CHANNEL_CHUNK       65536       /* the most output one OUT or ERR frame carries */
#define TM_CHANNEL_TOKEN_LEN   32 /* hex digits */

/* Writes all of buf to fd (blocking), frame or not. 0, or -errno. */
int tm_channel_write_all(int fd, const void *buf, size_t len);

/* Writes one frame, all of it (blocking). 0, or -errno. */
int tm_channel_send(int fd, uint32_t type, const void *payload, uint32_t len);

/* Writes a frame whose payload is one int32. */
int tm_channel_send_int(int fd, uint32_t type, int32_t value);

/* Reads one frame (blocking) into buf (cap bytes). 0; -EPIPE at end of file between frames;
 * -EPROTO for a malformed frame or one over cap; -errno. */
int tm_channel_recv(int fd, uint32_t *type, void *buf, uint32_t cap, uint32_t *len);

/* The int32 payload of a frame, or -1 if it is not one. */
int tm_channel_int(const void *buf, uint32_t len, int32_t *value);

#endif /* TM_LAUNCH_CHANNEL_H */
