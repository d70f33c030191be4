#include <gtest/gtest.h>

#include <algorithm>
#include <regex>

#include "runtime/tune/search.h"

namespace ray::tune {
namespace {

std::unique_ptr<Searcher> Generator(const std::string& spec, int64_t num_samples, uint64_t seed = 0,
                                    SampleFromFn fn = nullptr) {
  auto g = MakeVariantGenerator(Json::parse(spec), num_samples, seed, std::move(fn));
  EXPECT_TRUE(g.ok()) << g.status().ToString();
  return g.ok() ? std::move(*g) : nullptr;
}

std::vector<Suggestion> All(Searcher& s) {
  std::vector<Suggestion> out;
  while (!s.Finished()) {
    auto next = s.Next();
    EXPECT_TRUE(next.ok()) << next.status().ToString();
    if (!next.ok() || !*next) break;
    out.push_back(std::move(**next));
  }
  EXPECT_FALSE(s.Next()->has_value());  // nothing after the end
  return out;
}

std::string Error(const std::string& spec, SampleFromFn fn = nullptr) {
  auto g = MakeVariantGenerator(Json::parse(spec), 1, 0, std::move(fn));
  if (g.ok()) return "";
  EXPECT_EQ(g.status().code(), StatusCode::kInvalidArgument);
  return g.status().message();
}

constexpr char kTwoGridsTwoSamplers[] = R"({
  "a": {"grid_search": [1, 2, 3]}, "b": {"grid_search": ["x", "y", "z"]},
  "c": {"uniform": [0, 1]}, "d": {"choice": [10, 20]}, "e": "literal"})";

TEST(VariantGeneratorTest, TwoThreeValueGridsAndTwoSamplersMakeNineTrialsPerSample) {
  auto one = Generator(kTwoGridsTwoSamplers, 1);
  EXPECT_EQ(one->Total(), 9);
  EXPECT_EQ(All(*one).size(), 9u);
  auto ten = Generator(kTwoGridsTwoSamplers, 10);
  EXPECT_EQ(ten->Total(), 90);
  const auto all = All(*ten);
  ASSERT_EQ(all.size(), 90u);
  std::set<double> c;
  for (const auto& s : all) {
    c.insert(s.config["c"].get<double>());
    EXPECT_EQ(s.config["e"], "literal");
    EXPECT_TRUE(s.config["d"] == 10 || s.config["d"] == 20);
  }
  EXPECT_EQ(c.size(), 90u);  // fresh random values in every trial
}

TEST(VariantGeneratorTest, TheLastGridAxisVariesFastestAndSamplesRepeatTheGrid) {
  auto g = Generator(R"({"a": {"grid_search": [1, 2]}, "b": {"grid_search": ["x", "y", "z"]}})", 2);
  std::vector<std::string> tags;
  for (const auto& s : All(*g)) tags.push_back(s.tag);
  EXPECT_EQ(tags, (std::vector<std::string>{"a=1,b=x", "a=1,b=y", "a=1,b=z", "a=2,b=x", "a=2,b=y",
                                            "a=2,b=z", "a=1,b=x", "a=1,b=y", "a=1,b=z", "a=2,b=x",
                                            "a=2,b=y", "a=2,b=z"}));
}

TEST(VariantGeneratorTest, ShuffleVisitsEachRepetitionOfTheGridInItsOwnOrder) {
  const std::string spec = R"({"a": {"grid_search": [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]}})";
  auto values = [&](uint64_t seed) {
    auto g = MakeVariantGenerator(Json::parse(spec), 2, seed, nullptr, true);
    EXPECT_TRUE(g.ok());
    std::vector<int> out;
    for (const auto& s : All(**g)) out.push_back(s.config["a"].get<int>());
    return out;
  };
  auto order = values(7);
  ASSERT_EQ(order.size(), 20u);
  std::vector<int> first(order.begin(), order.begin() + 10), second(order.begin() + 10, order.end());
  std::vector<int> grid = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9};
  EXPECT_NE(first, grid);
  EXPECT_NE(first, second);
  std::sort(first.begin(), first.end());
  std::sort(second.begin(), second.end());
  EXPECT_EQ(first, grid);  // every grid point once per repetition
  EXPECT_EQ(second, grid);
  EXPECT_EQ(values(7), order);
  EXPECT_NE(values(8), order);

  // Resumed half way, it goes on in the same order.
  auto g = MakeVariantGenerator(Json::parse(spec), 2, 7, nullptr, true);
  for (int i = 0; i < 13; ++i) ASSERT_TRUE((*g)->Next().ok());
  auto resumed = MakeVariantGenerator(Json::parse(spec), 2, 7, nullptr, true);
  ASSERT_TRUE((*resumed)->RestoreState((*g)->SaveState()).ok());
  auto rest = All(**resumed);
  ASSERT_EQ(rest.size(), 7u);
  for (size_t i = 0; i < rest.size(); ++i) EXPECT_EQ(rest[i].config["a"], order[13 + i]);
}

TEST(VariantGeneratorTest, GridsNestInObjectsAndLists) {
  auto g = Generator(R"({
    "model": {"layers": [{"grid_search": [64, 128]}, 32], "act": "relu"},
    "optim": {"lr": {"grid_search": [0.1, 0.0001234]}, "decay": {"choice": [true]}}})",
                     1);
  const auto all = All(*g);
  ASSERT_EQ(all.size(), 4u);
  EXPECT_EQ(all[0].config, Json::parse(R"({
    "model": {"layers": [64, 32], "act": "relu"}, "optim": {"lr": 0.1, "decay": true}})"));
  EXPECT_EQ(all[0].tag, "layers_0=64,decay=True,lr=0.1");
  EXPECT_EQ(all[1].tag, "layers_0=64,decay=True,lr=0.0001234");
  EXPECT_EQ(all[3].config["model"]["layers"], Json::parse("[128, 32]"));
}

TEST(VariantGeneratorTest, TagsShowSampledFloatsWithFiveSignificantDigits) {
  auto g = Generator(R"({"lr": {"loguniform": [1e-5, 1e-1]}, "n": {"randint": [1, 4]}})", 50);
  const std::regex tag(R"(lr=(\d\.\d{1,4}e-0\d|0\.\d{0,4}[1-9]\d{0,4}),n=[123])");
  for (const auto& s : All(*g)) {
    EXPECT_TRUE(std::regex_match(s.tag, tag)) << s.tag;
    EXPECT_TRUE(s.config["n"].is_number_integer());
    const double lr = s.config["lr"];
    EXPECT_TRUE(lr >= 1e-5 && lr < 1e-1) << lr;
  }
}

TEST(VariantGeneratorTest, TheSeedFixesTheSamples) {
  auto configs = [](uint64_t seed) {
    std::vector<Json> out;
    auto g = Generator(kTwoGridsTwoSamplers, 3, seed);
    for (const auto& s : All(*g)) out.push_back(s.config);
    return out;
  };
  EXPECT_EQ(configs(1), configs(1));
  EXPECT_NE(configs(1), configs(2));
}

TEST(VariantGeneratorTest, SampleFromSeesTheResolvedConfig) {
  std::vector<Json> seen;
  SampleFromFn fn = [&](const std::string& name, const Json& config) -> Result<Json> {
    seen.push_back(config);
    if (name == "twice_a") return Json(config["a"].get<double>() * 2);
    return Status::NotFound("no function " + name);
  };
  auto g = Generator(R"({"a": {"uniform": [0, 1]}, "b": {"sample_from": "twice_a"},
                         "c": {"grid_search": [1, 2]}})",
                     1, 0, fn);
  for (const auto& s : All(*g)) {
    EXPECT_DOUBLE_EQ(s.config["b"].get<double>(), 2 * s.config["a"].get<double>());
    EXPECT_NE(s.tag.find(",b="), std::string::npos) << s.tag;
  }
  ASSERT_EQ(seen.size(), 2u);
  EXPECT_TRUE(seen[0]["a"].is_number());
  EXPECT_TRUE(seen[0]["c"].is_number());

  auto bad = Generator(R"({"x": {"nested": {"sample_from": "missing"}}})", 1, 0, fn);
  auto next = bad->Next();
  ASSERT_FALSE(next.ok());
  EXPECT_EQ(next.status().message(), "config.x.nested: sample_from 'missing': no function missing");
}

TEST(VariantGeneratorTest, ErrorsNameThePath) {
  EXPECT_EQ(Error(R"({"lr": {"uniform": [1]}})"), "config.lr: uniform needs [low, high]");
  EXPECT_EQ(Error(R"({"opt": {"layers": [1, {"choice": []}]}})"),
            "config.opt.layers[1]: choice needs a non-empty list");
  EXPECT_EQ(Error(R"({"a": {"grid_search": [{"b": {"randint": [3, 3]}}]}})"),
            "config.a.b: randint needs integers [low, high) with low < high");
  EXPECT_EQ(Error(R"({"a": {"grid_search": [{"b": {"grid_search": [1]}}]}})"),
            "config.a.b: grid_search inside a grid_search value");
  EXPECT_EQ(Error(R"({"f": {"sample_from": "g"}})"),
            "config.f: sample_from 'g' but the trainable registers no functions");
  EXPECT_NE(
      MakeVariantGenerator(Json::object(), -1, 0, nullptr).status().message().find("num_samples"),
      std::string::npos);
}

TEST(VariantGeneratorTest, ALiteralSpecIsOneTrialPerSample) {
  auto g = Generator(R"({"lr": 0.1, "sizes": [1, 2]})", 3);
  const auto all = All(*g);
  ASSERT_EQ(all.size(), 3u);
  EXPECT_EQ(all[2].config, Json::parse(R"({"lr": 0.1, "sizes": [1, 2]})"));
  EXPECT_EQ(all[2].tag, "");
}

TEST(VariantGeneratorTest, ARestoredGeneratorContinuesWithoutRepeating) {
  auto full = Generator(kTwoGridsTwoSamplers, 2, 5);
  const auto expected = All(*full);
  auto first = Generator(kTwoGridsTwoSamplers, 2, 5);
  for (int i = 0; i < 7; ++i) ASSERT_TRUE(first->Next().ok());
  const Json state = first->SaveState();

  auto resumed = Generator(kTwoGridsTwoSamplers, 2, 5);
  ASSERT_TRUE(resumed->RestoreState(state).ok());
  const auto rest = All(*resumed);
  ASSERT_EQ(rest.size(), expected.size() - 7);
  for (size_t i = 0; i < rest.size(); ++i) {
    EXPECT_EQ(rest[i].config, expected[7 + i].config);
    EXPECT_EQ(rest[i].tag, expected[7 + i].tag);
  }
  EXPECT_FALSE(resumed->RestoreState(Json::parse(R"({"produced": 1})")).ok());
}

}  // namespace
}  // namespace ray::tune
