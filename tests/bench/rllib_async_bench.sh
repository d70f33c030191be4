#!/usr/bin/env bash
# Throughput of the asynchronous optimizers, through the real `rllib train`:
#   * A3C (AsyncGradientsOptimizer): gradients applied per second with 1, 2 and 4
#     rollout workers on CartPole-v1 whose steps are made costlier with env_config
#     step_cost_us (CPU burnt per env step, default 500 us), 10-step fragments, so one
#     gradient is 10 env steps;
#   * IMPALA (AsyncSamplesOptimizer): env steps sampled per second with 2 rollout
#     workers on plain CartPole-v1, with RLlib's defaults (fragments of 50 steps, 1 env
#     per worker, [256, 256] network), with batched inference (64 envs per worker,
#     fragments of 64 steps, a [64, 64] network, train batches of 16384), and with more
#     envs and a cheaper learner (256 envs per worker, [64, 64] relu, batches of 32768,
#     lr 1e-3 and no entropy bonus, with which it learns).
# Each figure is the mean over training iterations 2..ITERS (the first warms up) of
# timesteps_this_iter / time_this_iter_s.
#
#   tests/bench/rllib_async_bench.sh BUILD_DIR     (env: STEP_COST_US, ITERS, WORKERS)
set -euo pipefail
build=${1:?usage: rllib_async_bench.sh BUILD_DIR}
cost=${STEP_COST_US:-500}
iters=${ITERS:-4}
workers=${WORKERS:-1 2 4}
work=$(mktemp -d /tmp/rllib_async_bench.XXXXXX)
trap 'rm -rf "$work"' EXIT

# Trains `run` with `config` for $iters iterations on a local cluster of `cpus` CPUs;
# prints the mean env steps per second over iterations 2..n.
steps_per_s() {
  local name=$1 run=$2 config=$3 cpus=$4
  "$build/cli/rllib" train --run "$run" --env CartPole-v1 --experiment-name "$name" \
      --local-dir "$work/results" --temp-dir "$work/tmp" --num-cpus "$cpus" \
      --config "$config" --stop "{\"training_iteration\": $iters}" >"$work/$name.log" 2>&1 ||
    { echo "$name failed:" >&2; tail -20 "$work/$name.log" >&2; exit 1; }
  jq -s '[.[] | select(.training_iteration > 1) | .timesteps_this_iter / .time_this_iter_s]
         | add / length' "$(find "$work/results/$name" -name result.json | head -1)"
}

echo "A3C on CartPole-v1, step_cost_us $cost, sample_batch_size 10, grads_per_step 100"
printf '%-8s %14s %14s\n' workers env_steps/s gradients/s
for w in $workers; do
  rate=$(steps_per_s "a3c_$w" A3C "{\"num_workers\": $w, \"sample_batch_size\": 10, \
\"min_iter_time_s\": 3, \"env_config\": {\"step_cost_us\": $cost}}" $((w + 1)))
  printf '%-8s %14.0f %14.1f\n' "$w" "$rate" "$(echo "$rate / 10" | bc -l)"
done

echo
echo "IMPALA on CartPole-v1, 2 workers"
printf '%-44s %14s\n' configuration env_steps/s
rate=$(steps_per_s impala_defaults IMPALA '{"num_workers": 2, "min_iter_time_s": 3}' 3)
printf '%-44s %14.0f\n' "RLlib's defaults (1 env, fragments of 50)" "$rate"
rate=$(steps_per_s impala_batched IMPALA '{"num_workers": 2, "num_envs_per_worker": 64,
"sample_batch_size": 64, "train_batch_size": 16384, "min_iter_time_s": 3,
"model": {"fcnet_hiddens": [64, 64]}}' 3)
printf '%-44s %14.0f\n' "64 envs per worker, [64, 64], batches of 16384" "$rate"
rate=$(steps_per_s impala_relu IMPALA '{"num_workers": 2, "num_envs_per_worker": 256,
"sample_batch_size": 64, "train_batch_size": 32768, "min_iter_time_s": 3, "lr": 0.001,
"entropy_coeff": 0.0, "model": {"fcnet_hiddens": [64, 64], "fcnet_activation": "relu"}}' 3)
printf '%-44s %14.0f\n' "256 envs per worker, [64, 64] relu, 32768" "$rate"
