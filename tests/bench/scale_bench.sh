#!/usr/bin/env bash
# Many nodes on this machine: a head and NODES-1 more started with `ray start`, each with
# one CPU and a resource of its own ("node<i>"). Then one job (scale_plugin.so): TASKS
# trivial tasks, ACTORS actors created and called, and a BROADCAST_MIB object read on
# every node. Prints the rates, the time to start the nodes, the GCS's and the
# raylets' peak memory, and what an idle node costs (CPU of its raylet, and of the
# GCS, per second, with the cluster idle).
#
#   tests/bench/scale_bench.sh BUILD_DIR
#   env: NODES (default 32), TASKS (1000000), ACTORS (2000), BROADCAST_MIB (256),
#        IDLE_S (seconds the idle cost is measured over, 10), JOB_TIMEOUT_S (the job's
#        deadline, 1800)
#
# #18 asks for 10,000 actors and a 1 GiB broadcast to 32 nodes. On one machine each
# actor is a process (about 1 MiB of its own, and its threads count against pid_max),
# and every node keeps its own copy of the broadcast object in this machine's
# /dev/shm: the defaults are what a 2-core, 24 GiB machine holds.
set -euo pipefail
build=${1:?usage: scale_bench.sh BUILD_DIR}
nodes=${NODES:-32}
tasks=${TASKS:-1000000}
actors=${ACTORS:-2000}
mib=${BROADCAST_MIB:-256}
idle_s=${IDLE_S:-10}
ray="$build/cli/ray"
work=$(mktemp -d /tmp/scale.XXXXXX)
stop() {
  for ((i = nodes - 1; i >= 0; i--)); do
    "$ray" stop --temp-dir "$work/n$i" >/dev/null 2>&1 || true
  done
  rm -rf "$work"
}
trap stop EXIT

start=$(date +%s.%N)
"$ray" start --head --port 0 --num-cpus 1 --resources '{"node0": 1}' \
  --object-store-memory $((2 * mib * 1048576 + 268435456)) --temp-dir "$work/n0" >"$work/n0.log"
address=$("$ray" status --json --temp-dir "$work/n0" | jq -r .address)
export RAY_CLUSTER_TOKEN_FILE="$work/n0/session_latest/token"
for ((i = 1; i < nodes; i++)); do
  "$ray" start --address "$address" --num-cpus 1 --resources "{\"node$i\": 1}" \
    --object-store-memory $((2 * mib * 1048576 + 268435456)) --temp-dir "$work/n$i" >"$work/n$i.log"
done
alive=0
for _ in $(seq 1 300); do
  alive=$("$ray" status --json --temp-dir "$work/n0" | jq '[.nodes[] | select(.state == "ALIVE")] | length')
  [ "$alive" -ge "$nodes" ] && break
  sleep 0.1
done
[ "$alive" -ge "$nodes" ] || { echo "only $alive of $nodes nodes came up" >&2; exit 1; }
echo "nodes=$nodes"
echo "start_all_s=$(echo "$(date +%s.%N) - $start" | bc -l | xargs printf '%.1f')"

# What an idle cluster costs: CPU seconds of each raylet and of the GCS over IDLE_S.
pids_of() { pgrep -f -- "$1" | tr '\n' ' '; }
cpu_ticks() { local t=0; for p in $1; do t=$((t + $(awk '{print $14 + $15}' "/proc/$p/stat"))); done; echo $t; }
raylets=$(pids_of "ray _raylet --session-dir $work/")
gcs=$(pids_of "ray _gcs --session-dir $work/")
r0=$(cpu_ticks "$raylets"); g0=$(cpu_ticks "$gcs")
sleep "$idle_s"
r1=$(cpu_ticks "$raylets"); g1=$(cpu_ticks "$gcs")
hz=$(getconf CLK_TCK)
echo "idle_raylet_cpu_ms_per_s=$(echo "1000 * ($r1 - $r0) / $hz / $idle_s / $nodes" | bc -l | xargs printf '%.2f')"
echo "idle_gcs_cpu_ms_per_s=$(echo "1000 * ($g1 - $g0) / $hz / $idle_s" | bc -l | xargs printf '%.2f')"

timeout "${JOB_TIMEOUT_S:-1800}" "$ray" submit --address "$address" --temp-dir "$work/n0" \
  "$build/tests/bench/scale_plugin.so" "$nodes" "$tasks" "$actors" "$mib" 2>"$work/job.err" ||
  { echo "the job failed or passed JOB_TIMEOUT_S (the last line above is the last phase it finished):" >&2
    tail -20 "$work/job.err" >&2; exit 1; }

peak_kib() { local m=0; for p in $1; do v=$(awk '/VmHWM/ {print $2}' "/proc/$p/status"); [ "$v" -gt "$m" ] && m=$v; done; echo $m; }
sum_kib() { local s=0; for p in $1; do s=$((s + $(awk '/VmHWM/ {print $2}' "/proc/$p/status"))); done; echo $s; }
echo "gcs_peak_mib=$(( $(peak_kib "$gcs") / 1024 ))"
echo "raylet_peak_mib_max=$(( $(peak_kib "$raylets") / 1024 ))"
echo "raylet_peak_mib_sum=$(( $(sum_kib "$raylets") / 1024 ))"
