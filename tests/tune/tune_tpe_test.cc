#include <gtest/gtest.h>

#include <cmath>

#include "runtime/tune/search.h"

namespace ray::tune {
namespace {

constexpr char kQuadratic[] = R"({"x": {"uniform": [-1, 1]}, "y": {"uniform": [-1, 1]},
                                  "fixed": "yes"})";

std::unique_ptr<Searcher> Tpe(const std::string& spec, Json config, int64_t num_samples,
                              uint64_t seed = 0) {
  if (!config.contains("metric")) config["metric"] = "score";
  auto s = MakeTpeSearcher(Json::parse(spec), config, num_samples, seed, nullptr);
  EXPECT_TRUE(s.ok()) << s.status().ToString();
  return s.ok() ? std::move(*s) : nullptr;
}

// Runs `searcher` sequentially on f(config); returns the best f seen.
double Optimize(Searcher& searcher, const std::function<double(const Json&)>& f) {
  double best = -HUGE_VAL;
  for (int i = 0; !searcher.Finished(); ++i) {
    auto next = searcher.Next();
    EXPECT_TRUE(next.ok() && *next);
    if (!next.ok() || !*next) break;
    const double score = f((*next)->config);
    best = std::max(best, score);
    searcher.OnTrialResult(i, {{"score", score}});
    searcher.OnTrialComplete(i, {{"score", score}, {"done", true}}, false);
  }
  return best;
}

double Quadratic(const Json& c) {
  const double x = c["x"], y = c["y"];
  return -((x - 0.3) * (x - 0.3) + (y + 0.2) * (y + 0.2));
}

TEST(TpeTest, BeatsRandomSearchOnAQuadraticWithTheSameBudget) {
  // 60 evaluations, 10 seeds; regret = optimum (0) - best found.
  double tpe_regret = 0, random_regret = 0;
  for (uint64_t seed = 0; seed < 10; ++seed) {
    auto tpe = Tpe(kQuadratic, {{"max_concurrent", 1}}, 60, seed);
    tpe_regret -= Optimize(*tpe, Quadratic) / 10;
    auto random = MakeVariantGenerator(Json::parse(kQuadratic), 60, seed, nullptr);
    random_regret -= Optimize(**random, Quadratic) / 10;
  }
  EXPECT_LT(tpe_regret, random_regret / 5) << "TPE " << tpe_regret << " random " << random_regret;
}

TEST(TpeTest, LearnsWhichChoiceIsBestAndMinimisesWhenAsked) {
  const std::string spec = R"({"opt": {"choice": ["sgd", "adam", "rmsprop", "adagrad"]},
                               "lr": {"loguniform": [1e-5, 1]}, "n": {"randint": [1, 10]}})";
  auto tpe = Tpe(spec, {{"mode", "min"}, {"max_concurrent", 1}}, 60, 3);
  int adam_late = 0;
  for (int i = 0; !tpe->Finished(); ++i) {
    auto next = tpe->Next();
    ASSERT_TRUE(next.ok() && *next);
    const Json& c = (*next)->config;
    EXPECT_TRUE(c["n"].is_number_integer() && c["n"] >= 1 && c["n"] < 10);
    const double lr = c["lr"];
    EXPECT_TRUE(lr >= 1e-5 && lr <= 1);
    if (i >= 40) adam_late += c["opt"] == "adam";
    // A loss: lowest for adam, lr near 1e-3 and large n.
    const double loss = (c["opt"] == "adam" ? 0 : 1) + std::abs(std::log10(lr) + 3) / 5 +
                        (10 - c["n"].get<int>()) * 0.01;
    tpe->OnTrialComplete(i, {{"score", loss}}, false);
  }
  EXPECT_GE(adam_late, 14);  // of the last 20; random would pick adam 5 times
}

TEST(TpeTest, WaitsWhileMaxConcurrentTrialsAreUnfinished) {
  auto tpe = Tpe(kQuadratic, {{"max_concurrent", 2}, {"n_initial_points", 1}}, 4);
  EXPECT_EQ(tpe->Total(), 4);
  ASSERT_TRUE(tpe->Next()->has_value());
  ASSERT_TRUE(tpe->Next()->has_value());
  EXPECT_FALSE(tpe->Next()->has_value());
  tpe->OnTrialResult(0, {{"score", 1}});
  EXPECT_FALSE(tpe->Next()->has_value());  // a result does not finish a trial
  tpe->OnTrialComplete(0, Json(), true);   // an error frees the slot too
  ASSERT_TRUE(tpe->Next()->has_value());
  tpe->OnTrialComplete(1, {{"score", 2}}, false);
  tpe->OnTrialComplete(2, {{"score", 3}}, false);
  ASSERT_TRUE(tpe->Next()->has_value());
  EXPECT_TRUE(tpe->Finished());
  EXPECT_FALSE(tpe->Next()->has_value());
}

TEST(TpeTest, ARestoredSearcherContinuesTheSameWay) {
  auto run = [](Searcher& s, int from, int to) {
    std::vector<Json> configs;
    for (int i = from; i < to; ++i) {
      auto next = s.Next();
      EXPECT_TRUE(next.ok() && *next);
      configs.push_back((*next)->config);
      s.OnTrialComplete(i, {{"score", Quadratic(configs.back())}}, false);
    }
    return configs;
  };
  auto a = Tpe(kQuadratic, {{"max_concurrent", 1}}, 30, 9);
  run(*a, 0, 15);
  const Json state = a->SaveState();
  const auto expected = run(*a, 15, 30);
  auto b = Tpe(kQuadratic, {{"max_concurrent", 1}}, 30, 123);
  ASSERT_TRUE(b->RestoreState(state).ok());
  EXPECT_EQ(run(*b, 15, 30), expected);
  EXPECT_TRUE(b->Finished());
}

TEST(TpeTest, RejectsGridSearchAndBadOptions) {
  auto grid = MakeTpeSearcher(Json::parse(R"({"a": {"b": {"grid_search": [1, 2]}}})"),
                              Json::object(), 10, 0, nullptr);
  ASSERT_FALSE(grid.ok());
  EXPECT_EQ(grid.status().message(),
            "config.a.b: grid_search is not supported by the TPE searcher (use choice)");
  auto bad_key = MakeTpeSearcher(Json::parse(kQuadratic), {{"n_initial", 3}}, 10, 0, nullptr);
  EXPECT_EQ(bad_key.status().message(), "TPE: unknown key 'n_initial'");
  auto bad_gamma = MakeTpeSearcher(Json::parse(kQuadratic), {{"gamma", 1.5}}, 10, 0, nullptr);
  EXPECT_EQ(bad_gamma.status().message(), "TPE: gamma must be in (0, 1)");
}

}  // namespace
}  // namespace ray::tune
