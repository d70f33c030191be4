#pragma once
// AsyncReplayOptimizer: RLlib 0.7's AsyncReplayOptimizer, the main loop of Ape-X
// (Horgan et al. 2018, "Distributed Prioritized Experience Replay"). Sampling,
// replay and learning overlap:
//   * construction: num_replay_buffer_shards ReplayShard actors (replay_shard.h, no
//     CPU held) of buffer_size / shards rows each; the learner's weights put once and
//     given to every remote worker with max_sample_requests_in_flight_per_worker
//     sample requests (with worker_side_prioritization the workers send each row's
//     TD error, which its shard makes its priority, |TD error| + eps); replay_queue_depth Replay()
//     requests per shard; a LearnerThread (learner_thread.h).
//   * Step(): waits until a sample or a replay finishes, then takes every finished one.
//     A sample's rows go to a shard drawn at random and are counted as sampled; once
//     a worker has sampled max_weight_sync_delay steps since its last weights, it gets
//     the learner's current ones (put again only if the learner changed them) and the
//     global timestep (its exploration schedule reads it). A
//     replay that is ready goes to the learner's queue, or is dropped when the queue is
//     full (num_samples_dropped). Unlike RLlib, which asks a shard again at once, a
//     finished replay request is made again only once learning_starts steps were
//     sampled and while the learner's queue has room (asking earlier gets "not
//     ready", asking when it is full gets a batch that is dropped). The TD errors
//     of the batches the learner trained on go back to their shards as priorities.
//     With training_intensity, a finished sample request is made again only while the
//     learner keeps up (see AsyncReplayOptions). Then, when num_steps_sampled -
//     last_target_update_ts exceeds
//     target_network_update_freq, the learner's target network is updated (Ape-X's
//     update_target_if_needed).
// Stats: num_steps_sampled, num_steps_trained, timers sample_processing,
// replay_processing, update_priorities, put_weights, and values learner_queue_size,
// learner_grad_time_ms, num_weight_syncs, num_samples_dropped, num_target_updates,
// last_target_update_ts.
//
// Errors: no remote worker is std::invalid_argument (RLlib's "num_workers=0 means
// training will hang"), so is a learner that is not a ReplayPolicy; a learner's
// failure is raised by the step, a worker's too unless tolerated
// (ignore_worker_failures, recreate_failed_workers: as AsyncSamplesOptimizer); a wait
// longer than wait_timeout is std::runtime_error naming what it waited for.
// Header-only (ray API, for plugins); Step() from one thread.
//
// `Worker` is an actor class with
//   void SetWeights(std::vector<float> weights);
//   bool SetGlobalTimestep(int64_t global_timestep);
//   SampleResult SampleCurrent();
//   SampleResult SampleWithTDErrors();  // each row's TD error in the weights column

#include <ray/api.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <map>
#include <memory>
#include <random>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <optional>
#include <vector>

#include "runtime/rllib/execution/call_result.h"
#include "runtime/rllib/execution/env_runner_group.h"
#include "runtime/rllib/optimizers/learner_thread.h"
#include "runtime/rllib/optimizers/policy_optimizer.h"
#include "runtime/rllib/optimizers/replay_shard.h"
#include "runtime/rllib/optimizers/sync_replay_optimizer.h"
#include "runtime/rllib/rollout_worker.h"

namespace ray::rllib {

struct AsyncReplayOptions {
  int num_replay_buffer_shards = 4;
  int64_t max_weight_sync_delay = 400;
  int64_t buffer_size = 2000000;
  int64_t learning_starts = 50000;
  int64_t train_batch_size = 512;
  double prioritized_replay_alpha = 0.6;
  double prioritized_replay_beta = 0.4;
  double prioritized_replay_eps = 1e-6;
  int64_t target_network_update_freq = 500000;
  bool worker_side_prioritization = true;
  // Ray's later training_intensity: sample requests are held back while
  // num_steps_trained < training_intensity * (num_steps_sampled - learning_starts)
  // (nullopt: never, RLlib 0.7's free-running samplers).
  std::optional<double> training_intensity;
  int max_sample_requests_in_flight_per_worker = 2;  // RLlib's SAMPLE_QUEUE_DEPTH
  int replay_queue_depth = 4;                        // RLlib's REPLAY_QUEUE_DEPTH
  int learner_queue_size = 16;                       // RLlib's LEARNER_QUEUE_MAX_SIZE
  uint64_t seed = 0;  // the shards' sampling and the choice of shard
  std::chrono::milliseconds wait_timeout{std::chrono::minutes(10)};
};

template <typename Worker>
class AsyncReplayOptimizer : public PolicyOptimizer {
 public:
  using Options = AsyncReplayOptions;
  using Handle = ActorHandle<Worker>;

  AsyncReplayOptimizer(EnvRunnerGroup<Worker>* workers, Policy* learner, Options options)
      : workers_(workers), options_(options), shard_choice_(options.seed) {
    workers_->RequireRemoteWorkers("AsyncReplayOptimizer");
    if (!dynamic_cast<ReplayPolicy*>(learner)) {
      throw std::invalid_argument("AsyncReplayOptimizer: the policy keeps no TD errors");
    }
    auto bad = [](const std::string& m) { throw std::invalid_argument("config key " + m); };
    const int shards = options_.num_replay_buffer_shards;
    if (shards < 1) bad("'optimizer.num_replay_buffer_shards' must be >= 1");
    if (options_.max_weight_sync_delay < 1) bad("'optimizer.max_weight_sync_delay' must be >= 1");
    if (options_.buffer_size < shards) bad("'buffer_size' must hold a row per replay shard");
    for (const char* t : {"sample_processing", "replay_processing", "update_priorities", "put_weights"}) {
      stats_.timers[t];
    }
    for (int i = 0; i < shards; ++i) {
      ReplayShardOptions o;
      o.capacity = options_.buffer_size / shards;
      o.learning_starts = options_.learning_starts / shards;
      o.train_batch_size = options_.train_batch_size;
      o.alpha = options_.prioritized_replay_alpha;
      o.beta = options_.prioritized_replay_beta;
      o.eps = options_.prioritized_replay_eps;
      o.seed = options_.seed * 1009 + i;
      shards_.push_back(ray::Actor(ReplayShard::Create).SetResource("CPU", 0).Remote(o));
    }
    learner_ = std::make_unique<LearnerThread>(learner, options_.learner_queue_size, /*num_sgd_iter=*/1);
    PutWeights();
    for (int id : workers_->HealthyWorkerIds()) Start(id);
    for (int s = 0; s < shards; ++s) {
      for (int k = 0; k < options_.replay_queue_depth; ++k) parked_.push_back(s);
    }
    RequestParkedReplays();
    Publish();
  }

  OptimizerStep Step() override {
    OptimizerStep out;
    WaitForAny();
    {
      TimerStat::Scope t(&stats_.timers["sample_processing"]);
      ProcessSamples(&out);
    }
    {
      TimerStat::Scope t(&stats_.timers["replay_processing"]);
      ProcessReplays();
    }
    int64_t trained = 0;
    {
      TimerStat::Scope t(&stats_.timers["update_priorities"]);
      for (LearnerThread::Replayed& r : learner_->TakeReplayed()) {
        trained += static_cast<int64_t>(r.indexes.size());
        shards_[r.shard].Task(&ReplayShard::UpdatePriorities).Remote(std::move(r.indexes), std::move(r.td_errors));
      }
    }
    stats_.num_steps_sampled += out.steps_sampled;
    stats_.num_steps_trained += trained;
    while (!held_.empty() && !Throttled(0)) {
      RequestSample(held_.back().first, held_.back().second);
      held_.pop_back();
    }
    if (stats_.num_steps_sampled - last_target_update_ts_ > options_.target_network_update_freq) {
      learner_->WithPolicy([](Policy& p) {
        dynamic_cast<ReplayPolicy&>(p).UpdateTarget();
        return 0;
      });
      last_target_update_ts_ = stats_.num_steps_sampled;
      ++num_target_updates_;
    }
    out.learner = learner_->learner_stats();
    Publish();
    return out;
  }

  const PolicyOptimizerStats& stats() const override { return stats_; }
  void RestoreCounters(int64_t sampled, int64_t trained) override {
    stats_.num_steps_sampled = sampled;
    stats_.num_steps_trained = trained;
    last_target_update_ts_ = sampled;
  }
  // Runs fn between learn steps; the workers' next weights are the policy's after it
  // (a restored checkpoint's).
  void WithLearnerPaused(const std::function<void()>& fn) override {
    learner_->WithPolicy([&](Policy&) {
      fn();
      return 0;
    });
    PutWeights();
  }

 private:
  struct PendingSample {
    ObjectRef<SampleResult> ref;
    Handle worker;
    int worker_id = 0;
  };
  struct PendingReplay {
    ObjectRef<ReplayedBatch> ref;
    int shard = 0;
  };

  void RequestSample(const Handle& worker, int id) {
    auto ref = options_.worker_side_prioritization ? worker.Task(&Worker::SampleWithTDErrors).Remote()
                                                   : worker.Task(&Worker::SampleCurrent).Remote();
    samples_.push_back({ref, worker, id});
  }
  // Whether sampling waits for the learner (training_intensity), `pending` steps not
  // yet counted as sampled.
  bool Throttled(int64_t pending) const {
    const int64_t learnable = stats_.num_steps_sampled + pending - options_.learning_starts;
    return options_.training_intensity && learnable > 0 &&
           static_cast<double>(stats_.num_steps_trained) < *options_.training_intensity * static_cast<double>(learnable);
  }

  void RequestReplay(int shard) { replays_.push_back({shards_[shard].Task(&ReplayShard::Replay).Remote(), shard}); }

  // Remote worker `id` gets the current weights and its sample requests.
  void Start(int id) {
    Handle h = *workers_->remote_worker(id);
    h.Task(&Worker::SetWeights).Remote(weights_);
    steps_since_update_[id] = 0;
    for (int i = 0; i < options_.max_sample_requests_in_flight_per_worker; ++i) RequestSample(h, id);
  }

  // The pending requests that are ready, taken out of `pending` in request order.
  template <typename Pending>
  static std::vector<Pending> TakeReady(std::vector<Pending>* pending) {
    using Ref = decltype(Pending{}.ref);
    std::vector<Ref> refs;
    for (const Pending& p : *pending) refs.push_back(p.ref);
    if (refs.empty()) return {};
    auto ready = ray::Wait(refs, refs.size(), 0).ready;
    std::vector<Pending> done, still;
    size_t next = 0;
    for (Pending& p : *pending) {
      const bool is_ready = next < ready.size() && p.ref == ready[next];
      next += is_ready;
      (is_ready ? done : still).push_back(std::move(p));
    }
    *pending = std::move(still);
    return done;
  }

  template <typename Pending>
  static bool AnyReady(const std::vector<Pending>& pending, int64_t timeout_ms) {
    using Ref = decltype(Pending{}.ref);
    std::vector<Ref> refs;
    for (const Pending& p : pending) refs.push_back(p.ref);
    return !refs.empty() && !ray::Wait(refs, 1, timeout_ms).ready.empty();
  }

  // Asks the parked shards for replays again once learning may start and the learner
  // has room (a shard asked before that only answers "not ready", and a replay the
  // full queue cannot take is dropped).
  void RequestParkedReplays() {
    if (stats_.num_steps_sampled < options_.learning_starts) return;
    while (!parked_.empty() && learner_->queue_size() < static_cast<size_t>(options_.learner_queue_size)) {
      RequestReplay(parked_.back());
      parked_.pop_back();
    }
  }

  // Blocks until a sample or a replay is ready (at most wait_timeout).
  void WaitForAny() {
    if (samples_.empty() && held_.empty()) {
      throw std::runtime_error("AsyncReplayOptimizer: no sample request is pending");
    }
    if (samples_.empty()) {  // sampling waits for the learner: look again soon
      if (learner_->num_learn_steps() != learn_steps_seen_) {
        learn_steps_seen_ = learner_->num_learn_steps();
        learner_waited_since_ = std::chrono::steady_clock::now();
      } else if (std::chrono::steady_clock::now() - learner_waited_since_ > options_.wait_timeout) {
        throw std::runtime_error("AsyncReplayOptimizer: the samplers waited " +
                                 std::to_string(options_.wait_timeout.count()) +
                                 " ms for the learner (training_intensity), which learned nothing meanwhile");
      }
      if (!AnyReady(replays_, 2)) std::this_thread::sleep_for(std::chrono::milliseconds(1));
      return;
    }
    const auto deadline = std::chrono::steady_clock::now() + options_.wait_timeout;
    while (!AnyReady(replays_, 0)) {
      if (AnyReady(samples_, replays_.empty() ? 100 : 2)) return;
      if (std::chrono::steady_clock::now() > deadline) {
        throw std::runtime_error("AsyncReplayOptimizer: waiting for a sample from " +
                                 std::to_string(samples_.size()) + " requests or a replay from " +
                                 std::to_string(replays_.size()) + " timed out after " +
                                 std::to_string(options_.wait_timeout.count()) + " ms");
      }
    }
  }

  void ProcessSamples(OptimizerStep* out) {
    std::set<int> failed;
    for (PendingSample& p : TakeReady(&samples_)) {
      if (failed.count(p.worker_id)) continue;
      CallResult<SampleResult> got = internal::Fetch(p.ref);
      if (!got.ok()) {
        workers_->ReportFailure(p.worker_id, *got.error);  // raises unless tolerated
        failed.insert(p.worker_id);
        std::erase_if(samples_, [&](const PendingSample& s) { return s.worker_id == p.worker_id; });
        continue;
      }
      SampleResult& r = *got.value;
      out->AddEpisodes(r);
      const int64_t rows = r.batch.size();
      out->steps_sampled += rows;
      std::uniform_int_distribution<size_t> pick(0, shards_.size() - 1);
      shards_[pick(shard_choice_)].Task(&ReplayShard::Add).Remote(std::move(r.batch));
      if ((steps_since_update_[p.worker_id] += rows) >= options_.max_weight_sync_delay) {
        if (learner_->TakeWeightsUpdated()) PutWeights();
        p.worker.Task(&Worker::SetWeights).Remote(weights_);
        p.worker.Task(&Worker::SetGlobalTimestep).Remote(stats_.num_steps_sampled + out->steps_sampled);
        ++num_weight_syncs_;
        steps_since_update_[p.worker_id] = 0;
      }
      if (Throttled(out->steps_sampled)) {
        held_.push_back({p.worker, p.worker_id});
      } else {
        RequestSample(p.worker, p.worker_id);
      }
    }
    if (!failed.empty()) {
      for (int id : workers_->RestoreWorkers()) Start(id);
      std::erase_if(held_, [&](const auto& h) { return failed.count(h.second) > 0; });
      if (samples_.empty() && held_.empty()) {
        throw std::runtime_error("AsyncReplayOptimizer: no rollout worker is healthy, even after recreating them");
      }
    }
  }

  void ProcessReplays() {
    for (PendingReplay& p : TakeReady(&replays_)) {
      CallResult<ReplayedBatch> got = internal::Fetch(p.ref);
      if (!got.ok()) got.error->Rethrow();  // a shard is lost: so is its memory
      parked_.push_back(p.shard);
      ReplayedBatch& r = *got.value;
      if (!r.ready) continue;
      LearnerThread::Replayed from{p.shard, std::move(r.indexes), {}};
      if (!learner_->Put(std::move(r.batch), stats_.num_steps_sampled, std::chrono::milliseconds(0),
                         std::move(from))) {
        ++num_samples_dropped_;
      }
    }
    RequestParkedReplays();
  }

  void PutWeights() {
    TimerStat::Scope t(&stats_.timers["put_weights"]);
    weights_ = ray::Put(learner_->WithPolicy([](Policy& p) { return p.GetWeights(); }));
  }

  void Publish() {
    auto& v = stats_.values;
    v["learner_queue_size"] = static_cast<double>(learner_->queue_size());
    v["learner_grad_time_ms"] = learner_->grad_time_ms();
    v["num_weight_syncs"] = static_cast<double>(num_weight_syncs_);
    v["num_samples_dropped"] = static_cast<double>(num_samples_dropped_);
    v["num_target_updates"] = static_cast<double>(num_target_updates_);
    v["last_target_update_ts"] = static_cast<double>(last_target_update_ts_);
  }

  EnvRunnerGroup<Worker>* workers_;
  Options options_;
  std::mt19937_64 shard_choice_;
  std::vector<ActorHandle<ReplayShard>> shards_;
  std::unique_ptr<LearnerThread> learner_;
  ObjectRef<std::vector<float>> weights_;
  std::vector<PendingSample> samples_;
  std::vector<std::pair<Handle, int>> held_;  // sample requests training_intensity holds back
  int64_t learn_steps_seen_ = -1;             // while held_: the learner's progress
  std::chrono::steady_clock::time_point learner_waited_since_;
  std::vector<PendingReplay> replays_;
  std::vector<int> parked_;  // shards to ask for a replay when the learner has room
  std::map<int, int64_t> steps_since_update_;
  PolicyOptimizerStats stats_;
  int64_t num_weight_syncs_ = 0;
  int64_t num_samples_dropped_ = 0;
  int64_t num_target_updates_ = 0;
  int64_t last_target_update_ts_ = 0;
};

}  // namespace ray::rllib
