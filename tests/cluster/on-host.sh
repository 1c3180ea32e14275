#!/usr/bin/env bash
# on-host.sh HOST CMD...: run CMD "on" emulated host HOST of the current cluster test run: inside
# network namespace $CL_TAG-HOST and a new UTS namespace whose hostname is HOST. CMD replaces this
# process (no fork), so a `timeout` around on-host.sh signals CMD itself.
: "${CL_TAG:?on-host.sh: CL_TAG unset (set by tests/cluster/lib.sh)}"
host=${1:?usage: on-host.sh HOST CMD...}
shift
# shellcheck disable=SC2016 # $0 and $@ belong to the inner shell
exec ip netns exec "$CL_TAG-$host" unshare --uts -- \
  /bin/sh -c 'hostname "$0" && exec "$@"' "$host" "$@"
