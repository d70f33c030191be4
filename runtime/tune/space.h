#pragma once
// Pieces shared by the searchers and schedulers: search-space nodes (the JSON
// syntax in search.h), seeded sampling, Python-style value formatting for tags and
// status lines, and the keyword-argument reader behind MakeScheduler and
// MakeTpeSearcher. Internal to runtime/tune.

#include <cstdint>
#include <functional>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "runtime/base/status.h"
#include "runtime/tune/search.h"
#include "runtime/tune/trial.h"

namespace ray::tune {

using Rng = std::mt19937_64;

// Uniform in [0, 1), from 53 random bits (the same on every standard library).
double UniformReal(Rng& rng);
// Uniform in [0, n); n > 0.
int64_t UniformInt(Rng& rng, int64_t n);
// Standard normal (Box-Muller).
double StandardNormal(Rng& rng);
// The engine's state as text, and back (false when `text` is not such a state).
std::string SaveRng(const Rng& rng);
bool RestoreRng(Rng& rng, const std::string& text);

enum class SpaceKind { kGridSearch, kChoice, kUniform, kLogUniform, kRandInt, kSampleFrom };

// One parsed search-space node.
struct SpaceNode {
  SpaceKind kind;
  Json values;     // grid_search, choice: the non-empty list
  double low = 0;  // uniform, loguniform, randint: [low, high)
  double high = 0;
  std::string function;  // sample_from: the registered name
};

// Where a node sits: a JSON pointer into the config, its name in error messages
// ("config.layers[0]") and its key in tags (the last object key, with any list
// indices after it: "layers_0").
struct SpacePath {
  Json::json_pointer pointer = Json::json_pointer("");
  std::string text = "config";
  std::string key;

  SpacePath Child(const std::string& k) const;
  SpacePath Child(size_t index) const;
};

// nullopt when `node` is not a search-space node (anything but a one-key object
// named after a kind); InvalidArgument naming `path` when it is a malformed one.
Result<std::optional<SpaceNode>> ParseSpaceNode(const Json& node, const std::string& path);

// Calls `visit` on every search-space node under `root` in document order (object
// keys sorted, list elements in order), without descending into the nodes. The
// first error stops the walk.
using SpaceVisitor =
    std::function<Status(Json& node, const SpaceNode& space, const SpacePath& path)>;
Status VisitSpaceNodes(Json& root, const SpacePath& root_path, const SpaceVisitor& visit);

// A number in a result (nullopt when absent or not a number).
std::optional<double> ResultNumber(const Json& result, const std::string& key);

// A random value of a choice, uniform, loguniform or randint node.
Json SampleSpaceNode(const SpaceNode& space, Rng& rng);

// The sample_from nodes of one config, evaluated after every other node is
// resolved, in document order, each seeing the config resolved so far.
struct DeferredSample {
  SpacePath path;
  std::string function;
  size_t tag_index;  // where its value goes in the tag's list
};
Status EvaluateSampleFrom(Json& config, const std::vector<DeferredSample>& deferred,
                          const SampleFromFn& sample_from,
                          std::vector<std::pair<std::string, Json>>& tag_vars);

// Python's "{:.5}" of a float (0.1 -> "0.1", 1.0 -> "1.0", 12345.0 -> "1.2345e+04").
std::string FormatFloat5(double v);
// Python's repr of a float (3.0 -> "3.0", 0.25 -> "0.25").
std::string FormatFloatRepr(double v);
// "lr=0.1,momentum=0.9": each key=value in order, floats as FormatFloat5, strings
// as they are with '/' replaced by '_' (Ray's format_vars).
std::string FormatTag(const std::vector<std::pair<std::string, Json>>& vars);

// Keyword arguments of a scheduler or searcher: a JSON object (or null for none)
// read key by key with defaults. The first error wins; it names the owner and the
// key ("AsyncHyperBand: grace_period must be > 0"). Keys never read are unknown.
class KeywordArgs {
 public:
  KeywordArgs(std::string owner, const Json& args);

  double Number(const std::string& key, double default_value);
  int64_t Integer(const std::string& key, int64_t default_value);
  bool Bool(const std::string& key, bool default_value);
  std::string String(const std::string& key, const std::string& default_value);
  // "mode": "max" (the default) is +1, "min" is -1: the factor that makes
  // larger always better.
  double Mode();
  // The raw value, null when absent.
  Json Raw(const std::string& key);
  // Records "<owner>: <key> <what>" as the error unless `ok`.
  void Check(bool ok, const std::string& key, const std::string& what);
  // Records "<owner>: <message>" as the error.
  void Error(const std::string& message);
  // The first error, else InvalidArgument for the first unknown key, else Ok.
  Status Finish() const;

 private:
  const Json* Find(const std::string& key);

  std::string owner_;
  Json args_;
  std::set<std::string> read_;
  Status status_;
};

// What every scheduler optimises: the result field that measures time (time_attr),
// the metric, and its direction.
struct SchedulerMetric {
  std::string time_attr;
  std::string metric = "episode_reward_mean";
  double metric_op = 1;  // mode "max": +1, "min": -1
};

// Reads time_attr, metric and mode into `m` (its time_attr is the default).
void ReadSchedulerMetric(KeywordArgs& args, SchedulerMetric& m);

}  // namespace ray::tune
