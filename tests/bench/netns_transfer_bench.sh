#!/usr/bin/env bash
# An object moved between two hosts: two network namespaces joined by a veth pair
# (10.78.0.1 and 10.78.0.2), each host with its own /dev/shm and /tmp (a mount
# namespace with tmpfs mounts: the object store cannot be shared through memory),
# a head on one and a node with resource "Special" on the other. The job (the
# multinode test plugin's `gib` case, run in the head's namespaces) makes a MIB-sized
# object on the other host and reads it on the head's, checking every byte. Prints
# the transfer's time as the receiving raylet logs it, its rate, and the loopback
# tcp bandwidth floor of the same run (`ray _tcp_floor --bandwidth`: 8 MiB messages
# one way between two processes), which #18's target compares it with.
#
#   tests/bench/netns_transfer_bench.sh BUILD_DIR     (env: MIB, default 1024)
#
# Needs root, iproute2 and util-linux (nsenter, unshare); leaves nothing behind.
set -euo pipefail
build=$(cd "${1:?usage: netns_transfer_bench.sh BUILD_DIR}" && pwd)
mib=${MIB:-1024}
ray="$build/cli/ray"
plugin="$build/tests/integration/it_multinode_plugin.so"
[ "$(id -u)" = 0 ] || { echo "needs root (network and mount namespaces)" >&2; exit 2; }
[ -x "$ray" ] && [ -f "$plugin" ] || { echo "build $ray and $plugin first" >&2; exit 2; }
tag=$$
ns_a="raybench-$tag-a" ns_b="raybench-$tag-b"
# Not under /tmp: each host mounts its own /tmp. A short path (worker sockets).
work=$(mktemp -d /var/tmp/nx.XXXXXX)
head_pid="" node_pid=""
cleanup() {
  "$ray" stop --temp-dir "$work/b" >/dev/null 2>&1 || true
  "$ray" stop --temp-dir "$work/a" >/dev/null 2>&1 || true
  [ -n "$head_pid" ] && kill "$head_pid" 2>/dev/null || true
  [ -n "$node_pid" ] && kill "$node_pid" 2>/dev/null || true
  ip netns del "$ns_b" 2>/dev/null || true
  ip netns del "$ns_a" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

ip netns add "$ns_a"
ip netns add "$ns_b"
ip -n "$ns_a" link add "rb${tag}a" type veth peer name "rb${tag}b" netns "$ns_b"
ip -n "$ns_a" addr add 10.78.0.1/24 dev "rb${tag}a"
ip -n "$ns_b" addr add 10.78.0.2/24 dev "rb${tag}b"
for ns in "$ns_a" "$ns_b"; do ip -n "$ns" link set lo up; done
ip -n "$ns_a" link set "rb${tag}a" up
ip -n "$ns_b" link set "rb${tag}b" up

# A host: a shell in namespace $1 with its own /dev/shm and /tmp, which lives (and so
# keeps the mounts) until killed; commands enter it with nsenter.
store_bytes=$(( (mib + 256) * 1048576 ))
shm_size=$(( 2 * mib + 512 ))m
start_host() {
  ip netns exec "$1" unshare -m --propagation private sh -c \
    "mount -t tmpfs -o size=$shm_size tmpfs /dev/shm && mount -t tmpfs tmpfs /tmp && exec sleep infinity" \
    </dev/null >/dev/null 2>&1 &
  echo $!
}
head_pid=$(start_host "$ns_a")
node_pid=$(start_host "$ns_b")
# (The pid above is `ip`'s until it execs: wait until the mounts are in place.)
on() { local pid=$1; shift; nsenter -t "$pid" -m -n -- "$@"; }
for _ in $(seq 1 50); do
  on "$head_pid" sh -c 'mount | grep -q " /dev/shm type tmpfs .*size"' 2>/dev/null &&
    on "$node_pid" sh -c 'mount | grep -q " /dev/shm type tmpfs .*size"' 2>/dev/null && break
  sleep 0.1
done

on "$head_pid" "$ray" start --head --node-ip-address 10.78.0.1 --port 6391 --num-cpus 1 \
  --object-store-memory "$store_bytes" --temp-dir "$work/a" >"$work/a.log"
token=$(cat "$work/a/session_latest/token")
on "$node_pid" "$ray" start --address 10.78.0.1:6391 --token "$token" --node-ip-address 10.78.0.2 \
  --num-cpus 1 --resources '{"Special": 1}' --object-store-memory "$store_bytes" \
  --temp-dir "$work/b" >"$work/b.log"
# The two stores really are apart: a file in one host's /dev/shm is not in the other's.
on "$head_pid" touch /dev/shm/raybench-probe
if on "$node_pid" test -e /dev/shm/raybench-probe; then
  echo "the two hosts share /dev/shm" >&2; exit 1
fi

[ "$mib" = 1024 ] || { echo "only MIB=1024 (the plugin's gib case) is supported" >&2; exit 2; }
start=$(date +%s.%N)
out=$(on "$head_pid" "$ray" submit --address 10.78.0.1:6391 --temp-dir "$work/a" "$plugin" gib 2>"$work/job.err") ||
  { echo "the job failed:" >&2; tail -20 "$work/job.err" >&2; exit 1; }
job_s=$(echo "$(date +%s.%N) - $start" | bc -l)
echo "$out" | grep -q '^gib_remote_to_driver=intact$' ||
  { echo "the object did not arrive intact: $out" >&2; exit 1; }
# (The largest object the head received: the blob, with its few bytes of encoding.)
line=$(grep -h "received object .* bytes) from node" "$work/a/session_latest/logs/raylet.err" |
  sed -n 's/.*(\([0-9]*\) bytes).* in \([0-9]*\) ms.*/\1 \2/p' | sort -n | tail -1 || true)
bytes=${line% *} ms=${line#* }
[ -n "$line" ] && [ "$bytes" -ge $((mib * 1048576)) ] ||
  { echo "the head's raylet logged no transfer of the object" >&2; exit 1; }
floor=$("$ray" _tcp_floor --bandwidth --seconds 2 | grep '^bytes_per_s=' | cut -d= -f2)
rate=$(echo "$bytes / ($ms / 1000)" | bc -l)
printf 'object: %s MiB, made on host 10.78.0.2, read intact on host 10.78.0.1 (job %.1f s)\n' "$mib" "$job_s"
printf 'transfer: %s ms, %.2f GB/s\n' "$ms" "$(echo "$rate / 1000000000" | bc -l)"
printf 'loopback tcp floor: %.2f GB/s\n' "$(echo "$floor / 1000000000" | bc -l)"
printf 'transfer / floor: %.2f\n' "$(echo "$rate / $floor" | bc -l)"
