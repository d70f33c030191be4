#!/usr/bin/env bash
# Learning benchmark: runs a tuned example (RLlib YAML) once per seed through the real
# `rllib train -f`, and prints, per seed, whether it reached the YAML's
# episode_reward_mean stop value, the env steps and training iterations it took, the
# trainer's time_total_s and the command's wall time.
#
#   tests/bench/rllib_learning_bench.sh BUILD_DIR YAML [SEED...]   (seeds default: 1 2 3)
#
# The YAML's `seed:` line is replaced for each run; results go to a temp dir.
set -euo pipefail
build=${1:?usage: rllib_learning_bench.sh BUILD_DIR YAML [SEED...]}
yaml=${2:?usage: rllib_learning_bench.sh BUILD_DIR YAML [SEED...]}
shift 2
seeds=("$@")
[ ${#seeds[@]} -eq 0 ] && seeds=(1 2 3)
grep -q '^ *seed:' "$yaml" || { echo "$yaml has no 'seed:' line to vary" >&2; exit 2; }
target=$(sed -n 's/^ *episode_reward_mean: *\([-0-9.]*\).*/\1/p' "$yaml" | head -1)
work=$(mktemp -d /tmp/rllib_learning_bench.XXXXXX)
trap 'rm -rf "$work"' EXIT
printf '%-5s %-7s %10s %6s %9s %9s %s\n' seed solved steps iters train_s wall_s final_reward
for s in "${seeds[@]}"; do
  sed "s/^\( *\)seed:.*/\1seed: $s/" "$yaml" >"$work/exp.yaml"
  start=$(date +%s.%N)
  "$build/cli/rllib" train -f "$work/exp.yaml" --local-dir "$work/results_$s" \
      --temp-dir "$work/tmp_$s" >"$work/out_$s" 2>&1 || { echo "seed $s failed:"; tail -20 "$work/out_$s"; }
  end=$(date +%s.%N)
  result=$(find "$work/results_$s" -name result.json | head -1)
  tail -1 "$result" | jq -r --arg s "$s" --argjson target "$target" --argjson wall "$(echo "$end - $start" | bc)" \
    '[$s, (.episode_reward_mean != null and .episode_reward_mean >= $target), .timesteps_total,
      .training_iteration, (.time_total_s * 10 | round / 10), ($wall * 10 | round / 10),
      ((.episode_reward_mean // 0) * 10 | round / 10)] | @tsv' |
    awk -F'\t' '{printf "%-5s %-7s %10s %6s %9s %9s %s\n", $1, $2, $3, $4, $5, $6, $7}'
done
