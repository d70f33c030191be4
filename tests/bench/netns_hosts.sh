# Hosts for benchmarks, sourced by netns_*_bench.sh: network namespaces, each with its
# own address and its own /dev/shm and /tmp (a mount namespace with tmpfs mounts: no
# object store is shared through memory), joined through a bridge in a namespace of
# their own. Nothing outside these namespaces is touched. Needs root, iproute2 and
# util-linux (nsenter, unshare).
#
#   hosts_up N SUBNET SHM_MIB [RATE]   N hosts at SUBNET.1 .. SUBNET.N (e.g. 10.79.0),
#                                      each /dev/shm SHM_MIB large; RATE (tc syntax,
#                                      e.g. 1gbit): what each host may send per second
#   on I CMD...                        runs CMD on host I (1-based), in its namespaces
#   hosts_down                         removes everything hosts_up made
# HOST_PIDS[I] is the pid of the process that keeps host I's mounts.

HOSTS_TAG="rb$$"
HOST_PIDS=()
HOSTS_N=0

hosts_up() {
  local n=$1 subnet=$2 shm_mib=$3 rate=${4:-}
  case "${build:-}" in
    /tmp/*) echo "each host mounts its own /tmp: use a build directory outside /tmp" >&2; return 1 ;;
  esac
  HOSTS_N=$n
  ip netns add "$HOSTS_TAG-sw"
  ip -n "$HOSTS_TAG-sw" link add br0 type bridge
  ip -n "$HOSTS_TAG-sw" link set br0 up
  local i
  for ((i = 1; i <= n; i++)); do
    local ns="$HOSTS_TAG-$i"
    ip netns add "$ns"
    ip -n "$ns" link add eth0 type veth peer name "p$i" netns "$HOSTS_TAG-sw"
    ip -n "$HOSTS_TAG-sw" link set "p$i" master br0
    ip -n "$HOSTS_TAG-sw" link set "p$i" up
    ip -n "$ns" addr add "$subnet.$i/24" dev eth0
    ip -n "$ns" link set lo up
    ip -n "$ns" link set eth0 up
    if [ -n "$rate" ]; then
      ip netns exec "$ns" tc qdisc add dev eth0 root tbf rate "$rate" burst 1mb latency 100ms
    fi
    # (Its mounts live as long as this process: commands enter them with nsenter.)
    ip netns exec "$ns" unshare -m --propagation private sh -c \
      "mount -t tmpfs -o size=${shm_mib}m tmpfs /dev/shm && mount -t tmpfs tmpfs /tmp && exec sleep infinity" \
      </dev/null >/dev/null 2>&1 &
    HOST_PIDS[$i]=$!
  done
  # (Each pid is `ip`'s, then unshare's, then the shell's until it execs `sleep` once
  # its mounts are in place: wait for that.)
  for ((i = 1; i <= n; i++)); do
    local tries
    for tries in $(seq 1 100); do
      [ "$(cat "/proc/${HOST_PIDS[$i]}/comm" 2>/dev/null)" = sleep ] && break
      sleep 0.05
    done
    [ "$(cat "/proc/${HOST_PIDS[$i]}/comm" 2>/dev/null)" = sleep ] ||
      { echo "host $i did not come up" >&2; return 1; }
  done
  # The stores really are apart: a file in one host's /dev/shm is not in another's.
  on 1 touch /dev/shm/raybench-probe
  if on 2 test -e /dev/shm/raybench-probe; then
    echo "the hosts share /dev/shm" >&2
    return 1
  fi
}

on() {
  local i=$1
  shift
  nsenter -t "${HOST_PIDS[$i]}" -m -n -- "$@"
}

hosts_down() {
  local i
  for ((i = 1; i <= HOSTS_N; i++)); do
    [ -n "${HOST_PIDS[$i]:-}" ] && kill "${HOST_PIDS[$i]}" 2>/dev/null
    ip netns del "$HOSTS_TAG-$i" 2>/dev/null
  done
  ip netns del "$HOSTS_TAG-sw" 2>/dev/null
  return 0
}
