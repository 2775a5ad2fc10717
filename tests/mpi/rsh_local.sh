#!/bin/sh
# A stand-in for ssh in the tests of mpcrun --hosts, called as ssh is: rsh_local.sh HOST WORDS...
# It runs the words joined, by a shell, in $HOME, with only HOME, USER, LOGNAME, SHELL and PATH
# set, as sshd does; with TM_RSH_NETNS=1, inside the network namespace named HOST.
host=$1
shift
netns=
[ "${TM_RSH_NETNS:-0}" = 1 ] && netns="ip netns exec $host"
exec $netns env -i HOME="${HOME:-/}" USER="${USER:-root}" LOGNAME="${LOGNAME:-root}" \
    SHELL=/bin/sh PATH=/usr/local/bin:/usr/bin:/bin sh -c "cd && $*"
