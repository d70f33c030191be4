// Box / Discrete / Tuple / Dict / Space: containment with float32 semantics, flat
// observation layouts, sampling, descriptions.

#include "ray/rllib/spaces.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace ray::rllib {
namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();

TEST(SpacesTest, Descriptions) {
  EXPECT_EQ(Box::Uniform(-1, 1, {4}).ToString(), "Box(4,)");
  EXPECT_EQ(Box::Uniform(-1, 1, {2, 3}).ToString(), "Box(2, 3)");
  EXPECT_EQ(Discrete(2).ToString(), "Discrete(2)");
  EXPECT_EQ(Space(Discrete(7)).ToString(), "Discrete(7)");
  EXPECT_EQ(Space(Box::Uniform(0, 1, {1})).ToString(), "Box(1,)");
}

TEST(SpacesTest, BoxContains) {
  Box box({-1.0f, 0.0f}, {1.0f, kInf});
  EXPECT_TRUE(box.Contains({-1.0f, 0.0f}));
  EXPECT_TRUE(box.Contains({1.0f, 1e30f}));
  EXPECT_FALSE(box.Contains({1.0001f, 0.0f}));
  EXPECT_FALSE(box.Contains({0.0f, -1e-30f}));
  EXPECT_FALSE(box.Contains({0.0f}));  // wrong size
  EXPECT_FALSE(box.Contains({std::nanf(""), 0.0f}));
  EXPECT_EQ(box.size(), 2);
  EXPECT_EQ(box.shape(), (std::vector<int64_t>{2}));
}

// float32 semantics: a bound given as the double 0.1 is the float 0.1f; a double value
// just above it that rounds to 0.1f is inside, as with np.float32 observations.
TEST(SpacesTest, BoxBoundsAreFloat32) {
  Box box = Box::Uniform(static_cast<float>(-0.1), static_cast<float>(0.1), {1});
  EXPECT_TRUE(box.Contains({static_cast<float>(0.1 + 1e-12)}));
  EXPECT_FALSE(box.Contains({std::nextafter(0.1f, 1.0f)}));
}

TEST(SpacesTest, BoxSampleStaysInside) {
  Rng rng(1);
  Box bounded({-2.0f, 0.0f, 5.0f}, {2.0f, 1e-6f, 5.0f});
  Box unbounded({-kInf, 0.0f, -kInf}, {kInf, kInf, 3.0f});
  double mean = 0;
  for (int i = 0; i < 10000; ++i) {
    EXPECT_TRUE(bounded.Contains(bounded.Sample(rng)));
    auto x = unbounded.Sample(rng);
    EXPECT_TRUE(unbounded.Contains(x));
    mean += x[0] / 10000;
  }
  EXPECT_NEAR(mean, 0.0, 0.05);  // N(0, 1) on the unbounded dim
}

TEST(SpacesTest, DiscreteContainsAndSamplesEveryValue) {
  Discrete d(3);
  EXPECT_TRUE(d.Contains(0));
  EXPECT_TRUE(d.Contains(2));
  EXPECT_FALSE(d.Contains(3));
  EXPECT_FALSE(d.Contains(-1));
  Rng rng(2);
  int counts[3] = {0, 0, 0};
  for (int i = 0; i < 3000; ++i) ++counts[d.Sample(rng)];
  for (int c : counts) EXPECT_GT(c, 800);
}

TEST(SpacesTest, SpaceChecksTheRightActionMember) {
  Space discrete = Discrete(2);
  Space box = Box::Uniform(-1, 1, {2});
  EXPECT_TRUE(discrete.Contains(Action::OfIndex(1)));
  EXPECT_FALSE(discrete.Contains(Action::OfIndex(2)));
  EXPECT_TRUE(box.Contains(Action::OfValues({0.5f, -0.5f})));
  EXPECT_FALSE(box.Contains(Action::OfValues({0.5f})));
  EXPECT_TRUE(discrete.Contains(std::vector<float>{1.0f}));  // an observation: the index
  EXPECT_FALSE(discrete.Contains(std::vector<float>{2.0f}));
  EXPECT_FALSE(discrete.Contains(std::vector<float>{0.5f}));
  EXPECT_FALSE(discrete.Contains(std::vector<float>{std::nanf("")}));
  Rng rng(3);
  for (int i = 0; i < 100; ++i) {
    EXPECT_TRUE(discrete.Contains(discrete.Sample(rng)));
    EXPECT_TRUE(box.Contains(box.Sample(rng)));
  }
  EXPECT_TRUE(discrete.is_discrete());
  EXPECT_TRUE(box.is_box());
}

TEST(SpacesTest, TupleAndDictLayTheirPartsOneAfterAnother) {
  Space tuple = Tuple({Discrete(3), Box::Uniform(-1, 1, {2})});
  EXPECT_TRUE(tuple.is_tuple());
  EXPECT_EQ(tuple.ToString(), "Tuple(Discrete(3), Box(2,))");
  EXPECT_EQ(tuple.flat_size(), 3);
  EXPECT_TRUE(tuple.Contains(std::vector<float>{2, 0.5f, -1}));
  EXPECT_FALSE(tuple.Contains(std::vector<float>{3, 0.5f, -1})) << "index out of the Discrete";
  EXPECT_FALSE(tuple.Contains(std::vector<float>{2, 0.5f, -1.5f})) << "out of the Box";
  EXPECT_FALSE(tuple.Contains(std::vector<float>{2, 0.5f})) << "too short";

  // Keys are kept sorted, whatever the order given (gymnasium.spaces.Dict of a dict).
  Space dict = Dict({{"velocity", Box::Uniform(0, 1, {1})}, {"gear", Discrete(2)},
                     {"inner", Tuple({Discrete(2), Discrete(2)})}});
  EXPECT_TRUE(dict.is_dict());
  EXPECT_EQ(dict.ToString(), "Dict(gear: Discrete(2), inner: Tuple(Discrete(2), Discrete(2)), velocity: Box(1,))");
  EXPECT_EQ(dict.flat_size(), 4);
  EXPECT_TRUE(dict.Contains(std::vector<float>{1, 0, 1, 0.25f}));
  EXPECT_FALSE(dict.Contains(std::vector<float>{0.25f, 1, 0, 1})) << "the layout is in key order";
  EXPECT_EQ(dict, Space(Dict({{"gear", Discrete(2)}, {"inner", Tuple({Discrete(2), Discrete(2)})},
                              {"velocity", Box::Uniform(0, 1, {1})}})));
  EXPECT_NE(dict, Space(Dict({{"gear", Discrete(3)}, {"inner", Tuple({Discrete(2), Discrete(2)})},
                              {"velocity", Box::Uniform(0, 1, {1})}})));
  EXPECT_FALSE(tuple.Contains(Action::OfIndex(0))) << "no actions in a Tuple";
}

TEST(SpacesDeathTest, ATupleOrDictIsNotAnActionSpaceNorEmpty) {
  Rng rng(1);
  Space tuple = Tuple({Discrete(2)});
  EXPECT_DEATH(tuple.Sample(rng), "only a Box or a Discrete space has actions");
  EXPECT_DEATH(Tuple(std::vector<Space>{}), "Tuple has no spaces");
  EXPECT_DEATH(Dict({{"a", Discrete(2)}, {"a", Discrete(3)}}), "Dict has a key twice");
}

TEST(SpacesTest, RngIsDeterministicPerSeed) {
  Rng a(42), b(42), c(43);
  for (int i = 0; i < 100; ++i) {
    const double x = a.Uniform01();
    EXPECT_EQ(x, b.Uniform01());
    EXPECT_GE(x, 0.0);
    EXPECT_LT(x, 1.0);
  }
  EXPECT_NE(Rng(42).NextU64(), c.NextU64());
}

}  // namespace
}  // namespace ray::rllib
