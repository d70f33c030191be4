// model.custom_model: models registered by name in a model plugin are what the
// policy learns with, recurrent ones included; plugins, names and models that do not
// fit are refused with errors naming them.

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "algorithms/ppo/ppo_policy.h"

namespace ray::rllib {
namespace {

PPOConfig WithModel(const std::string& name, nlohmann::json options = nlohmann::json::object(),
                    const std::string& plugin = CUSTOM_MODELS_PLUGIN) {
  PPOConfig c;
  c.model_plugin = plugin;
  c.model.custom_model = name;
  c.model.custom_options = std::move(options);
  c.train_batch_size = 8;
  c.sgd_minibatch_size = 4;
  c.num_sgd_iter = 1;
  c.seed = 2;
  return c;
}

std::string CreateError(const PolicySpec& spec, const PPOConfig& config) {
  auto p = PPOPolicy::Create(spec, config);
  return p.ok() ? "" : p.status().message();
}

TEST(CustomModelTest, ThePolicyLearnsWithTheRegisteredModel) {
  auto policy = std::move(PPOPolicy::Create({4, 2, true}, WithModel("residual_mlp", {{"width", 8}, {"blocks", 3}}))).value();
  const std::string layout = policy->WeightsLayout();
  EXPECT_NE(layout.find("blocks.2.weight:8x8"), std::string::npos) << layout;
  EXPECT_EQ(layout.find("hidden"), std::string::npos) << "not the fully connected net: " << layout;
  EXPECT_EQ(policy->StateSize(), 0);
  const ActionBatch a = policy->ComputeActions(std::vector<float>(8, 0.5f));
  EXPECT_EQ(a.actions.size(), 2u);
  EXPECT_EQ(a.vf_preds.size(), 2u);

  // A Box action space: the model outputs means and log stds.
  auto box = std::move(PPOPolicy::Create({4, 3, false}, WithModel("residual_mlp"))).value();
  EXPECT_EQ(box->ComputeActions(std::vector<float>(4, 0.f)).dist_dim, 6);
}

TEST(CustomModelTest, ARecurrentCustomModelCarriesItsState) {
  auto policy = std::move(PPOPolicy::Create({2, 2, true}, WithModel("gru", {{"width", 6}}))).value();
  ASSERT_EQ(policy->StateSize(), 6);
  const std::vector<float> obs = {1.f, 0.f};
  ActionBatch first = policy->ComputeActionsWithState(obs, std::vector<float>(6, 0.f), false);
  ASSERT_EQ(first.state_out.size(), 6u);
  ActionBatch second = policy->ComputeActionsWithState(obs, first.state_out, false);
  EXPECT_NE(first.vf_preds, second.vf_preds);
}

TEST(CustomModelTest, UnknownNamesPluginsAndBadOptionsAreNamed) {
  const PolicySpec spec{4, 2, true};
  std::string err = CreateError(spec, WithModel("nope"));
  EXPECT_NE(err.find("'nope' is not registered"), std::string::npos) << err;
  EXPECT_NE(err.find("gru, residual_mlp"), std::string::npos) << err;
  err = CreateError(spec, WithModel("gru", {{"width", -1}}));
  EXPECT_NE(err.find("factory threw"), std::string::npos) << err;
  err = CreateError(spec, WithModel("gru", {}, "/nonexistent/models.so"));
  EXPECT_NE(err.find("/nonexistent/models.so"), std::string::npos) << err;
  err = CreateError(spec, WithModel("gru", {}, REACH_TARGET_PLUGIN));
  EXPECT_NE(err.find("not a model plugin"), std::string::npos) << err;

  PPOConfig no_plugin = WithModel("gru");
  no_plugin.model_plugin.clear();
  EXPECT_NE(no_plugin.Validate().message().find("needs 'model_plugin'"), std::string::npos);
  PPOConfig wrapped = WithModel("gru");
  wrapped.model.use_lstm = true;
  EXPECT_NE(wrapped.Validate().message().find("cannot wrap a custom_model"), std::string::npos);
}

TEST(CustomModelTest, ModelsWhoseOutputsDoNotFitAreRefused) {
  const PolicySpec spec{4, 2, true};
  for (const auto& [name, want] : std::vector<std::pair<std::string, std::string>>{
           {"wrong_dist_dim", "dist_dim() is 3, the action space needs 2"},
           {"wrong_values", "values of shape [1, 3]"},
           {"no_state_out", "state_out of shape undefined"}}) {
    const std::string err = CreateError(spec, WithModel(name, {}, BROKEN_MODELS_PLUGIN));
    EXPECT_NE(err.find("custom model '" + name + "'"), std::string::npos) << err;
    EXPECT_NE(err.find(want), std::string::npos) << err;
  }
}

}  // namespace
}  // namespace ray::rllib
