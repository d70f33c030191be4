// AsyncSampler (sample_async): a thread sampling with a real RolloutWorker on
// CartPole-v1, a policy that tags each action with its weight, so a sample shows which
// weights made it.

#include "runtime/rllib/async_sampler.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <set>
#include <stdexcept>
#include <thread>

#include "tests/rllib_worker/scripted_policy.h"

namespace ray::rllib {
namespace {

using namespace std::chrono_literals;

// ScriptedPolicy whose one weight is written into every action's logp. Its calls can
// be held at a gate, and it throws once `fail_after` calls were made.
class TaggedPolicy : public ScriptedPolicy {
 public:
  using ScriptedPolicy::ScriptedPolicy;
  ActionBatch ComputeActions(const std::vector<float>& obs, bool explore) override {
    {
      std::unique_lock<std::mutex> lock(mu);
      gate.wait(lock, [&] { return open; });
    }
    if (fail_after >= 0 && calls >= fail_after) throw std::runtime_error("the policy ran out of luck");
    ++calls;
    ActionBatch a = ScriptedPolicy::ComputeActions(obs, explore);
    a.action_logp.assign(a.actions.size(), weight);
    return a;
  }
  std::vector<float> GetWeights() const override { return {weight}; }
  void SetWeights(const std::vector<float>& w) override { weight = w.at(0); }
  void Open() {
    {
      std::lock_guard<std::mutex> lock(mu);
      open = true;
    }
    gate.notify_all();
  }

  std::atomic<int> calls{0};
  float weight = 0;
  int fail_after = -1;
  std::mutex mu;
  std::condition_variable gate;
  bool open = true;
};

constexpr int kSteps = 10;  // sample_batch_size: one policy call per step

std::unique_ptr<AsyncSampler> MakeSampler(TaggedPolicy** out, bool open = true, int fail_after = -1) {
  CommonConfig c;
  c.num_envs_per_worker = 2;
  c.sample_batch_size = kSteps;
  c.seed = 1;
  auto w = RolloutWorker::Create("CartPole-v1", c, 1, [&](const PolicySpec& spec, std::optional<int64_t>) {
    auto p = std::make_unique<TaggedPolicy>(spec);
    p->open = open;
    p->fail_after = fail_after;
    *out = p.get();
    return Result<std::unique_ptr<Policy>>(std::unique_ptr<Policy>(std::move(p)));
  });
  EXPECT_TRUE(w.ok()) << w.status().ToString();
  return std::make_unique<AsyncSampler>(std::move(w).value());
}

// Waits (up to 10 s) until the policy has made `calls` calls and then stays there.
void WaitForCallsToSettleAt(const TaggedPolicy& p, int calls) {
  const auto deadline = std::chrono::steady_clock::now() + 10s;
  while (p.calls < calls && std::chrono::steady_clock::now() < deadline) std::this_thread::sleep_for(1ms);
  ASSERT_EQ(p.calls, calls);
  std::this_thread::sleep_for(50ms);
  EXPECT_EQ(p.calls, calls) << "the thread samples no further while the queue is full";
}

TEST(AsyncSamplerTest, SamplesAheadUntilItsQueueIsFullAndTakesNewWeightsBetweenFragments) {
  TaggedPolicy* policy = nullptr;
  auto sampler = MakeSampler(&policy);
  // Without any Next(): kQueueSize fragments queued, then the thread waits for room.
  WaitForCallsToSettleAt(*policy, static_cast<int>(AsyncSampler::kQueueSize) * kSteps);

  sampler->SetWeights({3.f});
  sampler->SetWeights({7.f});  // the latest wins
  int old_fragments = 0;
  bool saw_new = false;
  for (int i = 0; i < 12; ++i) {
    auto r = sampler->Next();
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_EQ(r->batch.size(), 2 * kSteps);
    std::set<float> tags(r->batch.action_logp.begin(), r->batch.action_logp.end());
    ASSERT_EQ(tags.size(), 1u) << "weights change only between fragments";
    if (*tags.begin() == 0.f) {
      EXPECT_FALSE(saw_new) << "no old sample after a new one";
      ++old_fragments;
    } else {
      EXPECT_EQ(*tags.begin(), 7.f);
      saw_new = true;
    }
  }
  EXPECT_TRUE(saw_new);
  EXPECT_EQ(old_fragments, static_cast<int>(AsyncSampler::kQueueSize))
      << "only the queued fragments were made with the old weights";
  EXPECT_EQ(sampler->With([](RolloutWorker& w) { return w.policy().GetWeights(); }), std::vector<float>{7.f})
      << "With() reaches the sampling worker";
}

TEST(AsyncSamplerTest, NextWaitsUpToItsDeadlineForASample) {
  TaggedPolicy* policy = nullptr;
  auto sampler = MakeSampler(&policy, /*open=*/false);
  auto late = sampler->Next(50ms);
  EXPECT_EQ(late.status().code(), StatusCode::kDeadlineExceeded);
  EXPECT_NE(late.status().message().find("sampler thread made no sample in 50 ms"), std::string::npos)
      << late.status().message();
  policy->Open();
  auto r = sampler->Next();
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->batch.size(), 2 * kSteps);
}

TEST(AsyncSamplerTest, AFailedSampleEndsTheThreadAndNextSaysWhy) {
  TaggedPolicy* policy = nullptr;
  auto sampler = MakeSampler(&policy, /*open=*/true, /*fail_after=*/kSteps + 3);
  auto first = sampler->Next();
  ASSERT_TRUE(first.ok()) << "the fragment made before the failure still arrives";
  for (int i = 0; i < 2; ++i) {
    auto failed = sampler->Next();
    ASSERT_FALSE(failed.ok());
    EXPECT_NE(failed.status().message().find("sample_async: the sampler thread ended"), std::string::npos)
        << failed.status().message();
    EXPECT_NE(failed.status().message().find("the policy ran out of luck"), std::string::npos)
        << failed.status().message();
  }
}

TEST(AsyncSamplerTest, DestroyingItStopsAThreadWaitingForRoom) {
  TaggedPolicy* policy = nullptr;
  auto sampler = MakeSampler(&policy);
  WaitForCallsToSettleAt(*policy, static_cast<int>(AsyncSampler::kQueueSize) * kSteps);
  sampler.reset();  // joins; a thread that kept waiting would hang the test
}

}  // namespace
}  // namespace ray::rllib
