#include "runtime/cluster/autoscaler.h"

#include <algorithm>
#include <cmath>

#include "runtime/base/logging.h"
#include "runtime/cluster/node_setup.h"

namespace ray::cluster {

namespace {

using nlohmann::json;

constexpr int kMaxLaunchBatch = 5;         // nodes per create call (Ray's MAX_LAUNCH_BATCH)
constexpr int64_t kMaxDemandItems = 1000;  // Ray caps the demand it reports likewise
constexpr double kRecoverAfterS = 30;      // a set-up node without a raylet this long restarts
constexpr double kNodeStartWaitS = 900;    // a node without ray this long has failed

std::string Tag(const ProviderNode& n, const char* key) {
  auto it = n.tags.find(key);
  return it == n.tags.end() ? "" : it->second;
}

// The raylet of provider node `n`: by address on real hosts, by temp dir for
// fake_multinode nodes (which share one address).
const protocol::NodeInfo* RayNodeOf(const ProviderNode& n,
                                    const std::vector<protocol::NodeInfo>& alive) {
  for (const auto& info : alive) {
    bool same = n.ray_temp_dir.empty() ? info.address == n.ip
                                       : info.session_dir.rfind(n.ray_temp_dir + "/", 0) == 0;
    if (same) return &info;
  }
  return nullptr;
}

}  // namespace

Status Autoscaler::Update(const ClusterConfig& config, const ClusterView& view, double now_s,
                          double interval_s) {
  config_ = config;
  Reap(now_s, interval_s);
  RAY_ASSIGN_OR_RETURN(auto workers, provider_.NonTerminatedNodes({{kTagNodeKind, kKindWorker}}));
  scheduler::AutoscalingInput input = Observe(workers, view, now_s);
  scheduler::AutoscalingConfig policy = PolicyConfig();
  policy.head_resources = input.head_total;
  scheduler::AutoscalingDecision d = scheduler::Decide(policy, input);
  if (std::string s = d.Summary(); s != last_summary_) {
    RAY_LOG_INFO("{}", s);
    last_summary_ = s;
  }
  for (const auto& t : d.to_terminate) {
    // A node being set up goes once its setup ends (else ray would start on a host
    // already released).
    if (!setups_.Busy(t.node_id)) Terminate(workers, t.node_id, t.reason);
  }
  Status launched;
  if (now_s >= launch_hold_until_) {
    for (const auto& [type_name, count] : d.to_launch) {
      if (Status st = Launch(type_name, count); !st.ok()) launched = st;
    }
  }
  KeepUpToDate(workers, now_s);
  Report(workers, input, d);
  return launched;
}

scheduler::AutoscalingInput Autoscaler::Observe(const std::vector<ProviderNode>& workers,
                                                const ClusterView& view, double now_s) {
  scheduler::AutoscalingInput in;
  for (const auto& n : view.alive) {
    if (n.session_dir == view.head_session_dir) {
      in.head_total = n.total;
      in.head_available = n.available;
    }
    for (const auto& d : n.load) {
      int64_t take = std::min(d.count, kMaxDemandItems - static_cast<int64_t>(in.demand.size()));
      for (int64_t i = 0; i < take; ++i) in.demand.push_back(d.shape);
    }
  }
  for (const auto& w : workers) {
    scheduler::WorkerNodeView v;
    v.id = w.id;
    v.type = Tag(w, kTagUserNodeType);
    const NodeType* type = config_.FindType(v.type);
    v.outdated = type != nullptr && !config_.provider.value("disable_launch_config_check", false) &&
                 !Tag(w, kTagLaunchConfig).empty() &&
                 Tag(w, kTagLaunchConfig) != LaunchHash(config_, *type);
    const protocol::NodeInfo* ray = RayNodeOf(w, view.alive);
    v.ray_running = ray != nullptr;
    if (ray != nullptr) {
      v.total = ray->total;
      v.available = ray->available;
      bool busy = !ray->load.empty() || ray->available != ray->total;
      if (busy || !last_used_.count(w.id)) last_used_[w.id] = now_s;
      missing_since_.erase(w.id);
    } else {
      last_used_[w.id] = now_s;  // not up yet: not idle
      missing_since_.emplace(w.id, now_s);
    }
    // Failed: its setup failed, or it has not run ray within the start deadline.
    v.failed = Tag(w, kTagNodeStatus) == kStatusUpdateFailed ||
               (!setups_.Busy(w.id) && missing_since_.count(w.id) &&
                now_s - missing_since_[w.id] > kNodeStartWaitS);
    v.idle_s = now_s - last_used_[w.id];
    in.workers.push_back(std::move(v));
  }
  return in;
}

scheduler::AutoscalingConfig Autoscaler::PolicyConfig() const {
  scheduler::AutoscalingConfig c;
  bool first = true;
  for (const NodeType* t : config_.WorkerTypes()) {
    scheduler::NodeTypeSpec spec{t->name, t->resources, t->min_workers, t->max_workers};
    // initial_workers: a floor while the cluster first comes up (the legacy form).
    if (first && bringup_) spec.min_workers = std::max(spec.min_workers, config_.initial_workers);
    first = false;
    c.worker_types.push_back(spec);
  }
  c.max_workers = config_.max_workers;
  c.upscaling_speed = config_.upscaling_speed;
  c.idle_timeout_s = config_.idle_timeout_minutes * 60;
  c.target_utilization_fraction = config_.target_utilization_fraction;
  c.max_launch_batch = kMaxLaunchBatch;
  return c;
}

void Autoscaler::Terminate(const std::vector<ProviderNode>& workers, const std::string& id,
                           const std::string& reason) {
  RAY_LOG_INFO("terminating node {} ({})", id, reason);
  auto it = std::find_if(workers.begin(), workers.end(),
                         [&](const ProviderNode& n) { return n.id == id; });
  if (it != workers.end() && provider_.UsesNodeUpdaters()) setups_.StopRay(*it);
  if (Status st = provider_.TerminateNodes({id}); !st.ok()) {
    RAY_LOG_ERROR("terminating node {}: {}", id, st.message());
  }
  last_used_.erase(id);
  missing_since_.erase(id);
}

Status Autoscaler::Launch(const std::string& type_name, int count) {
  const NodeType* type = config_.FindType(type_name);
  if (type == nullptr) return Status::Ok();
  for (int left = count; left > 0; left -= kMaxLaunchBatch) {
    int batch = std::min(left, kMaxLaunchBatch);
    RAY_LOG_INFO("launching {} node(s) of type {}", batch, type_name);
    auto ids = provider_.CreateNodes(*type, NewNodeTags(config_, *type, false), batch);
    if (!ids.ok()) {
      ++launch_failures_;
      return Status(ids.status().code(), fmt::format("launching {} node(s) of type {}: {}", batch,
                                                     type_name, ids.status().message()));
    }
    if (static_cast<int>(ids->size()) < batch) {
      RAY_LOG_WARN("the provider made {} of {} node(s) of type {}", ids->size(), batch, type_name);
    }
  }
  return Status::Ok();
}

// Sets up nodes never set up, left mid-setup (by a monitor since restarted) or whose
// setup changed, and restarts ray on nodes whose raylet has been missing a while.
// Nodes that start ray themselves (fake_multinode) and lost it are replaced.
void Autoscaler::KeepUpToDate(const std::vector<ProviderNode>& workers, double now_s) {
  for (const auto& w : workers) {
    auto missing = missing_since_.find(w.id);
    bool lost = missing != missing_since_.end() && now_s - missing->second > kRecoverAfterS;
    if (!provider_.UsesNodeUpdaters()) {
      if (lost) Terminate(workers, w.id, "no raylet");
      continue;
    }
    const NodeType* type = config_.FindType(Tag(w, kTagUserNodeType));
    std::string status = Tag(w, kTagNodeStatus);
    if (setups_.Busy(w.id) || type == nullptr || status == kStatusUpdateFailed) continue;
    UpdateOptions u = WorkerUpdate(config_, *type, config_.ship_ray ? files_.runtime_dir : "",
                                   files_.token_file);
    bool current = status == kStatusUpToDate && Tag(w, kTagRuntimeConfig) == u.runtime_hash;
    if (current && !lost) continue;
    u.restart_only = current;  // set up already: ray only
    u.label = "worker " + w.ip;
    RAY_LOG_INFO("setting up node {} ({})", w.id, u.restart_only ? "restart only" : "full");
    setups_.Start(w, std::move(u));
    missing_since_.erase(w.id);
  }
}

void Autoscaler::Reap(double now_s, double interval_s) {
  for (const auto& [id, result] : setups_.Finished()) {
    if (result.ok()) {
      bringup_ = false;
      setup_failures_ = 0;
      continue;
    }
    // The policy replaces the node; a host that keeps failing is not retried at once.
    ++setup_failures_;
    double hold = std::min(300.0, interval_s * std::pow(2.0, std::min(setup_failures_, 8)));
    launch_hold_until_ = now_s + hold;
    RAY_LOG_ERROR("setting up node {} failed ({} in a row; no launches for {:.0f} s): {}", id,
                  setup_failures_, hold, result.message());
  }
}

void Autoscaler::Report(const std::vector<ProviderNode>& workers,
                        const scheduler::AutoscalingInput& input,
                        const scheduler::AutoscalingDecision& d) {
  json nodes = json::array();
  for (const auto& w : workers) {
    json n = {{"id", w.id}, {"ip", w.ip}, {"tags", w.tags}, {"updating", setups_.Busy(w.id)}};
    if (Tag(w, kTagNodeStatus) == kStatusUpdateFailed) n["setup_failed"] = true;
    for (const auto& v : input.workers) {
      if (v.id == w.id) n.update({{"ray_running", v.ray_running}, {"idle_s", v.idle_s}});
    }
    nodes.push_back(n);
  }
  json types = json::object();
  for (const NodeType* t : config_.WorkerTypes()) {
    types[t->name] = {{"resources", t->resources}, {"min_workers", t->min_workers},
                      {"max_workers", t->max_workers}};
  }
  status_ = {{"cluster_name", config_.cluster_name},
             {"provider", config_.provider_type},
             {"min_workers", config_.min_workers},
             {"max_workers", config_.max_workers},
             {"node_types", types},
             {"workers", nodes},
             {"demand", input.demand.size()},
             {"infeasible", d.infeasible},
             {"launching", d.to_launch},
             {"summary", last_summary_},
             {"launch_failures", launch_failures_},
             {"last_error", ""}};
}

}  // namespace ray::cluster
