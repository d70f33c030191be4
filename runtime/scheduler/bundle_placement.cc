#include "runtime/scheduler/bundle_placement.h"

#include <fmt/format.h>

#include <functional>
#include <map>

namespace ray::scheduler {

namespace {

// Maximum bipartite matching (Kuhn's augmenting paths): bundles `todo` to nodes,
// each node at most one bundle, bundle b may go to node j if fits(b, j). Returns the
// node index per todo entry (-1: unmatched).
std::vector<int> Match(const std::vector<size_t>& todo, size_t num_nodes,
                       const std::function<bool(size_t bundle, size_t node)>& fits) {
  std::vector<int> node_of(todo.size(), -1);
  std::vector<int> owner(num_nodes, -1);  // todo index per node
  std::function<bool(size_t, std::vector<bool>&)> augment = [&](size_t t, std::vector<bool>& seen) {
    for (size_t j = 0; j < num_nodes; ++j) {
      if (seen[j] || !fits(todo[t], j)) continue;
      seen[j] = true;
      if (owner[j] < 0 || augment(static_cast<size_t>(owner[j]), seen)) {
        owner[j] = static_cast<int>(t);
        node_of[t] = static_cast<int>(j);
        return true;
      }
    }
    return false;
  };
  for (size_t t = 0; t < todo.size(); ++t) {
    std::vector<bool> seen(num_nodes, false);
    augment(t, seen);
  }
  return node_of;
}

std::string NodeTotals(const std::vector<BundleNode>& nodes) {
  std::string out;
  for (size_t i = 0; i < nodes.size() && i < 5; ++i) {
    out += (i ? ", " : "") + nodes[i].total.ToString();
  }
  if (nodes.size() > 5) out += fmt::format(" and {} more", nodes.size() - 5);
  return out;
}

}  // namespace

std::optional<PlacementStrategy> ParsePlacementStrategy(std::string_view name) {
  if (name == "PACK") return PlacementStrategy::kPack;
  if (name == "SPREAD") return PlacementStrategy::kSpread;
  if (name == "STRICT_PACK") return PlacementStrategy::kStrictPack;
  if (name == "STRICT_SPREAD") return PlacementStrategy::kStrictSpread;
  return std::nullopt;
}

const char* PlacementStrategyName(PlacementStrategy s) {
  switch (s) {
    case PlacementStrategy::kPack: return "PACK";
    case PlacementStrategy::kSpread: return "SPREAD";
    case PlacementStrategy::kStrictPack: return "STRICT_PACK";
    case PlacementStrategy::kStrictSpread: return "STRICT_SPREAD";
  }
  return "PACK";
}

std::optional<std::vector<std::string>> PlaceBundles(const std::vector<ResourceSet>& bundles,
                                                     PlacementStrategy strategy,
                                                     const std::vector<std::string>& placed,
                                                     const std::vector<BundleNode>& nodes) {
  std::vector<std::string> out = placed;
  out.resize(bundles.size());
  std::map<std::string, size_t> index;
  for (size_t j = 0; j < nodes.size(); ++j) index[nodes[j].id] = j;
  std::vector<ResourceSet> avail;
  for (const auto& n : nodes) avail.push_back(n.available);
  std::vector<int> count(nodes.size(), 0);  // bundles of the group per node
  std::vector<size_t> todo;
  for (size_t i = 0; i < bundles.size(); ++i) {
    if (out[i].empty()) {
      todo.push_back(i);
    } else if (auto it = index.find(out[i]); it != index.end()) {
      ++count[it->second];
    }
  }
  if (todo.empty()) return out;
  ResourceSet sum;
  for (size_t i : todo) sum.Add(bundles[i]);
  auto used = [&](size_t j) { return count[j] > 0; };
  auto put = [&](size_t i, size_t j) {
    out[i] = nodes[j].id;
    avail[j].Subtract(bundles[i]);
    ++count[j];
  };

  switch (strategy) {
    case PlacementStrategy::kStrictPack: {
      std::optional<size_t> target;
      for (size_t i = 0; i < out.size(); ++i) {
        if (out[i].empty()) continue;
        auto it = index.find(out[i]);
        if (it == index.end() || (target && *target != it->second)) return std::nullopt;
        target = it->second;
      }
      if (!target) {
        for (size_t j = 0; j < nodes.size() && !target; ++j) {
          if (avail[j].Contains(sum)) target = j;
        }
      }
      if (!target || !avail[*target].Contains(sum)) return std::nullopt;
      for (size_t i : todo) put(i, *target);
      return out;
    }
    case PlacementStrategy::kPack: {
      // One node for all if possible, a node the group uses first.
      for (int pass = 0; pass < 2; ++pass) {
        for (size_t j = 0; j < nodes.size(); ++j) {
          if (used(j) == (pass == 0) && avail[j].Contains(sum)) {
            for (size_t i : todo) put(i, j);
            return out;
          }
        }
      }
      for (size_t i : todo) {
        std::optional<size_t> where;
        for (int pass = 0; pass < 2 && !where; ++pass) {
          for (size_t j = 0; j < nodes.size() && !where; ++j) {
            if (used(j) == (pass == 0) && avail[j].Contains(bundles[i])) where = j;
          }
        }
        if (!where) return std::nullopt;
        put(i, *where);
      }
      return out;
    }
    case PlacementStrategy::kStrictSpread:
    case PlacementStrategy::kSpread: {
      // As many bundles as possible each on a node of its own that the group does not use.
      std::vector<int> match = Match(todo, nodes.size(), [&](size_t i, size_t j) {
        return !used(j) && avail[j].Contains(bundles[i]);
      });
      std::vector<size_t> rest;
      for (size_t t = 0; t < todo.size(); ++t) {
        if (match[t] >= 0) continue;
        if (strategy == PlacementStrategy::kStrictSpread) return std::nullopt;
        rest.push_back(todo[t]);
      }
      for (size_t t = 0; t < todo.size(); ++t) {
        if (match[t] >= 0) put(todo[t], static_cast<size_t>(match[t]));
      }
      for (size_t i : rest) {  // SPREAD: then on the nodes with the fewest
        std::optional<size_t> where;
        for (size_t j = 0; j < nodes.size(); ++j) {
          if (avail[j].Contains(bundles[i]) && (!where || count[j] < count[*where])) where = j;
        }
        if (!where) return std::nullopt;
        put(i, *where);
      }
      return out;
    }
  }
  return std::nullopt;
}

Status CheckBundlesFit(const std::vector<ResourceSet>& bundles, PlacementStrategy strategy,
                       const std::vector<BundleNode>& nodes) {
  if (nodes.empty()) return Status::FailedPrecondition("the cluster has no live node");
  for (size_t i = 0; i < bundles.size(); ++i) {
    bool fits = false;
    for (const auto& n : nodes) fits |= n.total.Contains(bundles[i]);
    if (!fits) {
      return Status::FailedPrecondition(
          fmt::format("bundle {} {} is larger than any node of the cluster (node totals: {})", i,
                      bundles[i].ToString(), NodeTotals(nodes)));
    }
  }
  if (strategy == PlacementStrategy::kStrictPack) {
    ResourceSet sum;
    for (const auto& b : bundles) sum.Add(b);
    bool fits = false;
    for (const auto& n : nodes) fits |= n.total.Contains(sum);
    if (!fits) {
      return Status::FailedPrecondition(
          fmt::format("STRICT_PACK needs one node with {} for all {} bundles; none has that "
                      "much (node totals: {})",
                      sum.ToString(), bundles.size(), NodeTotals(nodes)));
    }
  }
  if (strategy == PlacementStrategy::kStrictSpread) {
    std::vector<size_t> all;
    for (size_t i = 0; i < bundles.size(); ++i) all.push_back(i);
    std::vector<int> match = Match(all, nodes.size(), [&](size_t i, size_t j) {
      return nodes[j].total.Contains(bundles[i]);
    });
    size_t matched = 0;
    for (int m : match) matched += m >= 0;
    if (matched < bundles.size()) {
      return Status::FailedPrecondition(fmt::format(
          "STRICT_SPREAD needs {} distinct nodes, one per bundle, and the cluster has {} "
          "node{} that can hold them ({} live)",
          bundles.size(), matched, matched == 1 ? "" : "s", nodes.size()));
    }
  }
  return Status::Ok();
}

}  // namespace ray::scheduler
