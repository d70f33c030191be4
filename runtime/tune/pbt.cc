// Population Based Training: Jaderberg et al., "Population Based Training of
// Neural Networks" (arXiv 1711.09846), asynchronous, as Ray Tune's
// PopulationBasedTraining does it.
//
// All trials form the population. Whenever a trial's time_attr has advanced by
// perturbation_interval since its last perturbation, its metric becomes its score
// and it is ranked among the unfinished trials that have one. In the bottom
// quantile_fraction it exploits a random trial of the top quantile (that trial's
// current checkpoint, saved now if needed) and explores that trial's config: each
// key of hyperparam_mutations is resampled with probability resample_probability,
// else a continuous value (a search-space node) is multiplied by 1.2 or 0.8 and a
// categorical one (a list) moves to a neighbouring value. The runner then resets
// the trial with the new config and the checkpoint. A trial not exploited yields to
// waiting trials, and ChooseTrialToRun resumes the one furthest behind in time, so
// a population larger than the cluster advances evenly.
//
// log_config appends [trial tag, cloned tag, trial iteration, cloned iteration,
// cloned config, new config] to pbt_global.txt and pbt_policy_<trial_id>.txt in
// the experiment dir (the parent of the trial's logdir), as Ray does.

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>

#include "runtime/tune/scheduler.h"
#include "runtime/tune/space.h"

namespace ray::tune {
namespace {

struct PbtOptions : SchedulerMetric {
  PbtOptions() { time_attr = "time_total_s"; }
  double perturbation_interval = 60;
  Json hyperparam_mutations;  // checked by CheckMutations
  double quantile_fraction = 0.25;
  double resample_probability = 0.25;
  bool log_config = true;
};

// "" when every value of `mutations` is a non-empty list, a choice, uniform,
// loguniform or randint node, or an object of such; else what is wrong, by path.
std::string CheckMutations(const Json& mutations, const std::string& path) {
  for (const auto& [key, value] : mutations.items()) {
    const std::string p = path + "." + key;
    auto node = ParseSpaceNode(value, p);
    if (!node.ok()) return node.status().message();
    if (*node) {
      const SpaceKind kind = (*node)->kind;
      if (kind == SpaceKind::kGridSearch || kind == SpaceKind::kSampleFrom) {
        return p + ": cannot be a grid_search or sample_from";
      }
    } else if (value.is_array()) {
      if (value.empty()) return p + ": needs a non-empty list";
    } else if (value.is_object() && !value.empty()) {
      if (auto error = CheckMutations(value, p); !error.empty()) return error;
    } else {
      return p + ": must be a list, a search-space node or an object of them";
    }
  }
  return "";
}

class PopulationBasedTraining : public TrialScheduler {
 public:
  PopulationBasedTraining(const PbtOptions& options, uint64_t seed) : o_(options), rng_(seed) {}

  // Keys of hyperparam_mutations missing from the config are sampled now.
  void OnTrialAdd(TrialRunner&, Trial& trial) override {
    StateOf(trial);
    Fill(trial.config, o_.hyperparam_mutations);
  }

  Decision OnTrialResult(TrialRunner& runner, Trial& trial, const Json& result) override {
    const auto t = ResultNumber(result, o_.time_attr);
    const auto metric = ResultNumber(result, o_.metric);
    if (!t || !metric) return Decision::kContinue;
    State& state = StateOf(trial);
    if (*t - state.last_perturbation_time < o_.perturbation_interval) return Decision::kContinue;
    state.last_score = o_.metric_op * *metric;
    state.last_train_time = *t;
    state.last_perturbation_time = *t;

    auto [lower, upper] = Quantiles(runner);
    if (std::find(lower.begin(), lower.end(), &trial) != lower.end() &&
        Exploit(runner, trial, *upper[UniformInt(rng_, static_cast<int64_t>(upper.size()))],
                result)) {
      return Decision::kContinue;
    }
    for (const Trial* other : runner.Trials()) {
      if (other->status == TrialStatus::kPending || other->status == TrialStatus::kPaused) {
        return Decision::kPause;  // yield time to the others
      }
    }
    return Decision::kContinue;
  }

  // The waiting trial that has trained the least.
  Trial* ChooseTrialToRun(TrialRunner& runner) override {
    Trial* best = nullptr;
    for (Trial* t : runner.Trials()) {
      if ((t->status != TrialStatus::kPending && t->status != TrialStatus::kPaused) ||
          !runner.HasResources(*t)) {
        continue;
      }
      if (!best || StateOf(*t).last_train_time < StateOf(*best).last_train_time) best = t;
    }
    return best;
  }

  std::string DebugString() const override {
    return "PopulationBasedTraining: " + std::to_string(num_checkpoints_) + " checkpoints, " +
           std::to_string(num_perturbations_) + " perturbs";
  }

 private:
  struct State {
    std::string orig_tag;
    std::optional<double> last_score;  // signed: larger is better
    double last_perturbation_time = 0;
    double last_train_time = 0;
  };

  State& StateOf(const Trial& trial) {
    auto [it, added] = states_.try_emplace(trial.trial_id);
    if (added) it->second.orig_tag = trial.experiment_tag;
    return it->second;
  }

  // {bottom, top} quantiles of the unfinished trials with a score; both empty
  // with fewer than two such trials.
  std::pair<std::vector<Trial*>, std::vector<Trial*>> Quantiles(TrialRunner& runner) {
    std::vector<Trial*> scored;
    for (Trial* t : runner.Trials()) {
      const bool finished =
          t->status == TrialStatus::kTerminated || t->status == TrialStatus::kError;
      if (!finished && StateOf(*t).last_score) scored.push_back(t);
    }
    if (scored.size() <= 1) return {};
    std::stable_sort(scored.begin(), scored.end(), [&](Trial* a, Trial* b) {
      return *StateOf(*a).last_score < *StateOf(*b).last_score;
    });
    auto n =
        static_cast<size_t>(std::ceil(static_cast<double>(scored.size()) * o_.quantile_fraction));
    n = std::min(n, scored.size() / 2);
    return {std::vector<Trial*>(scored.begin(), scored.begin() + n),
            std::vector<Trial*>(scored.end() - n, scored.end())};
  }

  // A checkpoint of `top` as it is now: its latest if that is current, else a
  // new one if it is running; a paused trial's latest is where it would resume.
  std::optional<std::string> CheckpointOf(TrialRunner& runner, Trial& top) {
    const auto iteration = top.Metric("training_iteration").value_or(0);
    if (!top.checkpoint.empty() && static_cast<double>(top.checkpoint_iteration) >= iteration) {
      return top.checkpoint;
    }
    if (top.status == TrialStatus::kRunning) {
      auto saved = runner.SaveCheckpoint(top);
      if (!saved.ok()) return std::nullopt;
      ++num_checkpoints_;
      return *saved;
    }
    if (!top.checkpoint.empty()) return top.checkpoint;
    return std::nullopt;
  }

  // Restarts `trial` from `top`'s checkpoint with a perturbed copy of its config.
  // False when there is nothing to clone or the reset failed.
  bool Exploit(TrialRunner& runner, Trial& trial, Trial& top, const Json& result) {
    if (&trial == &top) return false;
    const auto checkpoint = CheckpointOf(runner, top);
    if (!checkpoint) return false;
    Json config = Explore(top.config, o_.hyperparam_mutations);
    std::vector<std::pair<std::string, Json>> vars;
    for (const auto& [key, value] : o_.hyperparam_mutations.items()) {
      vars.emplace_back(key, config.value(key, Json()));
    }
    State& state = StateOf(trial);
    const State& top_state = StateOf(top);
    const std::string tag = state.orig_tag + "@perturbed[" + FormatTag(vars) + "]";
    if (o_.log_config) LogPolicy(trial, top, result, config);
    if (!runner.ResetTrial(trial, config, tag, *checkpoint).ok()) return false;
    ++num_perturbations_;
    state.last_perturbation_time = top_state.last_perturbation_time;
    state.last_train_time = top_state.last_train_time;
    return true;
  }

  Json Sample(const Json& mutation) {
    if (mutation.is_array())
      return mutation[UniformInt(rng_, static_cast<int64_t>(mutation.size()))];
    auto node = ParseSpaceNode(mutation, "");
    if (node.ok() && *node) return SampleSpaceNode(**node, rng_);
    Json out = Json::object();
    for (const auto& [key, value] : mutation.items()) out[key] = Sample(value);
    return out;
  }

  void Fill(Json& config, const Json& mutations) {
    if (!config.is_object()) config = Json::object();
    for (const auto& [key, mutation] : mutations.items()) {
      auto node = ParseSpaceNode(mutation, "");
      const bool nested = mutation.is_object() && node.ok() && !*node;
      if (!config.contains(key)) {
        config[key] = Sample(mutation);
      } else if (nested && config[key].is_object()) {
        Fill(config[key], mutation);
      }
    }
  }

  // Ray's explore(): the perturbed copy of `config`.
  Json Explore(const Json& config, const Json& mutations) {
    Json out = config;
    for (const auto& [key, mutation] : mutations.items()) {
      if (!config.contains(key)) {
        out[key] = Sample(mutation);
        continue;
      }
      const Json& value = config[key];
      auto node = ParseSpaceNode(mutation, "");
      if (mutation.is_array()) {
        auto it = std::find(mutation.begin(), mutation.end(), value);
        if (UniformReal(rng_) < o_.resample_probability || it == mutation.end()) {
          out[key] = Sample(mutation);
        } else {
          const auto i = static_cast<size_t>(it - mutation.begin());
          out[key] = UniformReal(rng_) > 0.5 ? mutation[i == 0 ? 0 : i - 1]
                                             : mutation[std::min(i + 1, mutation.size() - 1)];
        }
      } else if (node.ok() && *node) {
        if (UniformReal(rng_) < o_.resample_probability || !value.is_number()) {
          out[key] = Sample(mutation);
        } else {
          const double v = value.get<double>() * (UniformReal(rng_) > 0.5 ? 1.2 : 0.8);
          out[key] = value.is_number_integer() ? Json(static_cast<int64_t>(v)) : Json(v);
        }
      } else if (value.is_object()) {
        out[key] = Explore(value, mutation);
      }
    }
    return out;
  }

  void LogPolicy(const Trial& trial, const Trial& top, const Json& result, const Json& config) {
    if (trial.logdir.empty()) return;
    namespace fs = std::filesystem;
    const fs::path dir = fs::path(trial.logdir).parent_path();
    const Json policy = {StateOf(trial).orig_tag,
                         StateOf(top).orig_tag,
                         result.value("training_iteration", Json(0)),
                         top.last_result.is_object()
                             ? top.last_result.value("training_iteration", Json(0))
                             : Json(0),
                         top.config,
                         config};
    const fs::path mine = dir / ("pbt_policy_" + trial.trial_id + ".txt");
    const fs::path theirs = dir / ("pbt_policy_" + top.trial_id + ".txt");
    std::error_code ec;  // logging is best effort
    if (fs::exists(theirs, ec))
      fs::copy_file(theirs, mine, fs::copy_options::overwrite_existing, ec);
    std::ofstream(dir / "pbt_global.txt", std::ios::app) << policy.dump() << "\n";
    std::ofstream(mine, std::ios::app) << policy.dump() << "\n";
  }

  PbtOptions o_;
  Rng rng_;
  std::map<std::string, State> states_;  // by trial id
  int num_checkpoints_ = 0;
  int num_perturbations_ = 0;
};

}  // namespace

Result<std::unique_ptr<TrialScheduler>> MakePopulationBasedTraining(const Json& config,
                                                                    uint64_t seed) {
  KeywordArgs args("PopulationBasedTraining", config);
  PbtOptions o;
  ReadSchedulerMetric(args, o);
  o.perturbation_interval = args.Number("perturbation_interval", o.perturbation_interval);
  o.hyperparam_mutations = args.Raw("hyperparam_mutations");
  o.quantile_fraction = args.Number("quantile_fraction", o.quantile_fraction);
  o.resample_probability = args.Number("resample_probability", o.resample_probability);
  o.log_config = args.Bool("log_config", o.log_config);
  args.Check(o.perturbation_interval > 0, "perturbation_interval", "must be > 0");
  args.Check(o.quantile_fraction >= 0 && o.quantile_fraction <= 0.5, "quantile_fraction",
             "must be in [0, 0.5]");
  args.Check(o.resample_probability >= 0 && o.resample_probability <= 1, "resample_probability",
             "must be in [0, 1]");
  const Json& m = o.hyperparam_mutations;
  args.Check(m.is_object() && !m.empty(), "hyperparam_mutations",
             "must be a non-empty object (what to mutate and how)");
  if (m.is_object()) {
    if (auto error = CheckMutations(m, "hyperparam_mutations"); !error.empty()) args.Error(error);
  }
  RAY_RETURN_IF_ERROR(args.Finish());
  return std::unique_ptr<TrialScheduler>(std::make_unique<PopulationBasedTraining>(o, seed));
}

}  // namespace ray::tune
