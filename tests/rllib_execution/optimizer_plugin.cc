// The job the rllib_optimizers suite runs: `ray run optimizer_plugin.so <case>`. Each
// case drives AsyncGradientsOptimizer or AsyncSamplesOptimizer over real actors of a
// fake rollout worker, with a fake learning policy in the driver, and returns 0 when
// every check passes ("CHECK FAILED: ..." on stderr and exit 1 otherwise).
//
// The fake worker's sample has `rows` rows whose rewards are the weights it held
// (one float: the learner's version) and whose eps_id is its index; its gradient is
// [index, version]. The fake learner's weights are [version]; every applied gradient
// or learned batch adds one and is recorded.

#include <ray/api.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "runtime/rllib/execution/env_runner_group.h"
#include "runtime/rllib/optimizers/async_gradients_optimizer.h"
#include "runtime/rllib/optimizers/async_samples_optimizer.h"
#include "tests/test_util/plugin_check.h"

namespace {

using namespace ray::rllib;

class FakeWorker {
 public:
  static FakeWorker* Create(int index, int rows, int sample_ms) {
    return new FakeWorker(index, rows, sample_ms);
  }
  bool Ping() { return true; }
  void SetWeights(std::vector<float> w) {
    weights_ = std::move(w);
    ++set_weights_calls_;
  }
  SampleResult SampleCurrent() {
    std::this_thread::sleep_for(std::chrono::milliseconds(sample_ms_));
    ++samples_;
    SampleResult r;
    r.batch.obs_dim = 1;
    for (int i = 0; i < rows_; ++i) {
      r.batch.obs.push_back(0);
      r.batch.actions.push_back(0);
      r.batch.rewards.push_back(weights_.empty() ? -1.f : weights_[0]);
      r.batch.terminateds.push_back(0);
      r.batch.truncateds.push_back(0);
      r.batch.action_logp.push_back(0);
      r.batch.eps_id.push_back(index_);
    }
    r.episode_returns = {static_cast<double>(index_)};
    r.episode_lengths = {rows_};
    return r;
  }
  WorkerGradients ComputeGradients(SampleResult sample) {
    WorkerGradients g;
    g.gradients.grads = {static_cast<float>(index_), sample.batch.rewards.at(0)};
    g.gradients.num_rows = sample.batch.size();
    g.gradients.info = {{"worker", static_cast<double>(index_)}};
    g.episode_returns = sample.episode_returns;
    g.episode_lengths = sample.episode_lengths;
    return g;
  }
  std::vector<int> Counts() { return {samples_, set_weights_calls_}; }
  // The worker process dies (a lost worker).
  bool Crash() { std::_Exit(1); }

 private:
  FakeWorker(int index, int rows, int sample_ms)
      : index_(index), rows_(rows), sample_ms_(sample_ms) {}
  int index_, rows_, sample_ms_;
  std::vector<float> weights_;
  int samples_ = 0, set_weights_calls_ = 0;
};

RAY_REMOTE(FakeWorker::Create, &FakeWorker::Ping, &FakeWorker::SetWeights,
           &FakeWorker::SampleCurrent, &FakeWorker::ComputeGradients, &FakeWorker::Counts,
           &FakeWorker::Crash);

class FakeLearner : public Policy {
 public:
  const PolicySpec& spec() const override { return spec_; }
  ActionBatch ComputeActions(const std::vector<float>&, bool) override { return {}; }
  void Postprocess(SampleBatch*, const std::vector<float>&) override {}
  LearnerStats LearnOnBatch(const SampleBatch& batch) override {
    learned.push_back(batch.rewards);
    version += 1;
    return {{"rows", static_cast<double>(batch.size())}};
  }
  Gradients ComputeGradients(const SampleBatch&) override { return {}; }
  void ApplyGradients(const std::vector<float>& g) override {
    applied.push_back({static_cast<int>(g.at(0)), static_cast<int>(g.at(1))});
    applied_at_version.push_back(version);
    version += 1;
  }
  std::vector<float> GetWeights() const override { return {static_cast<float>(version)}; }
  void SetWeights(const std::vector<float>& w) override { version = static_cast<int>(w.at(0)); }
  void OnGlobalVarUpdate(int64_t t) override { timesteps.push_back(t); }
  void SaveState(const std::string&) const override {}
  void RestoreState(const std::string&) override {}

  int version = 0;
  std::vector<std::pair<int, int>> applied;  // (worker index, version it computed with)
  std::vector<int> applied_at_version;
  std::vector<std::vector<float>> learned;
  std::vector<int64_t> timesteps;

 private:
  PolicySpec spec_{1, 1, true};
};

using Group = EnvRunnerGroup<FakeWorker>;

std::unique_ptr<Group> MakeGroup(int n, int rows, int sample_ms, Group::Options options = {}) {
  Group::Spec spec;
  spec.create_remote = [=](int id) {
    return ray::Actor(FakeWorker::Create).Remote(id, rows, sample_ms);
  };
  spec.create_local = [=] {
    return std::unique_ptr<FakeWorker>(FakeWorker::Create(0, rows, sample_ms));
  };
  spec.probe = HealthProbe<FakeWorker>(&FakeWorker::Ping);
  options.num_workers = n;
  options.local_worker = n == 0;
  return std::make_unique<Group>(spec, options);
}

// Kills remote worker `id`'s process and waits until its actor is known dead.
void CrashWorker(Group& g, int id) {
  ExpectThrow<ray::RayException>([&] { ray::Get(g.remote_worker(id)->Task(&FakeWorker::Crash).Remote()); },
                              "Crash");
}

std::vector<int> Counts(Group& g, int id) {
  return *ray::Get(g.remote_worker(id)->Task(&FakeWorker::Counts).Remote());
}

// Seed 004: a first wave on every worker with the weights put once, then one
// re-dispatch per applied gradient to the worker it came from, with the learner's
// weights after that apply, until grads_per_step were requested.
void AsyncGradientsDispatch() {
  auto group = MakeGroup(2, 10, 20);
  FakeLearner learner;
  AsyncGradientsOptimizer<FakeWorker> opt(group.get(), &learner, {.grads_per_step = 5});
  OptimizerStep step = opt.Step();
  CHECK_THAT(learner.applied.size() == 5, learner.applied.size());
  CHECK_THAT(step.steps_sampled == 50, step.steps_sampled);
  CHECK_THAT(opt.stats().num_steps_sampled == 50 && opt.stats().num_steps_trained == 50,
             opt.stats().num_steps_sampled << " " << opt.stats().num_steps_trained);
  CHECK_THAT(step.episode_returns.size() == 5, step.episode_returns.size());
  // The first wave computed with version 0 (one put for both workers).
  int first_wave = 0;
  for (auto [w, v] : learner.applied) first_wave += v == 0 ? 1 : 0;
  CHECK_THAT(first_wave == 2, first_wave);
  // A re-dispatched gradient was computed with the weights right after the apply
  // that freed its worker: for each worker, its k-th gradient (k >= 1) computed with
  // (the version at which its (k-1)-th was applied) + 1.
  std::map<int, int> last_applied_at;
  for (size_t i = 0; i < learner.applied.size(); ++i) {
    auto [w, v] = learner.applied[i];
    if (last_applied_at.count(w)) {
      CHECK_THAT(v == last_applied_at[w] + 1, "gradient " << i << " of worker " << w
                                                          << " computed with " << v << ", expected "
                                                          << last_applied_at[w] + 1);
    }
    last_applied_at[w] = learner.applied_at_version[i];
  }
  // Each worker sampled once per gradient and got weights once per gradient.
  int samples = 0;
  for (int id : {1, 2}) {
    auto c = Counts(*group, id);
    CHECK_THAT(c[0] == c[1], "worker " << id << ": samples " << c[0] << ", set_weights " << c[1]);
    samples += c[0];
  }
  CHECK_THAT(samples == 5, samples);
  CHECK_THAT(learner.timesteps.size() == 5 && learner.timesteps.back() == 40,
             Str(learner.timesteps));
  auto stats = opt.stats().ToMap();
  for (const char* k : {"wait_time_ms", "apply_time_ms", "dispatch_time_ms", "num_steps_sampled"}) {
    CHECK_THAT(stats.count(k), "missing stat " << k);
  }
  CHECK_THAT(step.learner.count("worker"), "learner stats of the last gradient");
  // grads_per_step below the number of workers: the first wave still goes to all.
  AsyncGradientsOptimizer<FakeWorker> one(group.get(), &learner, {.grads_per_step = 1});
  learner.applied.clear();
  one.Step();
  CHECK_THAT(learner.applied.size() == 2, learner.applied.size());
  for (auto [w, v] : learner.applied)
    CHECK_THAT(v == 5, "first wave of step 2 computed with " << v);
}

void AsyncGradientsNeedsRemoteWorkers() {
  auto group = MakeGroup(0, 10, 0);
  FakeLearner learner;
  auto e = ExpectThrow<std::invalid_argument>(
      [&] { AsyncGradientsOptimizer<FakeWorker> opt(group.get(), &learner, {}); },
      "no remote workers");
  CHECK_THAT(std::string(e.what()).find("requires at least 1 remote workers") != std::string::npos,
             e.what());
  auto s = ExpectThrow<std::invalid_argument>(
      [&] { AsyncSamplesOptimizer<FakeWorker> opt(group.get(), &learner, {}); },
      "no remote workers");
  CHECK_THAT(std::string(s.what()).find("num_workers=0") != std::string::npos, s.what());
}

// Runs steps until `pred` or 20 s.
template <typename Opt, typename Pred>
std::vector<OptimizerStep> StepUntil(Opt& opt, Pred pred) {
  std::vector<OptimizerStep> steps;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (!pred() && std::chrono::steady_clock::now() < deadline) steps.push_back(opt.Step());
  CHECK_THAT(pred(), "the optimizer did not get there within 20 s");
  return steps;
}

// Sample requests stay in flight on every worker; fragments are gathered into
// train_batch_size batches for the learner thread; each answered worker gets the
// last broadcast weights, and new weights are broadcast once the learner changed
// them.
void AsyncSamplesPipeline() {
  auto group = MakeGroup(2, 10, 20);
  FakeLearner learner;
  AsyncSamplesOptimizer<FakeWorker> opt(
      group.get(), &learner,
      {.train_batch_size = 30, .max_sample_requests_in_flight_per_worker = 2});
  std::vector<OptimizerStep> steps =
      StepUntil(opt, [&] { return opt.stats().num_steps_sampled >= 300; });
  int64_t sampled = 0, episodes = 0;
  for (auto& s : steps) {
    sampled += s.steps_sampled;
    episodes += static_cast<int64_t>(s.episode_returns.size());
    CHECK_THAT(s.steps_sampled % 30 == 0, "a train batch of " << s.steps_sampled << " rows");
  }
  CHECK_THAT(sampled == opt.stats().num_steps_sampled, sampled);
  // Every answered sample was re-requested: 2 in flight per worker.
  int64_t requests = 0;
  for (int id : {1, 2}) requests += Counts(*group, id)[0];
  const auto& v = opt.stats().values;
  CHECK_THAT(v.at("num_weight_syncs") == static_cast<double>(episodes), v.at("num_weight_syncs")
                                                                            << " " << episodes);
  CHECK_THAT(requests >= episodes && requests <= episodes + 4,
             requests << " samples for " << episodes << " answered");
  CHECK_THAT(v.at("num_broadcasts") > 1, "weights were never broadcast again");
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  opt.Step();
  int versions_seen = 0;
  opt.WithLearnerPaused([&] {
    CHECK_THAT(!learner.learned.empty(), "the learner learned nothing");
    for (auto& batch : learner.learned) {
      CHECK_THAT(batch.size() == 30, batch.size());
      versions_seen =
          std::max(versions_seen, static_cast<int>(*std::max_element(batch.begin(), batch.end())));
    }
  });
  CHECK_THAT(versions_seen > 0, "no sample was taken with weights the learner produced");
  CHECK_THAT(opt.stats().num_steps_trained > 0 &&
                 opt.stats().num_steps_trained <= opt.stats().num_steps_sampled,
             opt.stats().num_steps_trained);
  for (const char* k : {"sample_time_ms", "put_time_ms", "broadcast_time_ms", "learner_queue_size",
                        "learner_grad_time_ms", "num_learn_steps"}) {
    CHECK_THAT(opt.stats().ToMap().count(k), "missing stat " << k);
  }
}

// broadcast_interval larger than the run: the workers keep the first weights.
void AsyncSamplesBroadcastInterval() {
  auto group = MakeGroup(2, 10, 10);
  FakeLearner learner;
  AsyncSamplesOptimizer<FakeWorker> opt(group.get(), &learner,
                                        {.train_batch_size = 20, .broadcast_interval = 100000});
  StepUntil(opt, [&] { return opt.stats().num_steps_sampled >= 200; });
  CHECK_THAT(opt.stats().values.at("num_broadcasts") == 1, opt.stats().values.at("num_broadcasts"));
  opt.WithLearnerPaused([&] {
    for (auto& batch : learner.learned) {
      for (float r : batch) CHECK_THAT(r == 0, "a sample with version " << r);
    }
  });
}

// Experience replay: each new fragment is followed into the train batches by
// replay_proportion kept ones on average, once more fragments are kept than a train
// batch needs; replayed rows are trained but not counted as sampled.
void AsyncSamplesReplay() {
  auto group = MakeGroup(2, 10, 2);
  FakeLearner learner;
  AsyncSamplesOptimizer<FakeWorker> opt(group.get(), &learner,
                                        {.train_batch_size = 20, .replay_proportion = 1.0,
                                         .replay_buffer_num_slots = 5, .sample_batch_size = 10, .seed = 3});
  StepUntil(opt, [&] { return opt.stats().num_steps_sampled >= 1000; });
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  opt.Step();
  const double sampled = static_cast<double>(opt.stats().num_steps_sampled);
  const double replayed = opt.stats().values.at("num_steps_replayed");
  CHECK_THAT(replayed > 0.8 * sampled && replayed < 1.2 * sampled, replayed << " replayed for " << sampled);
  CHECK_THAT(opt.stats().num_steps_trained > opt.stats().num_steps_sampled,
             opt.stats().num_steps_trained << " trained, " << sampled << " sampled");
  opt.WithLearnerPaused([&] {
    for (auto& batch : learner.learned) CHECK_THAT(batch.size() == 20, batch.size());
  });
}

// A lost worker fails the step unless failures are tolerated: with
// ignore_worker_failures the optimizers go on with the others; with
// recreate_failed_workers the group's new worker under the same id gets weights and
// requests within the same step, and the restart is counted.
template <typename Opt>
void WorkerLost(const std::function<std::unique_ptr<Opt>(Group*, FakeLearner*)>& make,
                const std::function<void(Opt&)>& step) {
  {
    auto group = MakeGroup(2, 10, 5);
    FakeLearner learner;
    auto opt = make(group.get(), &learner);
    step(*opt);
    CrashWorker(*group, 2);
    ExpectThrow<ray::RayException>([&] { step(*opt); }, "a lost worker without tolerance");
  }
  {
    auto group = MakeGroup(2, 10, 5, {.ignore_worker_failures = true});
    FakeLearner learner;
    auto opt = make(group.get(), &learner);
    step(*opt);
    CrashWorker(*group, 2);
    for (int i = 0; i < 3; ++i) step(*opt);
    CHECK_THAT(group->HealthyWorkerIds() == std::vector<int>{1}, Str(group->HealthyWorkerIds()));
    CHECK_THAT(group->num_remote_worker_restarts() == 0, group->num_remote_worker_restarts());
  }
  auto group = MakeGroup(2, 10, 5, {.recreate_failed_workers = true});
  FakeLearner learner;
  auto opt = make(group.get(), &learner);
  step(*opt);
  CrashWorker(*group, 2);
  for (int i = 0; i < 3; ++i) step(*opt);
  CHECK_THAT(group->HealthyWorkerIds() == (std::vector<int>{1, 2}), Str(group->HealthyWorkerIds()));
  CHECK_THAT(group->num_remote_worker_restarts() == 1, group->num_remote_worker_restarts());
  CHECK_THAT(Counts(*group, 2)[0] > 0, "the new worker 2 was never asked for a sample");
}

void AsyncGradientsWorkerLost() {
  using Opt = AsyncGradientsOptimizer<FakeWorker>;
  WorkerLost<Opt>([](Group* g, FakeLearner* l) { return std::make_unique<Opt>(g, l, Opt::Options{.grads_per_step = 6}); },
                  [](Opt& o) { o.Step(); });
}

void AsyncSamplesWorkerLost() {
  using Opt = AsyncSamplesOptimizer<FakeWorker>;
  WorkerLost<Opt>([](Group* g, FakeLearner* l) { return std::make_unique<Opt>(g, l, Opt::Options{.train_batch_size = 20}); },
                  [](Opt& o) {
                    const int64_t before = o.stats().num_steps_sampled;
                    StepUntil(o, [&] { return o.stats().num_steps_sampled >= before + 60; });
                  });
}

const std::map<std::string, std::function<void()>>& Cases() {
  static const std::map<std::string, std::function<void()>> cases = {
      {"async_gradients_dispatch", AsyncGradientsDispatch},
      {"async_needs_remote_workers", AsyncGradientsNeedsRemoteWorkers},
      {"async_samples_pipeline", AsyncSamplesPipeline},
      {"async_samples_broadcast_interval", AsyncSamplesBroadcastInterval},
      {"async_gradients_worker_lost", AsyncGradientsWorkerLost},
      {"async_samples_worker_lost", AsyncSamplesWorkerLost},
      {"async_samples_replay", AsyncSamplesReplay},
  };
  return cases;
}

}  // namespace

RAY_MAIN(int argc, char** argv) {
  if (argc < 2 || !Cases().count(argv[1])) {
    std::fprintf(stderr, "usage: optimizer_plugin.so <case>\n");
    return 2;
  }
  std::string name = argv[1];
  try {
    Cases().at(name)();
  } catch (const CheckFailed& f) {
    std::fprintf(stderr, "CHECK FAILED in %s: %s\n", name.c_str(), f.what.c_str());
    return 1;
  }
  std::printf("CASE PASSED: %s\n", name.c_str());
  return 0;
}
