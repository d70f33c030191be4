// Tree-structured Parzen Estimators: Bergstra, Bardenet, Bengio, Kegl, "Algorithms
// for Hyper-Parameter Optimization" (NeurIPS 2011), the estimator hyperopt's
// tpe.suggest uses.
//
// The first n_initial_points configs (and any before two trials have finished
// with the metric) are random. After that, the finished trials are split at the
// gamma quantile of the metric into good (the best ceil(gamma * n), at least one)
// and bad, and each parameter gets two Parzen estimators, l(x) from the good
// values and g(x) from the bad ones:
//   - uniform, loguniform (in log space), randint (as a float in [low, high]):
//     a mixture of truncated Gaussians, one per observation plus one wide prior
//     component, each as wide as the larger gap to its neighbours (clipped to
//     [range / min(100, n + 1), range]), as in hyperopt's adaptive Parzen;
//   - choice: the category frequencies with one pseudo-count each.
// Like hyperopt, parameters are treated independently: for each one, 24
// candidates are drawn from l and the one maximising l(x) / g(x) (the expected
// improvement, up to a monotone transform) is taken.

#include <algorithm>
#include <cmath>
#include <numeric>

#include "runtime/tune/search.h"
#include "runtime/tune/space.h"

namespace ray::tune {
namespace {

constexpr int kCandidates = 24;

struct TpeOptions {
  std::string metric = "episode_reward_mean";
  double metric_op = 1;  // mode "max": +1, "min": -1
  int64_t max_concurrent = 10;
  int64_t n_initial_points = 10;
  double gamma = 0.25;
};

double NormalCdf(double z) { return 0.5 * std::erfc(-z / std::sqrt(2.0)); }

// A mixture of Gaussians truncated to [low, high].
class Parzen {
 public:
  Parzen(std::vector<double> obs, double low, double high) : low_(low), high_(high) {
    const double range = high - low;
    const size_t prior = obs.size();
    obs.push_back((low + high) / 2);
    std::vector<size_t> order(obs.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t a, size_t b) { return obs[a] < obs[b]; });
    const double min_sigma = range / std::min(100.0, 1.0 + static_cast<double>(obs.size()));
    for (size_t i = 0; i < order.size(); ++i) {
      const double mu = obs[order[i]];
      const double left = i > 0 ? mu - obs[order[i - 1]] : 0;
      const double right = i + 1 < order.size() ? obs[order[i + 1]] - mu : 0;
      double sigma = std::clamp(std::max(left, right), min_sigma, range);
      if (order[i] == prior) sigma = range;
      mus_.push_back(mu);
      sigmas_.push_back(sigma);
    }
  }

  double Sample(Rng& rng) const {
    const size_t k = static_cast<size_t>(UniformInt(rng, static_cast<int64_t>(mus_.size())));
    for (int tries = 0; tries < 100; ++tries) {
      const double x = mus_[k] + sigmas_[k] * StandardNormal(rng);
      if (x >= low_ && x <= high_) return x;
    }
    return std::clamp(mus_[k], low_, high_);
  }

  double LogPdf(double x) const {
    double p = 0;
    for (size_t k = 0; k < mus_.size(); ++k) {
      const double s = sigmas_[k];
      const double mass = NormalCdf((high_ - mus_[k]) / s) - NormalCdf((low_ - mus_[k]) / s);
      const double z = (x - mus_[k]) / s;
      p += std::exp(-0.5 * z * z) / (s * std::sqrt(2 * M_PI) * std::max(mass, 1e-12));
    }
    return std::log(p / static_cast<double>(mus_.size()) + 1e-300);
  }

 private:
  double low_, high_;
  std::vector<double> mus_, sigmas_;
};

// Category frequencies with one pseudo-count each.
class CategoricalModel {
 public:
  CategoricalModel(const std::vector<double>& obs, size_t k) : p_(k, 1.0) {
    for (double x : obs) p_[static_cast<size_t>(x)] += 1;
    const double total = std::accumulate(p_.begin(), p_.end(), 0.0);
    for (double& p : p_) p /= total;
  }

  double Sample(Rng& rng) const {
    double u = UniformReal(rng);
    for (size_t i = 0; i < p_.size(); ++i) {
      if ((u -= p_[i]) < 0) return static_cast<double>(i);
    }
    return static_cast<double>(p_.size() - 1);
  }

  double LogPdf(double x) const { return std::log(p_[static_cast<size_t>(x)]); }

 private:
  std::vector<double> p_;
};

class TpeSearcher : public Searcher {
 public:
  // One search-space node of the spec, in document order.
  struct Node {
    SpacePath path;
    SpaceNode space;
  };

  TpeSearcher(Json spec, std::vector<Node> nodes, const TpeOptions& options, int64_t num_samples,
              uint64_t seed, SampleFromFn sample_from)
      : spec_(std::move(spec)),
        nodes_(std::move(nodes)),
        o_(options),
        num_samples_(num_samples),
        rng_(seed),
        sample_from_(std::move(sample_from)) {
    for (size_t i = 0; i < nodes_.size(); ++i) {
      if (nodes_[i].space.kind != SpaceKind::kSampleFrom) params_.push_back(i);
    }
  }

  Result<std::optional<Suggestion>> Next() override {
    if (Finished() || Live() >= o_.max_concurrent) return std::optional<Suggestion>();
    const std::vector<double> x = Propose();
    Suggestion s{spec_, ""};
    std::vector<std::pair<std::string, Json>> vars(nodes_.size());
    std::vector<DeferredSample> deferred;
    for (size_t i = 0, p = 0; i < nodes_.size(); ++i) {
      const Node& n = nodes_[i];
      vars[i].first = n.path.key;
      if (n.space.kind == SpaceKind::kSampleFrom) {
        deferred.push_back({n.path, n.space.function, i});
      } else {
        vars[i].second = s.config[n.path.pointer] = Value(n.space, x[p++]);
      }
    }
    RAY_RETURN_IF_ERROR(EvaluateSampleFrom(s.config, deferred, sample_from_, vars));
    s.tag = FormatTag(vars);
    points_.push_back({x, std::nullopt, std::nullopt, false});
    return std::optional<Suggestion>(std::move(s));
  }

  bool Finished() const override { return static_cast<int64_t>(points_.size()) >= num_samples_; }
  std::optional<int64_t> Total() const override { return num_samples_; }

  void OnTrialResult(int trial, const Json& result) override {
    if (trial < 0 || trial >= static_cast<int>(points_.size())) return;
    if (auto m = ResultNumber(result, o_.metric)) points_[trial].latest = o_.metric_op * *m;
  }

  void OnTrialComplete(int trial, const Json& last_result, bool error) override {
    if (trial < 0 || trial >= static_cast<int>(points_.size()) || points_[trial].done) return;
    Point& p = points_[trial];
    p.done = true;
    if (error) return;
    auto m = ResultNumber(last_result, o_.metric);
    p.score = m ? std::optional<double>(o_.metric_op * *m) : p.latest;
  }

  Json SaveState() const override {
    Json points = Json::array();
    for (const auto& p : points_) {
      points.push_back(
          {{"x", p.x}, {"score", p.score ? Json(*p.score) : Json()}, {"done", p.done}});
    }
    return {{"rng", SaveRng(rng_)}, {"points", points}};
  }

  Status RestoreState(const Json& state) override {
    auto bad = [&] { return Status::InvalidArgument("not a TPE searcher state: " + state.dump()); };
    if (!state.is_object() || !state.value("points", Json()).is_array() ||
        !state.value("rng", Json()).is_string()) {
      return bad();
    }
    std::vector<Point> points;
    for (const auto& p : state["points"]) {
      if (!p.is_object() || !p.value("x", Json()).is_array() || p["x"].size() != params_.size()) {
        return bad();
      }
      const Json score = p.value("score", Json());
      points.push_back(
          {p["x"].get<std::vector<double>>(),
           score.is_number() ? std::optional<double>(score.get<double>()) : std::nullopt,
           std::nullopt, p.value("done", false)});
    }
    if (!RestoreRng(rng_, state["rng"].get<std::string>())) return bad();
    points_ = std::move(points);
    return Status::Ok();
  }

 private:
  struct Point {
    std::vector<double> x;         // per parameter, in model space (see Value)
    std::optional<double> score;   // signed metric once finished; larger is better
    std::optional<double> latest;  // signed metric of the latest result
    bool done;
  };

  int64_t Live() const {
    return std::count_if(points_.begin(), points_.end(), [](const Point& p) { return !p.done; });
  }

  // The range of the float that stands for a uniform, loguniform (its log) or
  // randint (value + 0.5) parameter; a choice stands for its index.
  static std::pair<double, double> Bounds(const SpaceNode& s) {
    switch (s.kind) {
      case SpaceKind::kLogUniform:
        return {std::log(s.low), std::log(s.high)};
      default:
        return {s.low, s.high};
    }
  }

  static Json Value(const SpaceNode& s, double x) {
    switch (s.kind) {
      case SpaceKind::kUniform:
        return std::clamp(x, s.low, s.high);
      case SpaceKind::kLogUniform:
        return std::clamp(std::exp(x), s.low, s.high);
      case SpaceKind::kRandInt:
        return static_cast<int64_t>(std::clamp(std::floor(x), s.low, s.high - 1));
      default:
        return s.values[static_cast<size_t>(x)];  // choice
    }
  }

  double RandomX(const SpaceNode& s) {
    if (s.kind == SpaceKind::kChoice) {
      return static_cast<double>(UniformInt(rng_, static_cast<int64_t>(s.values.size())));
    }
    if (s.kind == SpaceKind::kRandInt) return SampleSpaceNode(s, rng_).get<double>() + 0.5;
    const auto [low, high] = Bounds(s);
    return low + UniformReal(rng_) * (high - low);
  }

  std::vector<double> Propose() {
    std::vector<const Point*> scored;
    for (const auto& p : points_) {
      if (p.score) scored.push_back(&p);
    }
    std::vector<double> x;
    if (static_cast<int64_t>(points_.size()) < o_.n_initial_points || scored.size() < 2) {
      for (size_t i : params_) x.push_back(RandomX(nodes_[i].space));
      return x;
    }
    std::stable_sort(scored.begin(), scored.end(),
                     [](const Point* a, const Point* b) { return *a->score > *b->score; });
    const size_t n = scored.size();
    const size_t n_good = std::min(
        n - 1,
        std::max<size_t>(1, static_cast<size_t>(std::ceil(o_.gamma * static_cast<double>(n)))));
    for (size_t d = 0; d < params_.size(); ++d) {
      std::vector<double> good, bad;
      for (size_t i = 0; i < n; ++i) (i < n_good ? good : bad).push_back(scored[i]->x[d]);
      x.push_back(Best(nodes_[params_[d]].space, good, bad));
    }
    return x;
  }

  // The candidate drawn from l (good) that maximises l(x) / g(x).
  double Best(const SpaceNode& s, const std::vector<double>& good, const std::vector<double>& bad) {
    auto argmax = [&](const auto& l, const auto& g) {
      double best = 0, best_score = -HUGE_VAL;
      for (int c = 0; c < kCandidates; ++c) {
        const double x = l.Sample(rng_);
        const double score = l.LogPdf(x) - g.LogPdf(x);
        if (score > best_score) best = x, best_score = score;
      }
      return best;
    };
    if (s.kind == SpaceKind::kChoice) {
      return argmax(CategoricalModel(good, s.values.size()),
                    CategoricalModel(bad, s.values.size()));
    }
    const auto [low, high] = Bounds(s);
    return argmax(Parzen(good, low, high), Parzen(bad, low, high));
  }

  Json spec_;
  std::vector<Node> nodes_;
  std::vector<size_t> params_;  // indices into nodes_ of the modelled (not sample_from) nodes
  TpeOptions o_;
  int64_t num_samples_;
  Rng rng_;
  SampleFromFn sample_from_;
  std::vector<Point> points_;  // one per suggestion, in order
};

}  // namespace

Result<std::unique_ptr<Searcher>> MakeTpeSearcher(const Json& spec, const Json& config,
                                                  int64_t num_samples, uint64_t seed,
                                                  SampleFromFn sample_from) {
  KeywordArgs args("TPE", config);
  TpeOptions o;
  o.metric = args.String("metric", o.metric);
  o.metric_op = args.Mode();
  o.max_concurrent = args.Integer("max_concurrent", o.max_concurrent);
  o.n_initial_points = args.Integer("n_initial_points", o.n_initial_points);
  o.gamma = args.Number("gamma", o.gamma);
  args.Check(o.max_concurrent >= 1, "max_concurrent", "must be >= 1");
  args.Check(o.n_initial_points >= 0, "n_initial_points", "must be >= 0");
  args.Check(o.gamma > 0 && o.gamma < 1, "gamma", "must be in (0, 1)");
  RAY_RETURN_IF_ERROR(args.Finish());
  if (num_samples < 0) return Status::InvalidArgument("num_samples must be >= 0");

  std::vector<TpeSearcher::Node> nodes;
  Json copy = spec;
  RAY_RETURN_IF_ERROR(VisitSpaceNodes(
      copy, SpacePath{}, [&](Json&, const SpaceNode& space, const SpacePath& path) -> Status {
        if (space.kind == SpaceKind::kGridSearch) {
          return Status::InvalidArgument(
              path.text + ": grid_search is not supported by the TPE searcher (use choice)");
        }
        if (space.kind == SpaceKind::kSampleFrom && !sample_from) {
          return Status::InvalidArgument(path.text + ": sample_from '" + space.function +
                                         "' but the trainable registers no functions");
        }
        nodes.push_back({path, space});
        return Status::Ok();
      }));
  return std::unique_ptr<Searcher>(std::make_unique<TpeSearcher>(
      spec, std::move(nodes), o, num_samples, seed, std::move(sample_from)));
}

}  // namespace ray::tune
