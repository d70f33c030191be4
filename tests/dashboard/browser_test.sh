#!/usr/bin/env bash
# The dashboard in a real browser: starts a head with a dashboard and a second node,
# runs a job on each that prints into a worker log, a small Tune run, and a job that stays running (actors,
# objects), then drives headless chromium through every page (browser_test.mjs).
# Exits 77 (ctest: skipped) with the reason printed when node, chromium or
# playwright-core is missing.
# Usage: browser_test.sh RAY STATE_PLUGIN WEBUI_PLUGIN TRAINABLES NODE_MODULES SCREENSHOT_DIR
set -euo pipefail
ray=$1 state_plugin=$2 webui_plugin=$3 trainables=$4 modules=$5 shots=$6
here=$(cd "$(dirname "$0")" && pwd)

skip() { echo "SKIPPED: $*"; exit 77; }
command -v node >/dev/null || skip "node is not installed (Debian: nodejs)"
[ -x /usr/bin/chromium ] || skip "/usr/bin/chromium is missing (Debian package chromium, see scripts/setup.sh)"
[ -d "$modules/playwright-core" ] || skip "playwright-core is not in $modules (npm was missing at build time)"

tmp=$(mktemp -d /tmp/ray-dashboard-browser-XXXXXX)
job_pid=""
cleanup() {
  touch "$tmp/sync/release" 2>/dev/null || true
  "$ray" stop --temp-dir "$tmp/node2" >/dev/null 2>&1 || true
  "$ray" stop --temp-dir "$tmp/cluster" >/dev/null 2>&1 || true
  if [ -n "$job_pid" ]; then kill "$job_pid" 2>/dev/null || true; wait "$job_pid" 2>/dev/null || true; fi
  rm -rf "$tmp"
}
trap cleanup EXIT

TUNE_RESULT_DIR="$tmp/results" timeout 60 "$ray" start --head --port 0 --dashboard-port 0 \
  --num-cpus 2 --temp-dir "$tmp/cluster" >"$tmp/start.out"
link=$(grep -o 'http://127\.0\.0\.1:[0-9]*/?token=[0-9a-f]*' "$tmp/start.out") ||
  { cat "$tmp/start.out"; echo "FAILED: ray start printed no dashboard link"; exit 1; }
base=${link%%/\?token=*}
token=${link##*token=}
address=$("$ray" status --json --temp-dir "$tmp/cluster" | grep -o '"address": "[^"]*:[0-9]*"' | head -1 | cut -d'"' -f4)

timeout 60 "$ray" submit --address "$address" --token "$token" --temp-dir "$tmp/cluster" "$webui_plugin" hello-logs >/dev/null
# A second node, whose worker's log the logs page reaches through its raylet.
timeout 60 "$ray" start --address "$address" --token "$token" --num-cpus 1 --resources '{"side": 1}' \
  --temp-dir "$tmp/node2" >/dev/null
timeout 60 "$ray" submit --address "$address" --token "$token" --temp-dir "$tmp/cluster" "$webui_plugin" on-the-side side >/dev/null
timeout 90 "$ray" tune run "$trainables" --address "$address" --token "$token" \
  --local-dir "$tmp/results" --run quadratic --name browser \
  --config '{"x": {"grid_search": [1, 3]}}' --stop '{"training_iteration": 4}' \
  --metric loss --mode min >"$tmp/tune.out" || { cat "$tmp/tune.out"; exit 1; }
mkdir -p "$tmp/sync"
timeout 90 "$ray" submit --address "$address" --token "$token" --temp-dir "$tmp/cluster" "$state_plugin" state \
  "$tmp/sync" >"$tmp/job.out" 2>&1 &
job_pid=$!
for _ in $(seq 300); do [ -s "$tmp/sync/out.txt" ] && break; sleep 0.1; done
[ -s "$tmp/sync/out.txt" ] || { cat "$tmp/job.out"; echo "FAILED: the running job did not start in 30 s"; exit 1; }

mkdir -p "$shots"
NODE_MODULES="$modules" timeout 60 node "$here/browser_test.mjs" "$base" "$token" "$shots" \
  "$tmp/chromium-profile"
