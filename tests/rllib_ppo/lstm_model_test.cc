// model.use_lstm: the LSTM wrapper unrolls sequences as one step at a time would,
// batches are cut into sequences by episode and max_seq_len, and PPO trains on them.

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <vector>

#include "algorithms/ppo/ppo_policy.h"
#include "runtime/rllib/policy/lstm.h"
#include "runtime/rllib/policy/postprocessing.h"

namespace ray::rllib {
namespace {

ModelConfig SmallLstm() {
  ModelConfig m;
  m.fcnet_hiddens = {8};
  m.use_lstm = true;
  m.lstm_cell_size = 5;
  m.max_seq_len = 3;
  return m;
}

TEST(SequenceLengthsTest, RunsOfOneEpisodeCutEveryMaxSeqLenRows) {
  EXPECT_EQ(SequenceLengths({7, 7, 7, 7, 7, 8, 9, 9, 7}, 3), (std::vector<int64_t>{3, 2, 1, 2, 1}));
  EXPECT_EQ(SequenceLengths({1, 1, 1}, 1), (std::vector<int64_t>{1, 1, 1}));
  EXPECT_TRUE(SequenceLengths({}, 4).empty());
}

TEST(LSTMNetworkTest, SequencesOfDifferentLengthsUnrollAsSingleSteps) {
  torch::manual_seed(3);
  LSTMNetwork net(4, 2, /*discrete=*/true, SmallLstm());
  ASSERT_EQ(net.state_size(), 10);
  const std::vector<int64_t> lens = {3, 1, 2};
  auto obs = torch::randn({6, 4});
  auto state_in = torch::randn({3, 10});
  ModelOutput all = net.Forward(obs, state_in, torch::tensor(lens, torch::kInt64));
  ASSERT_EQ(all.dist_inputs.sizes(), (std::vector<int64_t>{6, 2}));
  ASSERT_EQ(all.values.sizes(), (std::vector<int64_t>{6}));
  ASSERT_EQ(all.state_out.sizes(), (std::vector<int64_t>{3, 10}));

  int64_t row = 0;
  for (int64_t q = 0; q < 3; ++q) {
    torch::Tensor state = state_in[q].unsqueeze(0);
    for (int64_t t = 0; t < lens[q]; ++t, ++row) {
      ModelOutput one = net.Forward(obs[row].unsqueeze(0), state, torch::ones({1}, torch::kInt64));
      EXPECT_TRUE(torch::allclose(one.dist_inputs[0], all.dist_inputs[row], 1e-5, 1e-6)) << "row " << row;
      EXPECT_NEAR(one.values[0].item<float>(), all.values[row].item<float>(), 1e-5) << "row " << row;
      state = one.state_out;
    }
    EXPECT_TRUE(torch::allclose(state[0], all.state_out[q], 1e-5, 1e-6)) << "sequence " << q;
  }
}

TEST(LSTMNetworkTest, RefusesShapesThatDoNotFit) {
  LSTMNetwork net(4, 2, true, SmallLstm());
  auto obs = torch::randn({3, 4});
  EXPECT_THROW(net.Forward(obs, torch::Tensor(), torch::Tensor()), std::invalid_argument);
  EXPECT_THROW(net.Forward(obs, torch::zeros({1, 10}), torch::tensor({int64_t{2}})), std::invalid_argument);
  EXPECT_THROW(net.Forward(obs, torch::zeros({1, 9}), torch::tensor({int64_t{3}})), std::invalid_argument);
}

PPOConfig LstmPPO() {
  PPOConfig c;
  c.model = SmallLstm();
  c.train_batch_size = 12;
  c.sgd_minibatch_size = 6;
  c.num_sgd_iter = 2;
  c.seed = 5;
  return c;
}

// Two episodes stepped with the policy, states carried as a sampler carries them.
SampleBatch Rollout(PPOPolicy& policy) {
  SampleBatch b;
  for (int64_t episode = 0; episode < 2; ++episode) {
    SampleBatch e;
    e.obs_dim = 4;
    e.state_size = policy.StateSize();
    std::vector<float> state(policy.StateSize(), 0.f);
    for (int t = 0; t < 5; ++t) {
      std::vector<float> o = {0.1f * t, -0.1f * t, static_cast<float>(episode), 0.5f};
      ActionBatch a = policy.ComputeActionsWithState(o, state, true);
      e.dist_dim = a.dist_dim;
      e.obs.insert(e.obs.end(), o.begin(), o.end());
      e.state_in.insert(e.state_in.end(), state.begin(), state.end());
      e.actions.push_back(a.actions[0]);
      e.rewards.push_back(a.actions[0] == episode ? 1.f : 0.f);
      e.terminateds.push_back(t == 4);
      e.truncateds.push_back(0);
      e.action_dist_inputs.insert(e.action_dist_inputs.end(), a.action_dist_inputs.begin(),
                                  a.action_dist_inputs.end());
      e.action_logp.push_back(a.action_logp[0]);
      e.vf_preds.push_back(a.vf_preds[0]);
      e.eps_id.push_back(episode);
      state = a.state_out;
    }
    policy.Postprocess(&e, {});
    b.Append(e);
  }
  return b;
}

TEST(LstmPolicyTest, ActsFromEachRowsStateAndRefusesToActWithout) {
  auto policy = std::move(PPOPolicy::Create({4, 2, true}, LstmPPO())).value();
  ASSERT_EQ(policy->StateSize(), 10);
  const std::vector<float> obs = {0.1f, 0.2f, 0.3f, 0.4f, -1.f, 0.f, 1.f, 0.f};
  EXPECT_THROW(policy->ComputeActions(obs), std::invalid_argument);
  EXPECT_THROW(policy->ComputeActionsWithState(obs, std::vector<float>(10), true), std::invalid_argument);
  ActionBatch a = policy->ComputeActionsWithState(obs, std::vector<float>(20, 0.f), false);
  ASSERT_EQ(a.state_out.size(), 20u);
  ActionBatch again = policy->ComputeActionsWithState(obs, a.state_out, false);
  EXPECT_NE(a.vf_preds, again.vf_preds) << "the state changes what the model sees";
}

TEST(LstmPolicyTest, BootstrapsFromTheStateTheFragmentLeadsTo) {
  auto policy = std::move(PPOPolicy::Create({4, 2, true}, LstmPPO())).value();
  SampleBatch b = Rollout(*policy).Slice(0, 3);
  const std::vector<float> next = {0.3f, -0.3f, 0.f, 0.5f};
  // Step through the fragment's last row from its state, then value next.
  std::vector<float> last(b.obs.end() - 4, b.obs.end());
  std::vector<float> state(b.state_in.end() - 10, b.state_in.end());
  ActionBatch step = policy->ComputeActionsWithState(last, state, false);
  ActionBatch after = policy->ComputeActionsWithState(next, step.state_out, false);
  EXPECT_NEAR(policy->BootstrapValue(b, next), after.vf_preds[0], 1e-5);
}

TEST(LstmPolicyTest, PPOTrainsOnSequencesAndRefusesABatchWithoutStates) {
  auto policy = std::move(PPOPolicy::Create({4, 2, true}, LstmPPO())).value();
  SampleBatch b = Rollout(*policy);
  const std::vector<float> before = policy->GetWeights();
  LearnerStats stats = policy->LearnOnBatch(b);
  EXPECT_TRUE(std::isfinite(stats.at("total_loss")));
  // 10 rows in sequences of 3, 2, 3, 2: 2 minibatches of 2 sequences per epoch.
  EXPECT_EQ(stats.at("num_sgd_steps"), 4);
  EXPECT_NE(policy->GetWeights(), before);
  SampleBatch stateless = b;
  stateless.state_in.clear();
  stateless.state_size = 0;
  EXPECT_THROW(policy->LearnOnBatch(stateless), std::invalid_argument);
}

TEST(LstmPolicyTest, AlgorithmsThatTrainNoRecurrentModelRefuseIt) {
  PPOConfig c;
  c.model.use_lstm = true;
  EXPECT_TRUE(c.Validate().ok());
  Status st = c.RefuseModelCatalog("DQN", true);
  EXPECT_FALSE(st.ok());
  EXPECT_NE(st.message().find("model.use_lstm"), std::string::npos) << st.message();
  c.model.max_seq_len = 0;
  EXPECT_FALSE(c.Validate().ok());
}

}  // namespace
}  // namespace ray::rllib
