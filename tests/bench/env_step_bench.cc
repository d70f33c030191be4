// CartPole stepping throughput: one env through the Env interface (with its TimeLimit,
// as MakeEnv builds it), and a VectorEnv of 16 with auto-reset. Reports steps/s
// (items_per_second). Not a test: run ./env_step_bench.

#include <benchmark/benchmark.h>

#include "runtime/rllib/env/env_registry.h"
#include "runtime/rllib/env/vector_env.h"

namespace ray::rllib {
namespace {

void BM_CartPoleSingleEnv(benchmark::State& state) {
  std::unique_ptr<Env> env = std::move(MakeEnv("CartPole-v1")).value();
  env->Reset(0);
  uint64_t lcg = 1;
  for (auto _ : state) {
    lcg = lcg * 6364136223846793005ULL + 1442695040888963407ULL;
    StepResult r = env->Step(Action::OfIndex(static_cast<int64_t>(lcg >> 63)));
    if (r.terminated || r.truncated) env->Reset(std::nullopt);
    benchmark::DoNotOptimize(r);
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_CartPoleSingleEnv);

void BM_CartPoleVectorEnv(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  std::unique_ptr<VectorEnv> vec = std::move(VectorEnv::Make("CartPole-v1", n)).value();
  vec->VectorReset(0);
  std::vector<Action> actions(n);
  VectorStepResult result;
  uint64_t lcg = 1;
  for (auto _ : state) {
    for (Action& a : actions) {
      lcg = lcg * 6364136223846793005ULL + 1442695040888963407ULL;
      a.index = static_cast<int64_t>(lcg >> 63);
    }
    vec->VectorStep(actions, &result);
    benchmark::DoNotOptimize(result.obs.data());
  }
  state.SetItemsProcessed(state.iterations() * n);  // env steps
}
BENCHMARK(BM_CartPoleVectorEnv)->Arg(16);

}  // namespace
}  // namespace ray::rllib

BENCHMARK_MAIN();
