#!/usr/bin/env bash
# Learning benchmark: runs a tuned example (RLlib YAML) once per seed through the real
# `rllib train -f`, and prints, per seed, whether it reached the YAML's
# episode_reward_mean stop value (or evaluation/episode_reward_mean's: the greedy
# evaluation's), the env steps and training iterations it took, the trainer's
# time_total_s and the command's wall time.
#
#   tests/bench/rllib_learning_bench.sh BUILD_DIR YAML [SEED...]   (seeds default: 1 2 3)
#
# The YAML's `seed:` line is replaced for each run; results go to a temp dir. With
# EVAL_EPISODES=N (and `checkpoint_at_end: true` in the YAML) the final checkpoint is
# also rolled out greedily (`rllib rollout`) for N episodes and their mean return
# printed as eval_mean.
set -euo pipefail
build=${1:?usage: rllib_learning_bench.sh BUILD_DIR YAML [SEED...]}
yaml=${2:?usage: rllib_learning_bench.sh BUILD_DIR YAML [SEED...]}
shift 2
seeds=("$@")
[ ${#seeds[@]} -eq 0 ] && seeds=(1 2 3)
grep -q '^ *seed:' "$yaml" || { echo "$yaml has no 'seed:' line to vary" >&2; exit 2; }
# The stop's reward key and value: "episode_reward_mean" or "evaluation/episode_reward_mean".
stop_key=$(sed -n 's/^ *\(\(evaluation\/\)\{0,1\}episode_reward_mean\): *[-0-9.]*.*/\1/p' "$yaml" | head -1)
target=$(sed -n 's/^ *\(evaluation\/\)\{0,1\}episode_reward_mean: *\([-0-9.]*\).*/\2/p' "$yaml" | head -1)
jq_path=".$(echo "$stop_key" | sed 's/\//./')"
work=$(mktemp -d /tmp/rllib_learning_bench.XXXXXX)
trap 'rm -rf "$work"' EXIT
# The greedy mean return of the trial's last checkpoint over EVAL_EPISODES episodes ("-": off).
eval_mean() {
  [ -n "${EVAL_EPISODES:-}" ] || { echo -; return; }
  local trial run env ckpt
  trial=$(dirname "$1")
  ckpt=$(ls -d "$trial"/checkpoint_* 2>/dev/null | sort -t_ -k2 -n | tail -1)
  [ -n "$ckpt" ] || { echo "no-checkpoint"; return; }
  run=$(sed -n 's/^ *run: *\([A-Za-z0-9_]*\).*/\1/p' "$yaml" | head -1)
  env=$(sed -n 's/^ *env: *\([A-Za-z0-9_-]*\).*/\1/p' "$yaml" | head -1)
  "$build/cli/rllib" rollout "$ckpt" --run "$run" --env "$env" --episodes "$EVAL_EPISODES" \
      --temp-dir "$work/rollout_tmp" 2>/dev/null | sed -n 's/.*episodes, mean reward \([-0-9.]*\).*/\1/p'
}
printf '%-5s %-7s %10s %6s %9s %9s %12s %s\n' seed solved steps iters train_s wall_s final_reward eval_mean
for s in "${seeds[@]}"; do
  sed "s/^\( *\)seed:.*/\1seed: $s/" "$yaml" >"$work/exp.yaml"
  start=$(date +%s.%N)
  "$build/cli/rllib" train -f "$work/exp.yaml" --local-dir "$work/results_$s" \
      --temp-dir "$work/tmp_$s" >"$work/out_$s" 2>&1 || { echo "seed $s failed:"; tail -20 "$work/out_$s"; }
  end=$(date +%s.%N)
  result=$(find "$work/results_$s" -name result.json | head -1)
  tail -1 "$result" | jq -r --arg s "$s" --argjson target "$target" --argjson wall "$(echo "$end - $start" | bc)" \
    "[\$s, ($jq_path != null and $jq_path >= \$target), .timesteps_total,
      .training_iteration, (.time_total_s * 10 | round / 10), (\$wall * 10 | round / 10),
      (($jq_path // 0) * 10 | round / 10)] | @tsv" |
    awk -F'\t' -v ev="$(eval_mean "$result")" '{printf "%-5s %-7s %10s %6s %9s %9s %12s %s\n", $1, $2, $3, $4, $5, $6, $7, ev}'
done
