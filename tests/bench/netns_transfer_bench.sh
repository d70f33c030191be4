#!/usr/bin/env bash
# An object moved between two hosts (netns_hosts.sh: network namespaces, each host
# with its own /dev/shm and /tmp), a head on one and a node with resource "Special"
# on the other. The job (the multinode test plugin's `gib` case, run on the head's
# host) makes a 1 GiB object on the other host and reads it on the head's, checking
# every byte. Prints the transfer's time as the receiving raylet logs it, its rate,
# and the loopback tcp bandwidth floor of the same run (`ray _tcp_floor --bandwidth`:
# 8 MiB messages one way between two processes), which #18's target compares it with.
#
#   tests/bench/netns_transfer_bench.sh BUILD_DIR
#
# Needs root, iproute2 and util-linux (nsenter, unshare); leaves nothing behind.
set -euo pipefail
build=$(cd "${1:?usage: netns_transfer_bench.sh BUILD_DIR}" && pwd)
ray="$build/cli/ray"
plugin="$build/tests/integration/it_multinode_plugin.so"
[ "$(id -u)" = 0 ] || { echo "needs root (network and mount namespaces)" >&2; exit 2; }
[ -x "$ray" ] && [ -f "$plugin" ] || { echo "build $ray and $plugin first" >&2; exit 2; }
source "$(dirname "$0")/netns_hosts.sh"
# Not under /tmp: each host mounts its own /tmp. A short path (worker sockets).
work=$(mktemp -d /var/tmp/nx.XXXXXX)
cleanup() {
  "$ray" stop --temp-dir "$work/b" >/dev/null 2>&1 || true
  "$ray" stop --temp-dir "$work/a" >/dev/null 2>&1 || true
  hosts_down
  rm -rf "$work"
}
trap cleanup EXIT

mib=1024
hosts_up 2 10.78.0 $((2 * mib + 512))
store_bytes=$(( (mib + 256) * 1048576 ))
on 1 "$ray" start --head --node-ip-address 10.78.0.1 --port 6391 --num-cpus 1 \
  --object-store-memory "$store_bytes" --temp-dir "$work/a" >"$work/a.log"
token=$(cat "$work/a/session_latest/token")
on 2 "$ray" start --address 10.78.0.1:6391 --token "$token" --node-ip-address 10.78.0.2 \
  --num-cpus 1 --resources '{"Special": 1}' --object-store-memory "$store_bytes" \
  --temp-dir "$work/b" >"$work/b.log"

start=$(date +%s.%N)
out=$(on 1 "$ray" submit --address 10.78.0.1:6391 --temp-dir "$work/a" "$plugin" gib 2>"$work/job.err") ||
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
