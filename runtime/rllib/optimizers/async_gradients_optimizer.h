#pragma once
// AsyncGradientsOptimizer: RLlib 0.7's AsyncGradientsOptimizer(workers,
// grads_per_step=100) (seed 004, catalog RL-110), used by A3C. It pulls gradients from
// the remote rollout workers as they finish and applies them to the learning policy,
// sending each worker fresh weights before its next gradient. One Step():
//   1. the learner's weights are put into the object store once; every remote worker
//      gets set_weights(that ref) and compute_gradients(sample()) (the sample's ref
//      goes straight into compute_gradients on the same worker);
//   2. until no gradient is pending: wait for one (ray::Wait, num_returns 1), fetch it,
//      keep its learner stats, apply it to the learning policy (if it is not empty),
//      count its rows (RLlib's info["batch_count"]) as sampled and trained; if fewer
//      than grads_per_step gradients were requested in this step, send that same
//      worker set_weights(the learner's current weights) and compute_gradients(sample())
//      again.
// So a step applies max(grads_per_step, number of remote workers) gradients. Stats:
// num_steps_sampled, num_steps_trained, wait/apply/dispatch timers. Before applying a
// gradient the learning policy is told the global timestep (env steps sampled so far;
// its lr_schedule reads it).
//
// Errors: no remote worker is std::invalid_argument ("requires at least 1 remote
// workers", RLlib's ValueError); a worker's failure is raised by the step (its
// original ray exception) unless the group has ignore_worker_failures or
// recreate_failed_workers: then the worker is marked unhealthy and the group's
// ProbeUnhealthyWorkers runs at once (recreating lost workers when asked to); the
// step goes on with the healthy ones, a restored worker getting a request while
// fewer than grads_per_step were made, and fails only when none is left. No
// gradient within `wait_timeout` is std::runtime_error naming the optimizer and the
// wait. Header-only (ray API, for plugins); not
// thread-safe.
//
// `Worker` is an actor class with
//   void SetWeights(std::vector<float> weights);
//   SampleResult SampleCurrent();                   // RLlib's sample()
//   WorkerGradients ComputeGradients(SampleResult);  // RLlib's compute_gradients()

#include <ray/api.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

#include "runtime/rllib/execution/env_runner_group.h"
#include "runtime/rllib/optimizers/policy_optimizer.h"
#include "runtime/rllib/rollout_worker.h"

namespace ray::rllib {

// A worker's gradient and the episodes that ended while it sampled for it.
struct WorkerGradients {
  Gradients gradients;  // num_rows: RLlib's info["batch_count"]
  std::vector<double> episode_returns;
  std::vector<int64_t> episode_lengths;
  std::vector<std::map<std::string, double>> episode_custom_metrics;
  MSGPACK_DEFINE_ARRAY(gradients, episode_returns, episode_lengths, episode_custom_metrics);
};

struct AsyncGradientsOptions {
  int grads_per_step = 100;  // gradients requested (and applied) per Step(), >= 1
  // The longest one wait for the next gradient may take before the step fails.
  std::chrono::milliseconds wait_timeout{std::chrono::minutes(10)};
};

template <typename Worker>
class AsyncGradientsOptimizer : public PolicyOptimizer {
 public:
  using Options = AsyncGradientsOptions;
  using Handle = ActorHandle<Worker>;

  AsyncGradientsOptimizer(EnvRunnerGroup<Worker>* workers, Policy* learner, Options options)
      : workers_(workers), learner_(learner), options_(options) {
    if (workers_->num_remote_workers() == 0) {
      throw std::invalid_argument(
          "Async optimizer requires at least 1 remote workers (num_workers >= 1)");
    }
    if (options_.grads_per_step < 1) {
      throw std::invalid_argument("config key 'optimizer.grads_per_step' must be >= 1");
    }
    for (const char* t : {"wait", "apply", "dispatch"}) stats_.timers[t];
  }

  OptimizerStep Step() override {
    OptimizerStep out;
    std::vector<Pending> pending;
    int num_gradients = 0;
    auto dispatch = [&](int id, const auto& weights) {
      Handle h = *workers_->remote_worker(id);
      h.Task(&Worker::SetWeights).Remote(weights);
      pending.push_back({Request(h), h, id});
      ++num_gradients;
    };
    {
      TimerStat::Scope t(&stats_.timers["dispatch"]);
      ObjectRef<std::vector<float>> weights = ray::Put(learner_->GetWeights());
      for (int id : workers_->HealthyWorkerIds()) dispatch(id, weights);
    }
    if (pending.empty())
      throw std::runtime_error("AsyncGradientsOptimizer: no healthy remote worker");
    while (!pending.empty()) {
      size_t k = WaitForOne(pending);
      Pending done = std::move(pending[k]);
      pending.erase(pending.begin() + static_cast<std::ptrdiff_t>(k));
      CallResult<WorkerGradients> got = internal::Fetch(done.ref);
      if (!got.ok()) {
        workers_->ReportFailure(done.worker_id, *got.error);  // raises unless tolerated
        for (int id : workers_->RestoreWorkers()) {
          if (num_gradients < options_.grads_per_step) dispatch(id, learner_->GetWeights());
        }
        if (pending.empty() && workers_->num_healthy_remote_workers() == 0) {
          throw std::runtime_error("AsyncGradientsOptimizer: no rollout worker is healthy, even after "
                                   "recreating them");
        }
        continue;
      }
      const WorkerGradients& g = *got.value;
      learner_stats_ = g.gradients.info;
      if (!g.gradients.grads.empty()) {
        TimerStat::Scope t(&stats_.timers["apply"]);
        learner_->OnGlobalVarUpdate(stats_.num_steps_sampled);
        learner_->ApplyGradients(g.gradients.grads);
      }
      stats_.num_steps_sampled += g.gradients.num_rows;
      stats_.num_steps_trained += g.gradients.num_rows;
      out.steps_sampled += g.gradients.num_rows;
      out.AddEpisodes(g);
      if (num_gradients < options_.grads_per_step) {
        TimerStat::Scope t(&stats_.timers["dispatch"]);
        dispatch(done.worker_id, learner_->GetWeights());
      }
    }
    ++stats_.values["num_steps"];
    stats_.values["num_gradients_last_step"] = num_gradients;
    out.learner = learner_stats_;
    return out;
  }

  const PolicyOptimizerStats& stats() const override { return stats_; }
  void RestoreCounters(int64_t sampled, int64_t trained) override {
    stats_.num_steps_sampled = sampled;
    stats_.num_steps_trained = trained;
  }

 private:
  // A gradient requested from a remote worker.
  struct Pending {
    ObjectRef<WorkerGradients> ref;
    Handle worker;
    int worker_id;
  };

  // compute_gradients(sample()) on `worker`, after whatever it was sent before.
  static ObjectRef<WorkerGradients> Request(const Handle& worker) {
    ObjectRef<SampleResult> sample = worker.Task(&Worker::SampleCurrent).Remote();
    return worker.Task(&Worker::ComputeGradients).Remote(sample);
  }

  // The index of a finished request (ray.wait with num_returns=1).
  template <typename P>
  size_t WaitForOne(const std::vector<P>& pending) {
    TimerStat::Scope t(&stats_.timers["wait"]);
    std::vector<ObjectRef<WorkerGradients>> refs;
    for (const P& p : pending) refs.push_back(p.ref);
    WaitResult<WorkerGradients> w = ray::Wait(refs, 1, options_.wait_timeout.count());
    if (w.ready.empty()) {
      throw std::runtime_error("AsyncGradientsOptimizer: waiting for a gradient from " +
                               std::to_string(pending.size()) + " workers timed out after " +
                               std::to_string(options_.wait_timeout.count()) + " ms");
    }
    for (size_t k = 0; k < refs.size(); ++k) {
      if (refs[k] == w.ready.front()) return k;
    }
    throw std::logic_error("AsyncGradientsOptimizer: ray::Wait returned a ref it was not given");
  }

  EnvRunnerGroup<Worker>* workers_;
  Policy* learner_;
  Options options_;
  PolicyOptimizerStats stats_;
  LearnerStats learner_stats_;
};

}  // namespace ray::rllib
