#include "runtime/gcs/placement_groups.h"

#include <fmt/format.h>

#include <set>
#include <tuple>
#include <utility>

#include "runtime/base/hex.h"
#include "runtime/base/logging.h"
#include "runtime/base/util.h"
#include "runtime/scheduler/bundle_resources.h"

namespace ray::gcs {

namespace {

using scheduler::BundleNode;
using scheduler::ResourceSet;

constexpr size_t kMaxBundles = 1000;

bool Live(const PlacementGroupRecord& pg) { return pg.state != kPgRemoved; }

std::vector<ResourceSet> BundleSets(const PlacementGroupRecord& pg) {
  std::vector<ResourceSet> out;
  for (const auto& b : pg.bundles) out.push_back(ResourceSet::FromDoubles(b));
  return out;
}

std::string Printable(const std::string& node_id) { return ToHex(node_id).substr(0, 12); }

}  // namespace

Result<std::unique_ptr<PlacementGroups>> PlacementGroups::Load(GcsStore* store) {
  std::unique_ptr<PlacementGroups> t(new PlacementGroups(store));
  RAY_ASSIGN_OR_RETURN(t->groups_, store->LoadPlacementGroups());
  for (size_t i = 0; i < t->groups_.size(); ++i) {
    auto& pg = t->groups_[i];
    pg.bundle_nodes.resize(pg.bundles.size());
    pg.reserved.assign(pg.bundles.size(), 0);  // the raylets say again what they hold
    t->by_id_[pg.pg_id] = i;
  }
  // Raylets that saw the old counter look at their waiting tasks again.
  t->version_ = static_cast<uint64_t>(NowMillis());
  return t;
}

PlacementGroupRecord* PlacementGroups::Find(const std::string& pg_id) {
  auto it = by_id_.find(pg_id);
  return it == by_id_.end() ? nullptr : &groups_[it->second];
}

void PlacementGroups::Save(const PlacementGroupRecord& pg) {
  if (Status st = store_->PutPlacementGroup(pg); !st.ok()) {
    RAY_LOG_ERROR("storing placement group {}: {}", pg.pg_id, st.message());
  }
}

Result<PlacementGroupRecord> PlacementGroups::Create(const std::string& body,
                                                     const std::vector<BundleNode>& nodes,
                                                     bool may_grow) {
  using Args = std::tuple<std::string, std::string, std::vector<std::map<std::string, double>>,
                          std::string>;
  RAY_ASSIGN_OR_RETURN(Args args,
                       protocol::DecodeBody<Args>(body, "create_placement_group body"));
  auto& [name, strategy_name, bundles, job_id] = args;
  auto strategy = scheduler::ParsePlacementStrategy(strategy_name);
  if (!strategy) {
    return Status::InvalidArgument(fmt::format(
        "unknown placement strategy '{}': one of PACK, SPREAD, STRICT_PACK, STRICT_SPREAD",
        strategy_name));
  }
  if (bundles.empty()) return Status::InvalidArgument("a placement group needs at least one bundle");
  if (bundles.size() > kMaxBundles) {
    return Status::InvalidArgument(
        fmt::format("a placement group has at most {} bundles ({} given)", kMaxBundles,
                    bundles.size()));
  }
  for (size_t i = 0; i < bundles.size(); ++i) {
    if (Status st = protocol::CheckResourceRequest(bundles[i]); !st.ok()) {
      return Status::InvalidArgument(fmt::format("bundle {}: {}", i, st.message()));
    }
    for (const auto& [resource, amount] : bundles[i]) {
      if (scheduler::IsBundleResourceName(resource)) {
        return Status::InvalidArgument(fmt::format(
            "bundle {}: resource '{}' is reserved (names with '_group_' are made by "
            "placement groups)",
            i, resource));
      }
    }
    if (ResourceSet::FromDoubles(bundles[i]).empty()) {
      return Status::InvalidArgument(fmt::format(
          "bundle {} reserves nothing: every bundle asks for some resource above zero", i));
    }
  }
  if (!name.empty()) {
    for (const auto& pg : groups_) {
      if (Live(pg) && pg.name == name) {
        return Status::AlreadyExists(
            fmt::format("placement group name '{}' is taken (by {})", name, pg.pg_id));
      }
    }
  }
  PlacementGroupRecord pg;
  if (!may_grow) {
    Status fits = scheduler::CheckBundlesFit(
        [&] {
          std::vector<ResourceSet> sets;
          for (const auto& b : bundles) sets.push_back(ResourceSet::FromDoubles(b));
          return sets;
        }(),
        *strategy, nodes);
    if (!fits.ok()) {
      return Status::FailedPrecondition(fmt::format(
          "placement group {}cannot be placed on this cluster, now or later: {} (no "
          "autoscaler runs to add nodes)",
          name.empty() ? "" : "'" + name + "' ", fits.message()));
    }
  }
  // Ray's layout: 14 unique bytes, then the job's id.
  pg.pg_id = ToHex(RandomBytes(14) + job_id);
  pg.name = name;
  pg.strategy = scheduler::PlacementStrategyName(*strategy);
  pg.bundles = bundles;
  pg.bundle_nodes.assign(bundles.size(), "");
  pg.reserved.assign(bundles.size(), 0);
  pg.state = kPgPending;
  pg.job_id = job_id;
  pg.created_ms = NowMillis();
  pg.detail = "waiting for resources";
  RAY_RETURN_IF_ERROR(store_->PutPlacementGroup(pg));
  by_id_[pg.pg_id] = groups_.size();
  groups_.push_back(pg);
  waiting_ = true;
  RAY_LOG_INFO("placement group {} ({}, {} bundles) created PENDING", pg.pg_id, pg.strategy,
               pg.bundles.size());
  Schedule(nodes);
  return *Find(pg.pg_id);
}

Status PlacementGroups::Remove(const std::string& pg_id, const std::string& why) {
  PlacementGroupRecord* pg = Find(pg_id);
  if (!pg) return Status::NotFound(fmt::format("placement group {} not found", pg_id));
  if (!Live(*pg)) return Status::Ok();
  pg->state = kPgRemoved;
  pg->detail = why;
  std::fill(pg->bundle_nodes.begin(), pg->bundle_nodes.end(), "");
  std::fill(pg->reserved.begin(), pg->reserved.end(), 0);
  ++version_;
  Save(*pg);
  RAY_LOG_INFO("placement group {} removed: {}", pg_id, why);
  return Status::Ok();
}

Result<PlacementGroupRecord> PlacementGroups::Get(const std::string& pg_id,
                                                  const std::string& name) const {
  if (!pg_id.empty()) {
    auto it = by_id_.find(pg_id);
    if (it == by_id_.end()) return Status::NotFound(fmt::format("placement group {} not found", pg_id));
    return groups_[it->second];
  }
  for (const auto& pg : groups_) {
    if (Live(pg) && pg.name == name) return pg;
  }
  return Status::NotFound(fmt::format("placement group named '{}' not found", name));
}

void PlacementGroups::MaybeCreated(PlacementGroupRecord& pg) {
  if (pg.state != kPgPending && pg.state != kPgRescheduling) return;
  for (uint8_t r : pg.reserved) {
    if (!r) return;
  }
  pg.state = kPgCreated;
  pg.detail.clear();
  ++version_;
  Save(pg);
  RAY_LOG_INFO("placement group {} CREATED", pg.pg_id);
}

BundleSyncReply PlacementGroups::Sync(const BundleSync& sync) {
  BundleSyncReply reply;
  std::set<std::pair<std::string, int32_t>> held(sync.held.begin(), sync.held.end());
  for (const auto& [pg_id, index] : sync.refused) {
    PlacementGroupRecord* pg = Find(pg_id);
    if (!pg || !Live(*pg) || index < 0 || static_cast<size_t>(index) >= pg->bundles.size() ||
        pg->bundle_nodes[index] != sync.node_id || pg->reserved[index]) {
      continue;
    }
    // Placed on what the node had free a moment ago; it has less now.
    waiting_ = true;
    if (pg->state == kPgPending) {
      std::fill(pg->bundle_nodes.begin(), pg->bundle_nodes.end(), "");
      std::fill(pg->reserved.begin(), pg->reserved.end(), 0);
    } else {
      pg->bundle_nodes[index].clear();
    }
    Save(*pg);
  }
  for (auto& pg : groups_) {
    if (!Live(pg)) continue;
    bool changed = false;
    for (size_t i = 0; i < pg.bundles.size(); ++i) {
      if (pg.bundle_nodes[i] != sync.node_id) continue;
      uint8_t holds = held.count({pg.pg_id, static_cast<int32_t>(i)}) ? 1 : 0;
      changed |= holds != pg.reserved[i];
      pg.reserved[i] = holds;
      reply.wanted.push_back({pg.pg_id, static_cast<int32_t>(i), pg.bundles[i]});
    }
    if (changed) MaybeCreated(pg);
  }
  reply.groups_version = version_;
  return reply;
}

void PlacementGroups::OnNodeDead(const std::string& node_id) {
  for (auto& pg : groups_) {
    if (!Live(pg)) continue;
    bool lost = false;
    for (size_t i = 0; i < pg.bundles.size(); ++i) {
      if (pg.bundle_nodes[i] != node_id) continue;
      pg.bundle_nodes[i].clear();
      pg.reserved[i] = 0;
      lost = true;
    }
    if (!lost) continue;
    waiting_ = true;
    if (pg.state == kPgCreated) {
      pg.state = kPgRescheduling;
      pg.detail = "node " + Printable(node_id) + " died; placing its bundles again";
      ++version_;
    }
    Save(pg);
    RAY_LOG_WARN("placement group {}: node {} died with some of its bundles; placing them again",
                 pg.pg_id, Printable(node_id));
  }
}

void PlacementGroups::OnJobFinished(const std::string& job_id) {
  for (auto& pg : groups_) {
    if (Live(pg) && pg.job_id == job_id) {
      (void)Remove(pg.pg_id, "the job that created it finished");
    }
  }
}

void PlacementGroups::Schedule(const std::vector<BundleNode>& nodes) {
  if (!waiting_) return;
  waiting_ = false;
  std::vector<BundleNode> view = nodes;
  std::map<std::string, size_t> index;
  for (size_t j = 0; j < view.size(); ++j) index[view[j].id] = j;
  // Bundles placed on a node that has not reserved them yet are not in what it said
  // it has free.
  for (const auto& pg : groups_) {
    if (!Live(pg)) continue;
    for (size_t i = 0; i < pg.bundles.size(); ++i) {
      auto it = index.find(pg.bundle_nodes[i]);
      if (it != index.end() && !pg.reserved[i]) {
        view[it->second].available.Subtract(ResourceSet::FromDoubles(pg.bundles[i]));
      }
    }
  }
  for (auto& pg : groups_) {
    if (!Live(pg)) continue;
    bool unplaced = false;
    for (const auto& n : pg.bundle_nodes) unplaced |= n.empty();
    if (!unplaced) continue;
    auto strategy = scheduler::ParsePlacementStrategy(pg.strategy);
    auto sets = BundleSets(pg);
    auto where = scheduler::PlaceBundles(sets, strategy.value_or(scheduler::PlacementStrategy::kPack),
                                         pg.bundle_nodes, view);
    if (!where) {
      waiting_ = true;  // tried again with the next Schedule
      continue;
    }
    for (size_t i = 0; i < sets.size(); ++i) {
      if (!pg.bundle_nodes[i].empty()) continue;
      pg.bundle_nodes[i] = (*where)[i];
      view[index[(*where)[i]]].available.Subtract(sets[i]);
    }
    Save(pg);
  }
}

}  // namespace ray::gcs
