#!/usr/bin/env bash
# One object read on many hosts (netns_hosts.sh: network namespaces joined by a bridge,
# each host with its own /dev/shm and /tmp, and each sending at most RATE per second,
# as a machine's network link would): a head on the first, a node with resource
# "node<i>" on each other. The job (scale_plugin.so's broadcast) puts a MIB-sized
# object on the head, reads it on host 2 alone (one transfer), then on every other
# host at once. Prints both times and their ratio (#18: at most 3).
#
#   tests/bench/netns_broadcast_bench.sh BUILD_DIR
#   env: HOSTS (default 8), MIB (256), RATE (tc syntax, default 1gbit)
#
# Needs root, iproute2 and util-linux (nsenter, unshare); leaves nothing behind.
set -euo pipefail
build=$(cd "${1:?usage: netns_broadcast_bench.sh BUILD_DIR}" && pwd)
hosts=${HOSTS:-8}
mib=${MIB:-256}
rate=${RATE:-1gbit}
ray="$build/cli/ray"
plugin="$build/tests/bench/scale_plugin.so"
[ "$(id -u)" = 0 ] || { echo "needs root (network and mount namespaces)" >&2; exit 2; }
[ -x "$ray" ] && [ -f "$plugin" ] || { echo "build $ray and $plugin first" >&2; exit 2; }
[ "$hosts" -ge 3 ] || { echo "HOSTS must be 3 or more" >&2; exit 2; }
source "$(dirname "$0")/netns_hosts.sh"
work=$(mktemp -d /var/tmp/nb.XXXXXX)  # (not under /tmp: each host mounts its own)
cleanup() {
  for ((i = hosts; i >= 1; i--)); do "$ray" stop --temp-dir "$work/h$i" >/dev/null 2>&1 || true; done
  hosts_down
  rm -rf "$work"
}
trap cleanup EXIT

hosts_up "$hosts" 10.79.0 $((2 * mib + 256)) "$rate"
store_bytes=$(( (2 * mib + 128) * 1048576 ))
on 1 "$ray" start --head --node-ip-address 10.79.0.1 --port 6392 --num-cpus 1 \
  --resources '{"node0": 1}' --object-store-memory "$store_bytes" --temp-dir "$work/h1" >"$work/h1.log"
token=$(cat "$work/h1/session_latest/token")
for ((i = 2; i <= hosts; i++)); do
  on "$i" "$ray" start --address 10.79.0.1:6392 --token "$token" --node-ip-address "10.79.0.$i" \
    --num-cpus 1 --resources "{\"node$((i - 1))\": 1}" --object-store-memory "$store_bytes" \
    --temp-dir "$work/h$i" >"$work/h$i.log"
done
out=$(on 1 "$ray" submit --address 10.79.0.1:6392 --temp-dir "$work/h1" "$plugin" "$hosts" 0 0 "$mib" \
  2>"$work/job.err") || { echo "the job failed:" >&2; tail -20 "$work/job.err" >&2; exit 1; }
value() { echo "$out" | grep "^$1=" | cut -d= -f2; }
one=$(value broadcast_one_s) all=$(value broadcast_all_s)
# Where each host's copy came from: the head, or another host that had it.
from_head=0 from_peer=0
head_id=$(sed -n 's/.*raylet \([0-9a-f]*\) serving.*/\1/p' "$work/h1/session_latest/logs/raylet.err" | head -1)
for ((i = 3; i <= hosts; i++)); do
  src=$(grep -h "received object .*($((mib * 1048576 + 5)) bytes)" "$work/h$i/session_latest/logs/raylet.err" |
    sed -n 's/.*from node \([0-9a-f]*\) in.*/\1/p' | tail -1 || true)
  if [ "$src" = "$head_id" ]; then from_head=$((from_head + 1)); elif [ -n "$src" ]; then from_peer=$((from_peer + 1)); fi
done
printf 'hosts: %s, each sending at most %s\n' "$hosts" "$rate"
printf 'object: %s MiB; one host: %s s; %s hosts at once: %s s (%.1f x one)\n' \
  "$mib" "$one" "$((hosts - 2))" "$all" "$(echo "$all / $one" | bc -l)"
printf 'copies from the head: %s, from other hosts: %s\n' "$from_head" "$from_peer"
