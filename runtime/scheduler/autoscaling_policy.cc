// The autoscaler's policy, one call per tick (Ray 1.x StandardAutoscaler._update and
// resource_demand_scheduler.get_nodes_to_launch, simplified; Ray 0.7's
// target_utilization_fraction rule as an option):
//
// 1. Resolve each type's resources: its own, else the total of a running worker of the
//    type, else the head's. Split the demand: a shape that fits neither the head's total
//    nor an empty node of a type with max_workers > 0 is infeasible; the rest is sorted
//    descending by (number of resource kinds, sum of amounts, shape).
// 2. Terminate failed, unknown-type and outdated workers. Idle workers (running,
//    nothing in use, idle_s >= idle_timeout_s) are candidates: the demand is packed
//    first-fit onto the head, the other workers and the launches in flight, then onto
//    the candidates, most recently used first; a candidate that receives any demand is
//    kept. The others go, longest idle first, while their type keeps min_workers (and,
//    with the 0.7 rule, the cluster keeps its target). Then the excess over a type's
//    max_workers and over max_workers goes ("max workers"): not-running nodes first,
//    then nodes with nothing in use (longest idle first), then busy ones.
// 3. Add nodes to bring each type to min(min_workers, max_workers).
// 4. Capacity = head available + running workers' available + the full resources of
//    listed-but-not-running workers, launches in flight and the nodes of step 3. Pack
//    the demand first-fit onto it; while a residual remains, add one node of the type
//    with the best score (Ray's _resource_based_utilization_scorer: (no GPU node for a
//    demand without GPUs, number of resource kinds the node shares with the demand,
//    min over its kinds of capacity * utilisation^3, mean of those)) and drop what
//    fits on that node. Types at their max_workers and the global max stop this.
// 5. 0.7 rule: used = sum over running nodes, head included, of max_r used_r/total_r;
//    target workers = ceil(used / fraction) - 1 (the head); nodes of the first type
//    are added up to it.
// 6. Rate limits: per type, new <= max(max_launch_batch, floor(upscaling_speed *
//    max(running, 1))) - pending (listed not running + in flight), or the step-3 count
//    if larger (Ray bypasses the rate for min_workers); then in flight + new <=
//    max_concurrent_launches, step-3 launches first, types in the order given (the cluster config gives them by name).

#include "runtime/scheduler/autoscaling_policy.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <set>
#include <tuple>

#include "runtime/scheduler/resources.h"

namespace ray::scheduler {
namespace {

using Amounts = std::map<std::string, double>;

ResourceSet Set(const Amounts& amounts) { return ResourceSet::FromDoubles(amounts); }

bool NothingInUse(const WorkerNodeView& w) { return Set(w.available) == Set(w.total); }

// max over resources of used / total: Ray 0.7's LoadMetrics "NumNodesUsed" share.
double NodeUsage(const Amounts& total, const Amounts& available) {
  double usage = 0;
  for (const auto& [name, amount] : total) {
    if (amount <= 0) continue;
    auto it = available.find(name);
    double left = it == available.end() ? 0 : it->second;
    usage = std::max(usage, (amount - left) / amount);
  }
  return usage;
}

// Places each demand (already sorted) on the first node that holds it, taking it from
// that node. Returns the demands that fit nowhere; marks the nodes used in `used`.
std::vector<ResourceSet> FirstFit(std::vector<ResourceSet>& nodes,
                                  const std::vector<ResourceSet>& demand,
                                  std::vector<bool>* used = nullptr) {
  std::vector<ResourceSet> residual;
  for (const auto& d : demand) {
    auto node = std::find_if(nodes.begin(), nodes.end(),
                             [&](const ResourceSet& n) { return n.Contains(d); });
    if (node == nodes.end()) {
      residual.push_back(d);
      continue;
    }
    node->Subtract(d);
    if (used != nullptr) (*used)[node - nodes.begin()] = true;
  }
  return residual;
}

// Ray's utilisation score of one new node for the residual demand, compared
// lexicographically: (not a GPU node for demand without GPUs, resource kinds shared with
// the demand, min over the node's kinds of capacity * util^3, mean of those).
using Score = std::tuple<bool, int, double, double>;

// The score, or nullopt if no demand fits on the node.

std::optional<Score> ScoreNode(const ResourceSet& node, const std::vector<ResourceSet>& demand) {
  ResourceSet remaining = node;
  std::set<std::string> kinds;
  bool fits_any = false;
  for (const auto& d : demand) {
    for (const auto& [name, amount] : d.ToDoubles()) kinds.insert(name);
    if (!remaining.Contains(d)) continue;
    remaining.Subtract(d);
    fits_any = true;
  }
  if (!fits_any) return std::nullopt;
  Amounts capacity = node.ToDoubles(), left = remaining.ToDoubles();
  int matching = 0;
  double min_util = std::numeric_limits<double>::infinity(), sum_util = 0;
  int n = 0;
  for (const auto& [name, amount] : capacity) {
    if (amount < 1) continue;  // as Ray: no division by tiny capacities
    matching += kinds.count(name);
    double util = (amount - left[name]) / amount;
    min_util = std::min(min_util, amount * util * util * util);
    sum_util += amount * util * util * util;
    ++n;
  }
  if (n == 0) return std::nullopt;
  bool gpu_ok = capacity.count("GPU") == 0 || kinds.count("GPU") > 0;
  return Score{gpu_ok, matching, min_util, sum_util / n};
}

struct TypeState {
  const NodeTypeSpec* spec;
  ResourceSet resources;  // resolved (step 1)
  int running = 0;        // listed, kept, ray running
  int pending = 0;        // listed, kept, not running yet; plus launches in flight
  int min_add = 0, demand_add = 0, util_add = 0;
  int Count() const { return running + pending + min_add + demand_add + util_add; }
};

class Planner {
 public:
  Planner(const AutoscalingConfig& config, const AutoscalingInput& input)
      : config_(config), input_(input) {}

  AutoscalingDecision Run() {
    ResolveTypes();
    SplitDemand();
    if (config_.target_utilization_fraction > 0) target_workers_ = UtilizationTarget();
    TerminateBroken();
    TerminateIdle();
    TerminateOverMax();
    CountSurvivors();
    AddMinWorkers();
    AddForDemand();
    AddForUtilization();
    ApplyLaunchLimits();
    return std::move(decision_);
  }

 private:
  TypeState* Type(const std::string& name) {
    auto it = type_index_.find(name);
    return it == type_index_.end() ? nullptr : &types_[it->second];
  }

  void ResolveTypes() {
    for (const auto& spec : config_.worker_types) {
      if (type_index_.count(spec.name)) continue;
      type_index_[spec.name] = types_.size();
      types_.push_back({&spec, Set(spec.resources)});
    }
    for (auto& t : types_) {
      if (!t.resources.empty()) continue;
      for (const auto& w : input_.workers) {
        if (w.type != t.spec->name || !w.ray_running || Set(w.total).empty()) continue;
        t.resources = Set(w.total);
        break;
      }
      if (t.resources.empty()) t.resources = Set(config_.head_resources);
    }
  }

  bool Feasible(const ResourceSet& shape) const {
    if (Set(input_.head_total).Contains(shape)) return true;
    return std::any_of(types_.begin(), types_.end(), [&](const TypeState& t) {
      return t.spec->max_workers > 0 && t.resources.Contains(shape);
    });
  }

  void SplitDemand() {
    std::vector<Amounts> feasible;
    std::set<Amounts> seen;
    for (const auto& shape : input_.demand) {
      ResourceSet set = Set(shape);
      if (set.empty()) continue;
      if (Feasible(set)) {
        feasible.push_back(set.ToDoubles());
      } else if (seen.insert(set.ToDoubles()).second) {
        decision_.infeasible.push_back(set.ToDoubles());
      }
    }
    auto key = [](const Amounts& a) {
      double sum = 0;
      for (const auto& [name, amount] : a) sum += amount;
      return std::make_tuple(a.size(), sum, a);
    };
    std::stable_sort(feasible.begin(), feasible.end(),
                     [&](const Amounts& a, const Amounts& b) { return key(a) > key(b); });
    for (const auto& shape : feasible) demand_.push_back(Set(shape));
  }

  int UtilizationTarget() const {
    double used = NodeUsage(input_.head_total, input_.head_available);
    for (const auto& w : input_.workers) {
      if (w.ray_running) used += NodeUsage(w.total, w.available);
    }
    // The epsilon keeps 1 / 0.5 at 2 when the division rounds up by an ulp.
    int target = static_cast<int>(std::ceil(used / config_.target_utilization_fraction - 1e-9));
    return std::clamp(target - 1, 0, std::max(config_.max_workers, 0));
  }

  void Terminate(const WorkerNodeView& w, const char* reason) {
    decision_.to_terminate.push_back({w.id, reason});
  }

  void TerminateBroken() {
    for (const auto& w : input_.workers) {
      if (Type(w.type) == nullptr) {
        Terminate(w, "unknown type");
      } else if (w.failed) {
        Terminate(w, "launch failed");
      } else if (w.outdated) {
        Terminate(w, "outdated");
      } else {
        alive_.push_back(&w);
      }
    }
  }

  // What a kept worker offers to the demand.
  ResourceSet Capacity(const WorkerNodeView& w) {
    return w.ray_running ? Set(w.available) : Type(w.type)->resources;
  }

  std::vector<ResourceSet> InFlightCapacity() {
    std::vector<ResourceSet> nodes;
    for (const auto& [name, count] : input_.launches_in_flight) {
      if (TypeState* t = Type(name)) nodes.insert(nodes.end(), std::max(count, 0), t->resources);
    }
    return nodes;
  }

  bool IsIdle(const WorkerNodeView& w) const {
    return w.ray_running && w.idle_s >= config_.idle_timeout_s && NothingInUse(w);
  }

  void TerminateIdle() {
    std::vector<const WorkerNodeView*> candidates;
    std::vector<ResourceSet> nodes{Set(input_.head_available)};
    for (const auto* w : alive_) {
      if (IsIdle(*w)) {
        candidates.push_back(w);
      } else {
        nodes.push_back(Capacity(*w));
      }
    }
    for (auto& n : InFlightCapacity()) nodes.push_back(std::move(n));
    std::sort(candidates.begin(), candidates.end(), [](const auto* a, const auto* b) {
      return std::tie(a->idle_s, a->id) < std::tie(b->idle_s, b->id);
    });
    const size_t first_candidate = nodes.size();
    for (const auto* w : candidates) nodes.push_back(Capacity(*w));
    std::vector<bool> used(nodes.size(), false);
    FirstFit(nodes, demand_, &used);

    std::map<std::string, int> count;
    for (const auto* w : alive_) ++count[w->type];
    int total = static_cast<int>(alive_.size());
    std::set<const WorkerNodeView*> gone;
    for (size_t i = candidates.size(); i-- > 0;) {  // longest idle first
      const WorkerNodeView* w = candidates[i];
      if (used[first_candidate + i]) continue;
      if (count[w->type] <= Type(w->type)->spec->min_workers) continue;
      if (total <= target_workers_) continue;
      Terminate(*w, "idle");
      gone.insert(w);
      --count[w->type];
      --total;
    }
    std::erase_if(alive_, [&](const auto* w) { return gone.count(w) > 0; });
  }

  void TerminateOverMax() {
    // Victims first: not running, then nothing in use (longest idle first), then busy.
    auto rank = [](const WorkerNodeView* w) {
      int state = !w->ray_running ? 0 : NothingInUse(*w) ? 1 : 2;
      return std::make_tuple(state, -w->idle_s, w->id);
    };
    std::sort(alive_.begin(), alive_.end(),
              [&](const auto* a, const auto* b) { return rank(a) < rank(b); });
    std::map<std::string, int> count;
    for (const auto* w : alive_) ++count[w->type];
    std::vector<const WorkerNodeView*> kept;
    for (const auto* w : alive_) {
      if (count[w->type] > Type(w->type)->spec->max_workers) {
        Terminate(*w, "max workers");
        --count[w->type];
      } else {
        kept.push_back(w);
      }
    }
    const size_t max = std::max(config_.max_workers, 0);
    const size_t excess = kept.size() > max ? kept.size() - max : 0;
    for (size_t i = 0; i < excess; ++i) Terminate(*kept[i], "max workers");
    alive_.assign(kept.begin() + excess, kept.end());
  }

  void CountSurvivors() {
    for (const auto* w : alive_) {
      TypeState* t = Type(w->type);
      ++(w->ray_running ? t->running : t->pending);
    }
    for (const auto& [name, count] : input_.launches_in_flight) {
      in_flight_ += std::max(count, 0);  // unknown names too: they hold a launch slot
      if (TypeState* t = Type(name)) t->pending += std::max(count, 0);
    }
  }

  // Kept workers, launches in flight and the launches decided so far.
  int Workers() const {
    int workers = static_cast<int>(alive_.size()) + in_flight_;
    for (const auto& t : types_) workers += t.min_add + t.demand_add + t.util_add;
    return workers;
  }

  // Nodes the global max_workers still allows.
  int GlobalRoom() const { return std::max(config_.max_workers - Workers(), 0); }

  void AddMinWorkers() {
    for (auto& t : types_) {
      int want = std::min(t.spec->min_workers, t.spec->max_workers) - t.Count();
      t.min_add = std::clamp(want, 0, GlobalRoom());
    }
  }

  void AddForDemand() {
    std::vector<ResourceSet> nodes{Set(input_.head_available)};
    for (const auto* w : alive_) nodes.push_back(Capacity(*w));
    for (auto& n : InFlightCapacity()) nodes.push_back(std::move(n));
    for (const auto& t : types_) nodes.insert(nodes.end(), t.min_add, t.resources);
    std::vector<ResourceSet> residual = FirstFit(nodes, demand_);
    while (!residual.empty() && GlobalRoom() > 0) {
      TypeState* best = nullptr;
      std::optional<Score> best_score;
      for (auto& t : types_) {
        if (t.Count() >= t.spec->max_workers) continue;
        std::optional<Score> score = ScoreNode(t.resources, residual);
        if (score && (!best_score || *score > *best_score)) best = &t, best_score = score;
      }
      if (best == nullptr) break;
      ++best->demand_add;
      std::vector<ResourceSet> one{best->resources};
      residual = FirstFit(one, residual);
    }
  }

  void AddForUtilization() {
    if (target_workers_ < 0 || types_.empty()) return;
    TypeState& t = types_.front();
    int want = std::min(target_workers_ - Workers(), t.spec->max_workers - t.Count());
    t.util_add = std::clamp(want, 0, GlobalRoom());
  }

  void ApplyLaunchLimits() {
    std::vector<int> allowed;
    for (const auto& t : types_) {
      int rate = std::max(config_.max_launch_batch,
                          static_cast<int>(config_.upscaling_speed * std::max(t.running, 1))) -
                 t.pending;
      allowed.push_back(std::min(t.min_add + t.demand_add + t.util_add, std::max(rate, t.min_add)));
    }
    int room = std::max(config_.max_concurrent_launches - in_flight_, 0);
    std::vector<int> launch(types_.size(), 0);
    for (size_t i = 0; i < types_.size(); ++i) {  // min_workers first
      launch[i] = std::min(types_[i].min_add, room);
      room -= launch[i];
    }
    for (size_t i = 0; i < types_.size(); ++i) {
      int more = std::min(allowed[i] - launch[i], room);
      launch[i] += more;
      room -= more;
      if (launch[i] > 0) decision_.to_launch[types_[i].spec->name] = launch[i];
    }
  }

  const AutoscalingConfig& config_;
  const AutoscalingInput& input_;
  std::vector<TypeState> types_;  // the order given
  std::map<std::string, size_t> type_index_;
  std::vector<ResourceSet> demand_;           // feasible, sorted for first-fit
  std::vector<const WorkerNodeView*> alive_;  // listed workers not terminated
  int in_flight_ = 0;
  int target_workers_ = -1;  // the 0.7 rule's target; -1 when off
  AutoscalingDecision decision_;
};

}  // namespace

std::string AutoscalingDecision::Summary() const {
  std::vector<std::string> parts;
  std::string launch;
  for (const auto& [type, count] : to_launch) {
    launch += (launch.empty() ? "launch " : ", ") + std::to_string(count) + " x " + type;
  }
  if (!launch.empty()) parts.push_back(launch);
  std::string terminate;
  for (const auto& t : to_terminate) {
    terminate += (terminate.empty() ? "terminate " : ", ") + t.node_id + " (" + t.reason + ")";
  }
  if (!terminate.empty()) parts.push_back(terminate);
  std::string infeasible;
  for (const auto& shape : this->infeasible) {
    infeasible += (infeasible.empty() ? "infeasible " : ", ") + Set(shape).ToString();
  }
  if (!infeasible.empty()) parts.push_back(infeasible);
  if (parts.empty()) return "no change";
  std::string out = parts[0];
  for (size_t i = 1; i < parts.size(); ++i) out += "; " + parts[i];
  return out;
}

AutoscalingDecision Decide(const AutoscalingConfig& config, const AutoscalingInput& input) {
  return Planner(config, input).Run();
}

}  // namespace ray::scheduler
