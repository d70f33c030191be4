#include <ray/rllib/sample_batch.h>

#include <gtest/gtest.h>

#include <algorithm>

namespace ray::rllib {
namespace {

// Rows 0..n-1 with obs = [i, -i], action i, reward i.
SampleBatch MakeBatch(int n, int first = 0) {
  SampleBatch b;
  b.obs_dim = 2;
  b.dist_dim = 2;
  for (int k = 0; k < n; ++k) {
    const float i = static_cast<float>(first + k);
    b.obs.insert(b.obs.end(), {i, -i});
    b.actions.push_back(i);
    b.rewards.push_back(i);
    b.terminateds.push_back(0);
    b.truncateds.push_back(0);
    b.action_dist_inputs.insert(b.action_dist_inputs.end(), {i, i});
    b.action_logp.push_back(-i);
    b.vf_preds.push_back(i);
    b.eps_id.push_back(first + k);
  }
  return b;
}

TEST(SampleBatchTest, ValidateNamesTheBrokenColumn) {
  SampleBatch b = MakeBatch(3);
  EXPECT_NO_THROW(b.Validate());
  b.obs.pop_back();
  try {
    b.Validate();
    ADD_FAILURE() << "Validate accepted a short obs column";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("'obs'"), std::string::npos) << e.what();
  }
}

TEST(SampleBatchTest, SliceAndConcat) {
  SampleBatch b = MakeBatch(5);
  SampleBatch mid = b.Slice(1, 3);
  ASSERT_EQ(mid.size(), 2);
  EXPECT_EQ(mid.obs, (std::vector<float>{1, -1, 2, -2}));
  EXPECT_EQ(mid.eps_id, (std::vector<int64_t>{1, 2}));

  auto joined = SampleBatch::Concat({MakeBatch(2), MakeBatch(3, 2)});
  EXPECT_EQ(joined.size(), 5);
  EXPECT_EQ(joined.rewards, b.rewards);
  EXPECT_EQ(joined.obs, b.obs);
  EXPECT_NO_THROW(joined.Validate());
}

TEST(SampleBatchTest, AppendRejectsMismatchedWidthsAndMixedPostprocessing) {
  SampleBatch a = MakeBatch(2);
  SampleBatch other = MakeBatch(2);
  other.obs_dim = 1;
  other.obs.resize(2);
  EXPECT_THROW(a.Append(other), std::invalid_argument);
  SampleBatch done = MakeBatch(2);
  done.advantages = {1, 2};
  done.value_targets = {1, 2};
  EXPECT_THROW(a.Append(done), std::invalid_argument);
}

TEST(SampleBatchTest, ShuffleKeepsRowsTogether) {
  SampleBatch b = MakeBatch(50);
  b.advantages = b.rewards;
  b.value_targets = b.rewards;
  std::mt19937_64 rng(1);
  b.Shuffle(rng);
  ASSERT_NO_THROW(b.Validate());
  EXPECT_NE(b.rewards, MakeBatch(50).rewards);
  for (int64_t r = 0; r < b.size(); ++r) {
    const float i = b.rewards[r];
    EXPECT_EQ(b.obs[2 * r], i);
    EXPECT_EQ(b.obs[2 * r + 1], -i);
    EXPECT_EQ(b.actions[r], i);
    EXPECT_EQ(b.advantages[r], i);
    EXPECT_EQ(b.eps_id[r], static_cast<int64_t>(i));
  }
  std::vector<float> sorted = b.rewards;
  std::sort(sorted.begin(), sorted.end());
  EXPECT_EQ(sorted, MakeBatch(50).rewards);
}

TEST(SampleBatchTest, MsgpackRoundTrip) {
  SampleBatch b = MakeBatch(4);
  b.advantages = {0.5f, 1.5f, 2.5f, 3.5f};
  b.value_targets = {1, 2, 3, 4};
  b.terminateds.back() = 1;
  msgpack::sbuffer buf;
  msgpack::pack(buf, b);
  msgpack::object_handle oh = msgpack::unpack(buf.data(), buf.size());
  SampleBatch c = oh.get().as<SampleBatch>();
  EXPECT_EQ(c.obs_dim, 2);
  EXPECT_EQ(c.obs, b.obs);
  EXPECT_EQ(c.terminateds, b.terminateds);
  EXPECT_EQ(c.advantages, b.advantages);
  EXPECT_EQ(c.eps_id, b.eps_id);
  EXPECT_NO_THROW(c.Validate());
}

}  // namespace
}  // namespace ray::rllib
