// A3C's, IMPALA's and APPO's pure pieces: V-trace against hand-computed examples,
// IMPALA's sequence boundaries and next observations, APPO's two advantage paths,
// the configs' defaults and refusals,
// and the LearnerThread of the AsyncSamplesOptimizer with a counting policy.

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <thread>

#include "algorithms/a3c/a3c_config.h"
#include "algorithms/appo/appo_policy.h"
#include "algorithms/impala/impala_config.h"
#include "algorithms/impala/impala_policy.h"
#include "algorithms/impala/vtrace.h"
#include "runtime/rllib/optimizers/learner_thread.h"
#include "tests/rllib_algorithms/test_batches.h"

namespace ray::rllib {
namespace {

using std::chrono::milliseconds;

std::vector<float> Logs(std::vector<double> ratios) {
  std::vector<float> out;
  for (double r : ratios) out.push_back(static_cast<float>(std::log(r)));
  return out;
}

void ExpectNear(const std::vector<float>& got, const std::vector<double>& want, const char* what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t i = 0; i < want.size(); ++i)
    EXPECT_NEAR(got[i], want[i], 1e-5) << what << "[" << i << "]";
}

// One 3-step sequence cut after its last row (bootstrap V = 4), gamma 0.9, ratios
// 2, 0.5, 1, both thresholds 1. By hand:
//   rho = c = [1, 0.5, 1]
//   delta = [1*(1+0.9*2-1), 0.5*(1+0.9*3-2), 1*(1+0.9*4-3)] = [1.8, 0.85, 1.6]
//   vs_2 = 3 + 1.6 = 4.6
//   vs_1 = 2 + 0.85 + 0.9*0.5*1.6 = 3.57
//   vs_0 = 1 + 1.8 + 0.9*1*1.57 = 4.213
//   pg = [1*(1+0.9*3.57-1), 0.5*(1+0.9*4.6-2), 1*(1+0.9*4-3)] = [3.213, 1.57, 1.6]
TEST(VTraceTest, MatchesAHandComputedSequence) {
  VTraceInput in;
  in.log_rhos = Logs({2.0, 0.5, 1.0});
  in.discounts = {0.9f, 0.9f, 0.9f};
  in.rewards = {1, 1, 1};
  in.values = {1, 2, 3};
  in.next_values = {2, 3, 4};
  in.continues = {1, 1, 0};
  VTraceOutput out = VTrace(in, 1.0, 1.0);
  ExpectNear(out.vs, {4.213, 3.57, 4.6}, "vs");
  ExpectNear(out.pg_advantages, {3.213, 1.57, 1.6}, "pg_advantages");
}

// The same sequence with clip_rho_threshold 3: rho_0 = 2 while c_0 = min(1, 2) = 1, so
//   vs_0 = 1 + 2*1.8 + 0.9*1*1.57 = 6.013 (vs_1, vs_2 and the pg advantages as above).
TEST(VTraceTest, TracesCutAtOneWhileRhoClipsAtItsThreshold) {
  VTraceInput in;
  in.log_rhos = Logs({2.0, 0.5, 1.0});
  in.discounts = {0.9f, 0.9f, 0.9f};
  in.rewards = {1, 1, 1};
  in.values = {1, 2, 3};
  in.next_values = {2, 3, 4};
  in.continues = {1, 1, 0};
  VTraceOutput out = VTrace(in, 3.0, 1.0);
  ExpectNear(out.vs, {6.013, 3.57, 4.6}, "vs");
  ExpectNear(out.pg_advantages, {3.213, 1.57, 1.6}, "pg_advantages");
}

// A terminal row (discount 0) then a new one-row sequence; ratio 3 clipped to 2 for
// rho, unclipped (no threshold) for the policy gradient:
//   vs_0 = 0.5 + 2*(1 - 0.5) = 1.5        pg_0 = 3*(1 - 0.5) = 1.5
//   vs_1 = 1 + 1*(0 + 0.9*2 - 1) = 1.8    pg_1 = 0.8
TEST(VTraceTest, TerminalStepsAndSequenceEndsCutTheRecursionAndThresholdsClip) {
  VTraceInput in;
  in.log_rhos = Logs({3.0, 1.0});
  in.discounts = {0.f, 0.9f};
  in.rewards = {1, 0};
  in.values = {0.5f, 1};
  in.next_values = {7, 2};  // 7: after a terminal step, never used
  in.continues = {0, 0};
  VTraceOutput out = VTrace(in, 2.0, std::numeric_limits<double>::infinity());
  ExpectNear(out.vs, {1.5, 1.8}, "vs");
  ExpectNear(out.pg_advantages, {1.5, 0.8}, "pg_advantages");
}

TEST(VTraceTest, BadInputIsRefused) {
  VTraceInput in;
  in.log_rhos = {0};
  in.discounts = {0.9f};
  in.rewards = {1};
  in.values = {1};
  in.next_values = {1};
  in.continues = {1};
  EXPECT_THROW(VTrace(in, 1, 1), std::invalid_argument);  // the last row cannot continue
  in.continues = {0};
  EXPECT_THROW(VTrace(in, 0, 1), std::invalid_argument);
  in.values = {};
  EXPECT_THROW(VTrace(in, 1, 1), std::invalid_argument);
}

IMPALAConfig SmallImpala() {
  IMPALAConfig c;
  c.model.fcnet_hiddens = {16};
  c.seed = 1;
  c.gamma = 0.9;
  return c;
}

TEST(IMPALAPolicyTest, PostprocessRecordsNextObservations) {
  auto p = IMPALAPolicy::Create({3, 2, true}, SmallImpala());
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  SampleBatch cut = testing::Fragment(**p, 3, false);
  (*p)->Postprocess(&cut, {9, 9, 9});
  std::vector<float> want(cut.obs.begin() + 3, cut.obs.end());
  want.insert(want.end(), {9, 9, 9});
  EXPECT_EQ(cut.new_obs, want);
  SampleBatch ended = testing::Fragment(**p, 2, true);
  (*p)->Postprocess(&ended, {});
  EXPECT_EQ(ended.new_obs.size(), 6u);
  EXPECT_THROW((*p)->Postprocess(&ended, {1, 2}), std::invalid_argument);
}

// opt_type rmsprop: the learner steps with RMSprop (decay, momentum, epsilon), not
// Adam: from the same start and batch, the two first steps differ.
TEST(IMPALAPolicyTest, RMSPropIsTheOptimiserWhenAsked) {
  std::vector<float> start, after[2];
  for (int k = 0; k < 2; ++k) {
    IMPALAConfig config = SmallImpala();
    config.opt_type = k == 0 ? "adam" : "rmsprop";
    auto p = IMPALAPolicy::Create({3, 2, true}, config);
    ASSERT_TRUE(p.ok()) << p.status().ToString();
    if (k == 0) start = (*p)->GetWeights();
    ASSERT_EQ((*p)->GetWeights(), start) << "same seed, same start";
    SampleBatch b = testing::Fragment(**p, 4, false);
    (*p)->Postprocess(&b, {1, 1, 1});
    (*p)->LearnOnBatch(b);
    after[k] = (*p)->GetWeights();
    EXPECT_NE(after[k], start) << config.opt_type;
  }
  EXPECT_NE(after[0], after[1]);
}

// Two fragments of the same episode back to back whose observations do not join
// (the second is not the first's continuation): the first fragment's targets are
// those it has alone, so the recursion stopped at its end.
TEST(IMPALAPolicyTest, VTraceRunsWithinSequencesOnly) {
  auto p = IMPALAPolicy::Create({3, 2, true}, SmallImpala());
  ASSERT_TRUE(p.ok());
  SampleBatch a = testing::Fragment(**p, 4, false);
  (*p)->Postprocess(&a, {5, 5, 5});
  SampleBatch b = testing::Fragment(**p, 4, false);
  for (float& x : b.obs) x += 0.3f;
  (*p)->Postprocess(&b, {6, 6, 6});
  SampleBatch both = SampleBatch::Concat({a, b});
  SampleBatch alone = (*p)->WithVTrace(a);
  SampleBatch joined = (*p)->WithVTrace(both);
  for (int i = 0; i < 4; ++i) {
    EXPECT_FLOAT_EQ(joined.value_targets[i], alone.value_targets[i]) << i;
    EXPECT_FLOAT_EQ(joined.advantages[i], alone.advantages[i]) << i;
  }
  // Within the fragment the recursion does run: row 0's target depends on row 3's.
  SampleBatch changed = a;
  changed.rewards[3] += 10;
  EXPECT_GT((*p)->WithVTrace(changed).value_targets[0], alone.value_targets[0] + 1);
  SampleBatch raw = testing::Fragment(**p, 2, false);
  EXPECT_THROW((*p)->LearnOnBatch(raw), std::invalid_argument);  // no new_obs
  LearnerStats s = (*p)->LearnOnBatch(both);
  EXPECT_TRUE(s.count("policy_loss") && s.count("vf_loss") && s.count("entropy"));
}

TEST(IMPALAConfigTest, DefaultsAreRllibsAndUnsupportedValuesAreRefusedByName) {
  auto c = IMPALAConfig::FromJson("{}");
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->sample_batch_size, 50);
  EXPECT_EQ(c->train_batch_size, 500);
  EXPECT_EQ(c->num_workers, 2);
  EXPECT_DOUBLE_EQ(c->lr, 0.0005);
  EXPECT_DOUBLE_EQ(*c->grad_clip, 40);
  EXPECT_DOUBLE_EQ(*c->vtrace_clip_rho_threshold, 1.0);
  EXPECT_DOUBLE_EQ(*c->vtrace_clip_pg_rho_threshold, 1.0);
  EXPECT_EQ(c->learner_queue_size, 16);
  EXPECT_EQ(c->max_sample_requests_in_flight_per_worker, 2);
  EXPECT_EQ(c->broadcast_interval, 1);
  EXPECT_DOUBLE_EQ(c->min_iter_time_s, 10);
  auto ok = IMPALAConfig::FromJson(
      R"({"vtrace_clip_rho_threshold": null, "replay_proportion": 0.0, "replay_buffer_num_slots": 10,
          "opt_type": "adam", "num_sgd_iter": 2, "decay": 0.9})");
  ASSERT_TRUE(ok.ok()) << ok.status().ToString();
  EXPECT_FALSE(ok->vtrace_clip_rho_threshold.has_value());
  for (const char* bad :
       {R"({"replay_proportion": -0.5})", R"({"vtrace": false})", R"({"opt_type": "sgd"})", R"({"decay": 1.0})",
        R"({"num_aggregation_workers": 1})", R"({"minibatch_buffer_size": 2})",
        R"({"num_data_loader_buffers": 2})", R"({"_fake_sampler": true})", R"({"num_workers": 0})",
        R"({"vtrace_clip_pg_rho_threshold": 0})", R"({"num_gpus": 1})", R"({"clip_param": 0.3})"}) {
    auto r = IMPALAConfig::FromJson(bad);
    ASSERT_FALSE(r.ok()) << bad;
    std::string key = nlohmann::json::parse(bad).begin().key();
    EXPECT_NE(r.status().message().find("'" + key + "'"), std::string::npos)
        << r.status().message();
  }
  // Replay needs more slots than one train batch's fragments (500 / 50 here), or it
  // would never start.
  auto few = IMPALAConfig::FromJson(R"({"replay_proportion": 0.5, "replay_buffer_num_slots": 10})");
  ASSERT_FALSE(few.ok());
  EXPECT_NE(few.status().message().find("'replay_buffer_num_slots' must be > 10"), std::string::npos)
      << few.status().message();
  auto replay = IMPALAConfig::FromJson(R"({"replay_proportion": 0.5, "replay_buffer_num_slots": 11})");
  ASSERT_TRUE(replay.ok()) << replay.status().ToString();
  EXPECT_EQ(nlohmann::json::parse(replay->ToJson())["replay_proportion"], 0.5);
  auto json = nlohmann::json::parse(c->ToJson());
  EXPECT_EQ(json["vtrace_clip_pg_rho_threshold"], 1.0);
  EXPECT_EQ(json["replay_proportion"], 0.0);
}

TEST(A3CConfigTest, DefaultsAreRllibsAndUnsupportedValuesAreRefusedByName) {
  auto c = A3CConfig::FromJson("{}");
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->sample_batch_size, 10);
  EXPECT_DOUBLE_EQ(c->min_iter_time_s, 5);
  EXPECT_DOUBLE_EQ(c->lr, 0.0001);
  EXPECT_DOUBLE_EQ(*c->grad_clip, 40);
  EXPECT_DOUBLE_EQ(c->lambda, 1.0);
  EXPECT_DOUBLE_EQ(c->vf_loss_coeff, 0.5);
  EXPECT_DOUBLE_EQ(c->entropy_coeff, 0.01);
  EXPECT_EQ(c->grads_per_step, 100);
  EXPECT_TRUE(c->sample_async) << "a sampler thread per worker, as RLlib's A3C";
  auto ok = A3CConfig::FromJson(
      R"({"optimizer": {"grads_per_step": 7}, "use_pytorch": true, "sample_async": false})");
  ASSERT_TRUE(ok.ok()) << ok.status().ToString();
  EXPECT_EQ(ok->grads_per_step, 7);
  EXPECT_FALSE(ok->sample_async);
  EXPECT_EQ(nlohmann::json::parse(ok->ToJson())["sample_async"], false);
  EXPECT_TRUE(A3CConfig::FromJson(R"({"recreate_failed_workers": true})").ok()) << "lost workers are replaced";
  EXPECT_EQ(nlohmann::json::parse(ok->ToJson())["optimizer"]["grads_per_step"], 7);
  struct Case {
    const char* json;
    const char* names;
  };
  for (Case bad : {Case{R"({"optimizer": {"grads_per_stepp": 1}})", "'optimizer.grads_per_stepp'"},
                   Case{R"({"optimizer": {"grads_per_step": 0}})", "'optimizer.grads_per_step'"},
                   Case{R"({"num_workers": 0})", "at least 1 remote workers"},
                   Case{R"({"microbatch_size": 10})", "'microbatch_size'"},
                   Case{R"({"entropy_coeff": -1})", "'entropy_coeff'"}}) {
    auto r = A3CConfig::FromJson(bad.json);
    ASSERT_FALSE(r.ok()) << bad.json;
    EXPECT_NE(r.status().message().find(bad.names), std::string::npos) << r.status().message();
  }
}

TEST(APPOTest, DefaultsAreRllibsAndBothAdvantagePathsLearn) {
  auto c = APPOConfig::FromJson("{}");
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_FALSE(c->vtrace);
  EXPECT_TRUE(c->use_gae);
  EXPECT_DOUBLE_EQ(c->lambda, 1.0);
  EXPECT_DOUBLE_EQ(c->clip_param, 0.4);
  EXPECT_EQ(c->replay_buffer_num_slots, 100);
  EXPECT_EQ(c->train_batch_size, 500);
  for (const char* bad : {R"({"clip_param": 0})", R"({"lambda": 2})",
                          R"({"replay_proportion": -0.1})", R"({"kl_coeff": 0.2})"}) {
    auto r = APPOConfig::FromJson(bad);
    ASSERT_FALSE(r.ok()) << bad;
    std::string key = nlohmann::json::parse(bad).begin().key();
    EXPECT_NE(r.status().message().find("'" + key + "'"), std::string::npos)
        << r.status().message();
  }
  for (bool vtrace : {false, true}) {
    APPOConfig config;
    config.model.fcnet_hiddens = {16};
    config.seed = 1;
    config.vtrace = vtrace;
    auto p = APPOPolicy::Create({3, 2, true}, config);
    ASSERT_TRUE(p.ok()) << p.status().ToString();
    SampleBatch b = testing::Fragment(**p, 5, false);
    (*p)->Postprocess(&b, {1, 1, 1});
    // GAE fills the advantages on the worker; V-trace leaves them to the learner.
    EXPECT_EQ(b.advantages.empty(), vtrace) << vtrace;
    EXPECT_EQ(b.new_obs.empty(), !vtrace) << vtrace;
    LearnerStats s = (*p)->LearnOnBatch(b);
    EXPECT_NEAR(s.at("mean_ratio"), 1.0, 1e-4) << "on-policy data: ratio 1";
  }
}

// A policy that counts its learn calls and can be held inside one.
class CountingPolicy : public Policy {
 public:
  const PolicySpec& spec() const override { return spec_; }
  ActionBatch ComputeActions(const std::vector<float>&, bool) override { return {}; }
  void Postprocess(SampleBatch*, const std::vector<float>&) override {}
  LearnerStats LearnOnBatch(const SampleBatch& batch) override {
    while (hold) std::this_thread::sleep_for(milliseconds(1));
    if (fail) throw std::runtime_error("learn failed on purpose");
    ++learn_calls;
    weight += 1;
    return {{"rows", static_cast<double>(batch.size())}};
  }
  Gradients ComputeGradients(const SampleBatch&) override { return {}; }
  void ApplyGradients(const std::vector<float>&) override {}
  std::vector<float> GetWeights() const override { return {weight}; }
  void SetWeights(const std::vector<float>& w) override { weight = w.at(0); }
  void OnGlobalVarUpdate(int64_t t) override { timesteps.push_back(t); }
  void SaveState(const std::string&) const override {}
  void RestoreState(const std::string&) override {}

  std::atomic<bool> hold{false}, fail{false};
  std::atomic<int> learn_calls{0};
  float weight = 0;
  std::vector<int64_t> timesteps;  // OnGlobalVarUpdate calls

 private:
  PolicySpec spec_{1, 1, true};
};

SampleBatch Rows(int n) {
  SampleBatch b;
  b.obs_dim = 1;
  for (int i = 0; i < n; ++i) {
    b.obs.push_back(0);
    b.actions.push_back(0);
    b.rewards.push_back(0);
    b.terminateds.push_back(0);
    b.truncateds.push_back(0);
    b.action_logp.push_back(0);
    b.eps_id.push_back(0);
  }
  return b;
}

TEST(LearnerThreadTest, LearnsEachBatchNumSgdIterTimesAndReportsStepsAndWeights) {
  CountingPolicy policy;
  LearnerThread learner(&policy, 4, /*num_sgd_iter=*/2);
  EXPECT_FALSE(learner.TakeWeightsUpdated());
  ASSERT_TRUE(learner.Put(Rows(3), 0, milliseconds(1000)));
  ASSERT_TRUE(learner.Put(Rows(5), 3, milliseconds(1000)));
  ASSERT_TRUE(learner.Drain(milliseconds(5000)));
  EXPECT_EQ(policy.learn_calls, 4);
  EXPECT_EQ(policy.timesteps, (std::vector<int64_t>{0, 3}));
  EXPECT_EQ(learner.TakeTrained(), 8);
  EXPECT_EQ(learner.TakeTrained(), 0);
  EXPECT_TRUE(learner.TakeWeightsUpdated());
  EXPECT_FALSE(learner.TakeWeightsUpdated());
  EXPECT_EQ(learner.num_learn_steps(), 2);
  EXPECT_EQ(learner.learner_stats().at("rows"), 5);
  EXPECT_EQ(learner.WithPolicy([](Policy& p) { return p.GetWeights(); }), std::vector<float>{4});
}

TEST(LearnerThreadTest, AFullQueueMakesPutWaitAndTimeOut) {
  CountingPolicy policy;
  policy.hold = true;
  LearnerThread learner(&policy, 1, 1);
  ASSERT_TRUE(learner.Put(Rows(1), 0, milliseconds(1000)));  // taken by the thread, held
  const auto deadline = std::chrono::steady_clock::now() + milliseconds(5000);
  while (learner.queue_size() != 0 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(milliseconds(1));
  }
  ASSERT_TRUE(learner.Put(Rows(1), 0, milliseconds(1000)));  // fills the queue
  EXPECT_FALSE(learner.Put(Rows(1), 0, milliseconds(100)));  // full: times out
  policy.hold = false;
  EXPECT_TRUE(learner.Put(Rows(1), 0, milliseconds(5000)));  // room again
  ASSERT_TRUE(learner.Drain(milliseconds(5000)));
  EXPECT_EQ(policy.learn_calls, 3);
}

TEST(LearnerThreadTest, ALearnErrorIsRaisedToTheCaller) {
  CountingPolicy policy;
  policy.fail = true;
  LearnerThread learner(&policy, 2, 1);
  ASSERT_TRUE(learner.Put(Rows(1), 0, milliseconds(1000)));
  EXPECT_THROW(learner.Drain(milliseconds(5000)), std::runtime_error);
  EXPECT_THROW(learner.TakeTrained(), std::runtime_error);
  EXPECT_THROW(learner.Put(Rows(1), 0, milliseconds(10)), std::runtime_error);
}

}  // namespace
}  // namespace ray::rllib
