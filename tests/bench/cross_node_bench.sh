#!/usr/bin/env bash
# Tasks and actor calls to another node beside the same on the driver's node, in one
# run: a head (the driver's node) and a second node started with `ray start` on this
# machine, the second holding the only "Remote" resource that pins work to it. Prints
# Ray's bodies' rates (single_client_tasks_sync/async, 1_1_actor_calls_sync/async),
# local and remote, and the sync ones as a fraction of the loopback tcp round-trip
# floor (`ray _tcp_floor`).
#
#   tests/bench/cross_node_bench.sh BUILD_DIR   (env: SECONDS_EACH, each measurement's
#   length; BUSY_US, the length of each unpinned busy task, default 1000; BUSY_ONLY=1,
#   only the busy tasks: no leases held from the earlier measurements)
set -euo pipefail
build=${1:?usage: cross_node_bench.sh BUILD_DIR}
seconds=${SECONDS_EACH:-2}
busy_us=${BUSY_US:-1000}
ray="$build/cli/ray"
# (A short path: worker sockets are unix sockets under it, whose paths have a limit.)
work=$(mktemp -d /tmp/xnode.XXXXXX)
stop() {
  "$ray" stop --temp-dir "$work/node" >/dev/null 2>&1 || true
  "$ray" stop --temp-dir "$work/head" >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap stop EXIT

"$ray" start --head --port 0 --num-cpus 2 --temp-dir "$work/head" >"$work/head.log"
address=$("$ray" status --json --temp-dir "$work/head" | jq -r .address)
RAY_CLUSTER_TOKEN_FILE="$work/head/session_latest/token" \
  "$ray" start --address "$address" --num-cpus 2 --resources '{"Remote": 1}' \
  --temp-dir "$work/node" >"$work/node.log"
"$ray" submit --address "$address" --temp-dir "$work/head" \
  "$build/tests/bench/cross_node_plugin.so" Remote "$seconds" "$busy_us" >"$work/job.out" 2>"$work/job.err" ||
  { echo "the job failed:" >&2; tail -20 "$work/job.err" >&2; exit 1; }
out="$work/job.out"
value() { grep "^$1=" "$out" | tail -1 | cut -d= -f2; }
[ "$(value node_remote)" != "$(value driver_node)" ] ||
  { echo "the remote work ran on the driver's node" >&2; exit 1; }
if [ -n "${BUSY_ONLY:-}" ]; then
  printf 'busy_tasks_async (unpinned %s us tasks, 1,000 at a time): %s/s, %s of them on the other node\n' \
    "$busy_us" "$(value busy_tasks_async)" "$(value busy_tasks_elsewhere)"
  exit 0
fi
# The floor for sync work between nodes: raw ZeroMQ round trips over loopback tcp
# between two processes, measured in the same run.
floor=$("$ray" _tcp_floor --seconds "$seconds" | grep '^roundtrips_per_s=' | cut -d= -f2)
printf '%-18s %12s %12s %8s %10s\n' metric local/s remote/s remote% of_floor
for m in tasks_sync tasks_async actor_calls_sync actor_calls_async; do
  l=$(value "${m}_local"); r=$(value "${m}_remote")
  f=-
  case $m in *_sync) f=$(printf '%.2f' "$(echo "$r / $floor" | bc -l)") ;; esac
  printf '%-18s %12s %12s %7.0f%% %10s\n' "$m" "$l" "$r" "$(echo "100 * $r / $l" | bc -l)" "$f"
done
printf 'tcp round-trip floor: %s/s\n' "$floor"
printf 'busy_tasks_async (unpinned %s us tasks, 1,000 at a time): %s/s, %s of them on the other node\n' \
  "$busy_us" "$(value busy_tasks_async)" "$(value busy_tasks_elsewhere)"
