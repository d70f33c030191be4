#include "algorithms/ppo/ppo_config.h"

#include <gtest/gtest.h>

namespace ray::rllib {
namespace {

TEST(PPOConfigTest, DefaultsAreRllibs) {
  PPOConfig c;
  EXPECT_DOUBLE_EQ(c.lambda, 1.0);
  EXPECT_DOUBLE_EQ(c.kl_coeff, 0.2);
  EXPECT_DOUBLE_EQ(c.kl_target, 0.01);
  EXPECT_DOUBLE_EQ(c.clip_param, 0.3);
  EXPECT_DOUBLE_EQ(c.vf_clip_param, 10.0);
  EXPECT_DOUBLE_EQ(c.vf_loss_coeff, 1.0);
  EXPECT_DOUBLE_EQ(c.entropy_coeff, 0.0);
  EXPECT_EQ(c.num_sgd_iter, 30);
  EXPECT_EQ(c.sgd_minibatch_size, 128);
  EXPECT_EQ(c.train_batch_size, 4000);
  EXPECT_DOUBLE_EQ(c.lr, 5e-5);
  EXPECT_DOUBLE_EQ(c.gamma, 0.99);
  EXPECT_TRUE(c.use_gae);
  EXPECT_FALSE(c.grad_clip.has_value());
  EXPECT_EQ(c.model.fcnet_hiddens, (std::vector<int>{256, 256}));
  EXPECT_EQ(c.model.fcnet_activation, "tanh");
  EXPECT_FALSE(c.model.vf_share_layers);
  EXPECT_FALSE(c.model.free_log_std);
  EXPECT_TRUE(c.Validate().ok());
}

TEST(PPOConfigTest, OverlayKeepsUnsetKeys) {
  auto c = PPOConfig::FromJson(
      R"({"lr": 3e-4, "lambda": 0.95, "grad_clip": 0.5,
          "model": {"fcnet_hiddens": [64, 64], "fcnet_activation": "relu"}})");
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_DOUBLE_EQ(c->lr, 3e-4);
  EXPECT_DOUBLE_EQ(c->lambda, 0.95);
  EXPECT_DOUBLE_EQ(*c->grad_clip, 0.5);
  EXPECT_EQ(c->model.fcnet_hiddens, (std::vector<int>{64, 64}));
  EXPECT_EQ(c->model.fcnet_activation, "relu");
  EXPECT_DOUBLE_EQ(c->clip_param, 0.3);  // untouched default
}

TEST(PPOConfigTest, VfShareLayersAcceptedAtTopLevelAndInModel) {
  auto top = PPOConfig::FromJson(R"({"vf_share_layers": true})");
  ASSERT_TRUE(top.ok());
  EXPECT_TRUE(top->model.vf_share_layers);
  auto nested = PPOConfig::FromJson(R"({"model": {"vf_share_layers": true}})");
  ASSERT_TRUE(nested.ok());
  EXPECT_TRUE(nested->model.vf_share_layers);
}

TEST(PPOConfigTest, UnknownKeyIsRejectedByName) {
  auto c = PPOConfig::FromJson(R"({"lr": 1e-3, "clip_parm": 0.2})");
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(c.status().message().find("'clip_parm'"), std::string::npos) << c.status().message();

  auto m = PPOConfig::FromJson(R"({"model": {"fcnet_hidens": [8]}})");
  ASSERT_FALSE(m.ok());
  EXPECT_NE(m.status().message().find("'model.fcnet_hidens'"), std::string::npos)
      << m.status().message();
}

TEST(PPOConfigTest, WrongTypesAndRangesAreRejected) {
  EXPECT_FALSE(PPOConfig::FromJson(R"({"num_sgd_iter": 2.5})").ok());
  EXPECT_FALSE(PPOConfig::FromJson(R"({"use_gae": 1})").ok());
  EXPECT_FALSE(PPOConfig::FromJson(R"({"model": {"fcnet_activation": "swish"}})").ok());
  EXPECT_FALSE(PPOConfig::FromJson(R"({"model": {"fcnet_hiddens": [0]}})").ok());
  EXPECT_FALSE(PPOConfig::FromJson(R"({"lr_schedule": [[10, 1e-3], [5, 0]]})").ok());
  EXPECT_FALSE(PPOConfig::FromJson(R"({"lr_schedule": [1e-3]})").ok());
  EXPECT_FALSE(PPOConfig::FromJson("not json").ok());
  EXPECT_FALSE(PPOConfig::FromJson("[1, 2]").ok());
  auto big = PPOConfig::FromJson(R"({"sgd_minibatch_size": 512, "train_batch_size": 256})");
  ASSERT_FALSE(big.ok());
  EXPECT_NE(big.status().message().find("sgd_minibatch_size"), std::string::npos);
}

TEST(PPOConfigTest, LrScheduleIsPiecewiseLinear) {
  auto c = PPOConfig::FromJson(R"({"lr": 0.5, "lr_schedule": [[0, 1e-3], [1000, 0.0]]})");
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_DOUBLE_EQ(c->LrAt(0), 1e-3);
  EXPECT_DOUBLE_EQ(c->LrAt(250), 7.5e-4);
  EXPECT_DOUBLE_EQ(c->LrAt(5000), 0.0);
  EXPECT_DOUBLE_EQ(PPOConfig{}.LrAt(123), 5e-5);
}

TEST(PPOConfigTest, ToJsonRoundTrips) {
  auto c = PPOConfig::FromJson(R"({"lr": 0.001, "seed": 7, "lr_schedule": [[0, 0.001], [10, 0.0]], "model": {"fcnet_hiddens": [32]}})");
  ASSERT_TRUE(c.ok());
  auto again = PPOConfig::FromJson(c->ToJson());
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_EQ(again->ToJson(), c->ToJson());
  EXPECT_EQ(*again->seed, 7);
}

}  // namespace
}  // namespace ray::rllib
