#pragma once
// Where trial configs come from (Ray Tune's SearchAlgorithm). A config spec is a
// JSON tree in which some nodes describe a search space:
//
//   {"grid_search": [v1, v2, ...]}   every value: a grid axis (cartesian product)
//   {"choice": [v1, v2, ...]}        one value at random
//   {"uniform": [low, high]}         a float in [low, high)
//   {"loguniform": [low, high]}      log-uniform float in [low, high), low > 0
//   {"randint": [low, high]}         an integer in [low, high)
//   {"sample_from": "name"}          a function registered in the trainable's plugin,
//                                    given the config resolved so far (derived values)
//
// Any other object or value is taken literally. num_samples repeats the whole
// grid, each repetition with fresh random values (two 3-value grids and
// num_samples=10: 90 trials).

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "runtime/base/status.h"
#include "runtime/tune/trial.h"

namespace ray::tune {

// Evaluates {"sample_from": name} given the partly resolved config.
using SampleFromFn = std::function<Result<Json>(const std::string& name, const Json& config)>;

struct Suggestion {
  Json config;      // fully resolved
  std::string tag;  // "lr=0.1,momentum=0.9": the values chosen, for the trial's name
};

class Searcher {
 public:
  virtual ~Searcher() = default;
  // The next config, or nullopt when none is available right now (a model-based
  // searcher waiting for results, max_concurrent reached) or ever (Finished()).
  // An error (a bad spec, a failing sample_from) ends the experiment.
  virtual Result<std::optional<Suggestion>> Next() = 0;
  // No config will ever come again.
  virtual bool Finished() const = 0;
  // Results of the trials it suggested, in the order Next() returned them
  // (`trial` is that order, 0-based).
  virtual void OnTrialResult(int trial, const Json& result) {}
  virtual void OnTrialComplete(int trial, const Json& last_result, bool error) {}
  // Trials it will suggest in total, if known (grid × num_samples).
  virtual std::optional<int64_t> Total() const { return std::nullopt; }
  // Where it is, so that a resumed experiment does not suggest a config twice.
  virtual Json SaveState() const = 0;
  virtual Status RestoreState(const Json& state) = 0;
};

// Ray's BasicVariantGenerator: grid × random sampling (the last grid axis varies
// fastest; `shuffle`: each repetition of the grid in a random order). InvalidArgument
// names a malformed space node by its path ("config.lr: uniform needs [low, high]").
Result<std::unique_ptr<Searcher>> MakeVariantGenerator(const Json& spec, int64_t num_samples,
                                                       uint64_t seed, SampleFromFn sample_from,
                                                       bool shuffle = false);

// A model-based searcher: Tree-structured Parzen Estimators (Bergstra et al. 2011)
// over the spec's uniform, loguniform, randint and choice nodes (no grid_search).
// `config`: {"metric", "mode" ("max"|"min"), "max_concurrent" (default 10),
// "n_initial_points" (default 10, random), "gamma" (default 0.25)}. Suggests
// num_samples configs in total, each after the results it can learn from.
Result<std::unique_ptr<Searcher>> MakeTpeSearcher(const Json& spec, const Json& config,
                                                  int64_t num_samples, uint64_t seed,
                                                  SampleFromFn sample_from);

}  // namespace ray::tune
