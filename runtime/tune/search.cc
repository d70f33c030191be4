// Ray's BasicVariantGenerator: the cartesian product of the grid_search axes,
// repeated num_samples times, each config with fresh random values.
//
// Config i (0-based) is repetition i / G of grid point i % G (G = the grid size).
// Grid axes are numbered in document order and the last one varies fastest; with
// `shuffle`, each repetition visits the grid in its own random order (the
// permutation of repetition r comes from the seed and r alone, so it survives
// resume).
// After the grid values are in place, random nodes (including any inside the
// chosen grid values) are sampled in document order, then sample_from nodes are
// evaluated, each given the config resolved so far. The state is the number of
// configs produced plus the random engine, so a resumed generator goes on where
// it stopped.

#include "runtime/tune/search.h"

#include "runtime/tune/space.h"

namespace ray::tune {
namespace {

class BasicVariantGenerator : public Searcher {
 public:
  BasicVariantGenerator(Json spec, std::vector<int64_t> grid, int64_t num_samples, uint64_t seed,
                        SampleFromFn sample_from, bool shuffle)
      : spec_(std::move(spec)),
        grid_(std::move(grid)),
        num_samples_(num_samples),
        seed_(seed),
        rng_(seed),
        sample_from_(std::move(sample_from)),
        shuffle_(shuffle) {}

  Result<std::optional<Suggestion>> Next() override {
    if (Finished()) return std::optional<Suggestion>();
    // The grid point's index on each axis, the last axis fastest.
    std::vector<int64_t> index(grid_.size());
    int64_t g = GridPoint(produced_);
    for (size_t a = grid_.size(); a-- > 0;) {
      index[a] = g % grid_[a];
      g /= grid_[a];
    }
    Suggestion s{spec_, ""};
    std::vector<std::pair<std::string, Json>> vars;  // for the tag, in document order
    std::vector<DeferredSample> deferred;
    size_t axis = 0;
    SpaceVisitor resolve = [&](Json& node, const SpaceNode& space,
                               const SpacePath& path) -> Status {
      const size_t var = vars.size();
      vars.emplace_back(path.key, Json());
      if (space.kind == SpaceKind::kGridSearch) {
        node = space.values[index[axis++]];
        RAY_RETURN_IF_ERROR(VisitSpaceNodes(node, path, resolve));
      } else if (space.kind == SpaceKind::kSampleFrom) {
        deferred.push_back({path, space.function, var});
        return Status::Ok();
      } else {
        node = SampleSpaceNode(space, rng_);
      }
      vars[var].second = node;
      return Status::Ok();
    };
    RAY_RETURN_IF_ERROR(VisitSpaceNodes(s.config, SpacePath{}, resolve));
    RAY_RETURN_IF_ERROR(EvaluateSampleFrom(s.config, deferred, sample_from_, vars));
    s.tag = FormatTag(vars);
    ++produced_;
    return std::optional<Suggestion>(std::move(s));
  }

  bool Finished() const override { return produced_ >= *Total(); }
  std::optional<int64_t> Total() const override { return GridSize() * num_samples_; }

  Json SaveState() const override { return {{"produced", produced_}, {"rng", SaveRng(rng_)}}; }

  Status RestoreState(const Json& state) override {
    if (!state.is_object() || !state.value("produced", Json()).is_number_integer() ||
        !state.value("rng", Json()).is_string() ||
        !RestoreRng(rng_, state["rng"].get<std::string>())) {
      return Status::InvalidArgument("not a variant generator state: " + state.dump());
    }
    produced_ = state["produced"].get<int64_t>();
    return Status::Ok();
  }

 private:
  // The grid point of config i.
  int64_t GridPoint(int64_t i) {
    const int64_t size = GridSize(), repetition = i / size;
    if (!shuffle_) return i % size;
    if (order_repetition_ != repetition) {
      order_.resize(size);
      for (int64_t k = 0; k < size; ++k) order_[k] = k;
      Rng order_rng(seed_ ^ (0x9e3779b97f4a7c15ULL * static_cast<uint64_t>(repetition + 1)));
      for (int64_t k = size - 1; k > 0; --k) std::swap(order_[k], order_[UniformInt(order_rng, k + 1)]);
      order_repetition_ = repetition;
    }
    return order_[i % size];
  }

  int64_t GridSize() const {
    int64_t n = 1;
    for (int64_t axis : grid_) n *= axis;
    return n;
  }

  Json spec_;
  std::vector<int64_t> grid_;  // each axis's number of values, in document order
  int64_t num_samples_;
  uint64_t seed_;
  Rng rng_;
  SampleFromFn sample_from_;
  bool shuffle_;
  std::vector<int64_t> order_;      // shuffle: grid points of one repetition, in visit order
  int64_t order_repetition_ = -1;   // the repetition order_ is for
  int64_t produced_ = 0;
};

}  // namespace

Result<std::unique_ptr<Searcher>> MakeVariantGenerator(const Json& spec, int64_t num_samples,
                                                       uint64_t seed, SampleFromFn sample_from,
                                                       bool shuffle) {
  if (num_samples < 0) return Status::InvalidArgument("num_samples must be >= 0");
  // Check every node now, so that Next() fails only in sample_from.
  std::vector<int64_t> grid;
  bool in_grid_value = false;
  SpaceVisitor check = [&](Json&, const SpaceNode& space, const SpacePath& path) -> Status {
    if (space.kind == SpaceKind::kSampleFrom && !sample_from) {
      return Status::InvalidArgument(path.text + ": sample_from '" + space.function +
                                     "' but the trainable registers no functions");
    }
    if (space.kind != SpaceKind::kGridSearch) return Status::Ok();
    if (in_grid_value) {
      return Status::InvalidArgument(path.text + ": grid_search inside a grid_search value");
    }
    grid.push_back(static_cast<int64_t>(space.values.size()));
    in_grid_value = true;
    for (Json value : space.values) RAY_RETURN_IF_ERROR(VisitSpaceNodes(value, path, check));
    in_grid_value = false;
    return Status::Ok();
  };
  Json copy = spec;
  RAY_RETURN_IF_ERROR(VisitSpaceNodes(copy, SpacePath{}, check));
  return std::unique_ptr<Searcher>(std::make_unique<BasicVariantGenerator>(
      spec, std::move(grid), num_samples, seed, std::move(sample_from), shuffle));
}

}  // namespace ray::tune
