#include <gtest/gtest.h>

#include <set>

#include "runtime/tune/space.h"

namespace ray::tune {
namespace {

TEST(SpaceTest, FloatsFormatLikePython) {
  // Python: "{:.5}".format(v)
  const std::vector<std::pair<double, std::string>> five = {
      {0.1, "0.1"},
      {1.0, "1.0"},
      {1e-5, "1e-05"},
      {123456.0, "1.2346e+05"},
      {0.000123456, "0.00012346"},
      {12345.6, "1.2346e+04"},
      {1234.5, "1234.5"},
      {1234.0, "1234.0"},
      {10000.0, "1e+04"},
      {9999.9, "9999.9"},
      {100.0, "100.0"},
      {0.0001, "0.0001"},
      {-2.5, "-2.5"},
      {1e16, "1e+16"},
      {0.0, "0.0"},
  };
  for (const auto& [v, s] : five) EXPECT_EQ(FormatFloat5(v), s) << v;
  // Python: repr(v)
  EXPECT_EQ(FormatFloatRepr(3.0), "3.0");
  EXPECT_EQ(FormatFloatRepr(0.25), "0.25");
  EXPECT_EQ(FormatFloatRepr(3.975), "3.975");
  EXPECT_EQ(FormatFloatRepr(100000.0), "100000.0");
  EXPECT_EQ(FormatFloatRepr(1e-5), "1e-05");
}

TEST(SpaceTest, TagsAreRaysFormatVars) {
  EXPECT_EQ(FormatTag({{"lr", 0.1}, {"momentum", 0.9}}), "lr=0.1,momentum=0.9");
  EXPECT_EQ(FormatTag({{"env", "a/b"}, {"n", 3}, {"on", true}, {"lr", 0.123456789}}),
            "env=a_b,n=3,on=True,lr=0.12346");
}

TEST(SpaceTest, ParsesNodesAndNamesThePathOfBadOnes) {
  auto node = ParseSpaceNode(Json::parse(R"({"randint": [1, 5]})"), "config.n");
  ASSERT_TRUE(node.ok() && *node);
  EXPECT_EQ((*node)->kind, SpaceKind::kRandInt);
  EXPECT_FALSE(*ParseSpaceNode(Json::parse(R"({"uniform": [0, 1], "x": 2})"), "config.a"));
  EXPECT_FALSE(*ParseSpaceNode(Json::parse(R"({"lr": 0.1})"), "config.a"));
  const std::vector<std::pair<std::string, std::string>> bad = {
      {R"({"uniform": [1]})", "config.x: uniform needs [low, high]"},
      {R"({"uniform": [2, 1]})", "config.x: uniform needs [low, high]"},
      {R"({"loguniform": [0, 1]})", "config.x: loguniform needs [low, high] with low > 0"},
      {R"({"randint": [0.5, 3]})", "config.x: randint needs integers [low, high) with low < high"},
      {R"({"choice": []})", "config.x: choice needs a non-empty list"},
      {R"({"grid_search": 3})", "config.x: grid_search needs a non-empty list"},
      {R"({"sample_from": 1})", "config.x: sample_from needs a function name"},
  };
  for (const auto& [text, message] : bad) {
    auto r = ParseSpaceNode(Json::parse(text), "config.x");
    ASSERT_FALSE(r.ok()) << text;
    EXPECT_EQ(r.status().message(), message);
  }
}

TEST(SpaceTest, SamplesStayInRangeAndFollowTheSeed) {
  Rng a(1);
  const SpaceNode u{SpaceKind::kUniform, Json(), 2, 3, ""};
  const SpaceNode l{SpaceKind::kLogUniform, Json(), 1e-4, 1e-1, ""};
  const SpaceNode r{SpaceKind::kRandInt, Json(), -2, 2, ""};
  std::set<int64_t> ints;
  double below_1e3 = 0;
  for (int i = 0; i < 3000; ++i) {
    const double x = SampleSpaceNode(u, a).get<double>();
    EXPECT_TRUE(x >= 2 && x < 3);
    const double y = SampleSpaceNode(l, a).get<double>();
    EXPECT_TRUE(y >= 1e-4 && y < 1e-1);
    below_1e3 += y < 1e-3;
    const Json z = SampleSpaceNode(r, a);
    EXPECT_TRUE(z.is_number_integer());
    ints.insert(z.get<int64_t>());
  }
  EXPECT_NEAR(below_1e3 / 3000, 1.0 / 3, 0.05);  // one decade of three
  EXPECT_EQ(ints, (std::set<int64_t>{-2, -1, 0, 1}));
  // The engine's state round-trips through text.
  Rng c(5);
  const std::string state = SaveRng(c);
  const auto first = c();
  ASSERT_TRUE(RestoreRng(c, state));
  EXPECT_EQ(c(), first);
  EXPECT_FALSE(RestoreRng(c, "not a state"));
}

TEST(KeywordArgsTest, ReadsDefaultsAndReportsTheFirstProblem) {
  KeywordArgs ok("X", Json::parse(R"({"a": 2, "b": true, "mode": "min"})"));
  EXPECT_EQ(ok.Number("a", 1), 2);
  EXPECT_EQ(ok.Integer("c", 7), 7);
  EXPECT_TRUE(ok.Bool("b", false));
  EXPECT_EQ(ok.Mode(), -1);
  EXPECT_TRUE(ok.Finish().ok());

  KeywordArgs unknown("X", Json::parse(R"({"a": 2, "zz": 1})"));
  unknown.Number("a", 1);
  EXPECT_EQ(unknown.Finish().message(), "X: unknown key 'zz'");

  KeywordArgs wrong("X", Json::parse(R"({"a": "2", "b": 3})"));
  wrong.Number("a", 1);
  wrong.Bool("b", false);
  EXPECT_EQ(wrong.Finish().message(), "X: a must be a number");
}

}  // namespace
}  // namespace ray::tune
