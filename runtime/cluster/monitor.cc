#include "runtime/cluster/monitor.h"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <thread>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "runtime/base/logging.h"
#include "runtime/base/util.h"
#include "runtime/base/yaml.h"
#include "runtime/cluster/cluster_config.h"
#include "runtime/cluster/node_provider.h"
#include "runtime/cluster/node_setup.h"
#include "runtime/gcs/gcs_client.h"
#include "runtime/scheduler/autoscaling_policy.h"

namespace ray::cluster {

namespace {

using nlohmann::json;

constexpr int kMaxLaunchBatch = 5;          // nodes per create call (Ray's MAX_LAUNCH_BATCH)
constexpr int64_t kMaxDemandItems = 1000;  // Ray caps the demand it reports likewise
constexpr double kRecoverAfterS = 30;      // a set-up node without a raylet this long restarts
constexpr double kMaxBackoffS = 60;
constexpr double kNodeStartWaitS = 900;   // a node without ray this long has failed
constexpr double kReportEveryS = 5;       // the GCS counts the autoscaler alive for 30 s

// The provider, shared by the loop and the updater threads one call at a time.
class SerializedProvider : public NodeProvider {
 public:
  explicit SerializedProvider(std::unique_ptr<NodeProvider> p) : p_(std::move(p)) {}
  Result<std::vector<ProviderNode>> NonTerminatedNodes(const Tags& filter) override {
    std::lock_guard<std::mutex> lock(mu_);
    return p_->NonTerminatedNodes(filter);
  }
  Result<std::vector<std::string>> CreateNodes(const NodeType& type, const Tags& tags,
                                               int count) override {
    std::lock_guard<std::mutex> lock(mu_);
    return p_->CreateNodes(type, tags, count);
  }
  Status SetNodeTags(const std::string& id, const Tags& tags) override {
    std::lock_guard<std::mutex> lock(mu_);
    return p_->SetNodeTags(id, tags);
  }
  Status TerminateNodes(const std::vector<std::string>& ids) override {
    std::lock_guard<std::mutex> lock(mu_);
    return p_->TerminateNodes(ids);
  }
  bool UsesNodeUpdaters() const override { return p_->UsesNodeUpdaters(); }

 private:
  std::mutex mu_;
  std::unique_ptr<NodeProvider> p_;
};

// A NodeUpdater running on its own thread.
struct UpdaterJob {
  std::thread thread;
  std::atomic<bool> done{false};
  Status result;
};

std::string Tag(const ProviderNode& n, const char* key) {
  auto it = n.tags.find(key);
  return it == n.tags.end() ? "" : it->second;
}

std::string GcsHost(const std::string& gcs_address) {
  std::string host = gcs_address.substr(gcs_address.find("://") + 3);
  return host.substr(0, host.rfind(':'));
}

class Monitor {
 public:
  explicit Monitor(const MonitorOptions& o)
      : o_(o), gcs_(o.gcs_address, o.token), head_ip_(GcsHost(o.gcs_address)) {}

  ~Monitor() {
    for (auto& [id, job] : updaters_) {
      if (job->thread.joinable()) job->thread.join();
    }
  }

  // Loads the config; a later bad edit keeps the last good one.
  Status LoadConfig() {
    auto text = ReadFile(o_.config_path);
    if (!text.ok()) return text.status();
    if (provider_ && *text == config_text_) return Status::Ok();
    RAY_ASSIGN_OR_RETURN(json j, LoadYamlFile(o_.config_path));
    RAY_ASSIGN_OR_RETURN(ClusterConfig config, ClusterConfigFromJson(j));
    std::string state_dir = DefaultStateDir();
    if (j.contains("_state_dir") && j["_state_dir"].is_string()) state_dir = j["_state_dir"];
    ProviderContext ctx{state_dir, o_.gcs_address, o_.session_dir + "/token"};
    RAY_ASSIGN_OR_RETURN(auto provider, MakeNodeProvider(config, ctx));
    state_dir_ = ctx.state_dir;
    config_ = std::move(config);
    config_text_ = std::move(text).value();
    provider_ = std::make_shared<SerializedProvider>(std::move(provider));
    RAY_LOG_INFO("cluster config loaded: {} ({} provider), workers {}..{}", config_.cluster_name,
                 config_.provider_type, config_.min_workers, config_.max_workers);
    return Status::Ok();
  }

  // One round: look, decide, act.
  Status Update() {
    if (Status st = LoadConfig(); !st.ok()) {
      RAY_LOG_ERROR("cannot use the cluster config {} (keeping the last good one): {}",
                    o_.config_path, st.message());
    }
    ReapUpdaters();
    RAY_ASSIGN_OR_RETURN(auto workers, provider_->NonTerminatedNodes({{kTagNodeKind, kKindWorker}}));
    RAY_ASSIGN_OR_RETURN(auto nodes, gcs_.GetNodes());
    std::vector<protocol::NodeInfo> alive;
    for (auto& n : nodes) {
      if (n.state == "ALIVE") alive.push_back(std::move(n));
    }
    scheduler::AutoscalingInput input = Observe(workers, alive);
    scheduler::AutoscalingConfig policy = PolicyConfig();
    policy.head_resources = input.head_total;
    scheduler::AutoscalingDecision d = scheduler::Decide(policy, input);
    if (std::string s = d.Summary(); s != last_summary_) {
      RAY_LOG_INFO("{}", s);
      last_summary_ = s;
    }
    for (const auto& t : d.to_terminate) {
      // A node being set up goes once its updater is done (else it would start ray
      // on a host already released).
      if (!updaters_.count(t.node_id)) Terminate(workers, t.node_id, t.reason);
    }
    Status launched;
    bool hold = MonoMillis() / 1000.0 < launch_hold_until_;
    for (const auto& [type_name, count] : d.to_launch) {
      if (hold) break;
      if (Status st = Launch(type_name, count); !st.ok()) launched = st;
    }
    KeepUpToDate(workers);
    WriteStatus(workers, input, d);
    return launched;  // a failed launch backs off like any provider error
  }

  void RecordError(const Status& st) {
    last_error_ = st.message();
    WriteStatus({}, {}, {});
  }

 private:
  // What the policy sees: each worker node with its raylet's resources, idle time,
  // and the waiting work of every node.
  scheduler::AutoscalingInput Observe(const std::vector<ProviderNode>& workers,
                                      const std::vector<protocol::NodeInfo>& alive) {
    scheduler::AutoscalingInput in;
    double now = MonoMillis() / 1000.0;
    for (const auto& n : alive) {
      if (n.session_dir == o_.session_dir) {
        in.head_total = n.total;
        in.head_available = n.available;
      }
      int64_t budget = kMaxDemandItems - static_cast<int64_t>(in.demand.size());
      for (const auto& d : n.load) {
        for (int64_t i = 0; i < std::min(d.count, budget); ++i) in.demand.push_back(d.shape);
        budget -= std::min(d.count, budget);
      }
    }
    for (const auto& w : workers) {
      scheduler::WorkerNodeView v;
      v.id = w.id;
      v.type = Tag(w, kTagUserNodeType);
      const NodeType* type = config_.FindType(v.type);
      v.outdated = type != nullptr && !Tag(w, kTagLaunchConfig).empty() &&
                   Tag(w, kTagLaunchConfig) != LaunchHash(config_, *type);
      // Failed: its setup failed, or it never ran ray within the start deadline.
      v.failed = Tag(w, kTagNodeStatus) == kStatusUpdateFailed ||
                 (!updaters_.count(w.id) && missing_since_.count(w.id) &&
                  now - missing_since_[w.id] > kNodeStartWaitS);
      const protocol::NodeInfo* ray = RayNodeOf(w, alive);
      v.ray_running = ray != nullptr;
      if (ray != nullptr) {
        v.total = ray->total;
        v.available = ray->available;
        bool busy = !ray->load.empty() || ray->available != ray->total;
        if (busy || !last_used_.count(w.id)) last_used_[w.id] = now;
        missing_since_.erase(w.id);
      } else {
        last_used_[w.id] = now;  // not up yet: not idle
        missing_since_.emplace(w.id, now);
      }
      v.idle_s = now - last_used_[w.id];
      in.workers.push_back(std::move(v));
    }
    return in;
  }

  static const protocol::NodeInfo* RayNodeOf(const ProviderNode& n,
                                             const std::vector<protocol::NodeInfo>& alive) {
    for (const auto& info : alive) {
      bool same = n.ray_temp_dir.empty()
                      ? info.address == n.ip
                      : info.session_dir.rfind(n.ray_temp_dir + "/", 0) == 0;
      if (same) return &info;
    }
    return nullptr;
  }

  scheduler::AutoscalingConfig PolicyConfig() {
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
    return c;
  }

  void Terminate(const std::vector<ProviderNode>& workers, const std::string& id,
                 const std::string& reason) {
    RAY_LOG_INFO("terminating node {} ({})", id, reason);
    auto it = std::find_if(workers.begin(), workers.end(),
                           [&](const ProviderNode& n) { return n.id == id; });
    if (it != workers.end() && provider_->UsesNodeUpdaters()) {
      auto runner = RunnerFor(config_, *it, head_ip_, state_dir_);
      auto r = runner->Run("ray stop", 60);
      if (!r.ok() || r->exit_code != 0) {
        RAY_LOG_WARN("`ray stop` on {} failed: {}", runner->Describe(),
                     r.ok() ? r->tail : r.status().message());
      }
    }
    if (Status st = provider_->TerminateNodes({id}); !st.ok()) {
      RAY_LOG_ERROR("terminating node {}: {}", id, st.message());
    }
    last_used_.erase(id);
    missing_since_.erase(id);
  }

  Status Launch(const std::string& type_name, int count) {
    const NodeType* type = config_.FindType(type_name);
    if (type == nullptr || count <= 0) return Status::Ok();
    for (int left = count; left > 0; left -= kMaxLaunchBatch) {
      int batch = std::min(left, kMaxLaunchBatch);
      RAY_LOG_INFO("launching {} node(s) of type {}", batch, type_name);
      auto ids = provider_->CreateNodes(*type, NewNodeTags(config_, *type, false), batch);
      if (!ids.ok()) {
        launch_failures_++;
        return Status(ids.status().code(), fmt::format("launching {} node(s) of type {}: {}",
                                                       batch, type_name, ids.status().message()));
      }
      if (static_cast<int>(ids->size()) < batch) {
        RAY_LOG_WARN("the provider made {} of {} node(s) of type {}", ids->size(), batch, type_name);
      }
    }
    return Status::Ok();
  }

  // Sets up nodes never set up (or whose setup changed), and restarts ray on nodes
  // that were set up but whose raylet has been missing for a while.
  void KeepUpToDate(const std::vector<ProviderNode>& workers) {
    if (!provider_->UsesNodeUpdaters()) {
      // Nodes that start ray themselves and lost it (their head restarted): replaced.
      double now = MonoMillis() / 1000.0;
      for (const auto& w : workers) {
        auto it = missing_since_.find(w.id);
        if (it != missing_since_.end() && now - it->second > kRecoverAfterS) {
          Terminate(workers, w.id, "no raylet");
        }
      }
      return;
    }
    if (config_.ship_ray && runtime_dir_.empty()) {
      auto dir = RuntimeStagingDir(state_dir_ + "/monitor");
      if (!dir.ok()) {
        RAY_LOG_ERROR("cannot stage the ray runtime to ship: {}", dir.status().message());
        return;
      }
      runtime_dir_ = *dir;
    }
    double now = MonoMillis() / 1000.0;
    for (const auto& w : workers) {
      if (updaters_.count(w.id)) continue;
      const NodeType* type = config_.FindType(Tag(w, kTagUserNodeType));
      if (type == nullptr) continue;
      std::string status = Tag(w, kTagNodeStatus);
      if (status == kStatusUpdateFailed) continue;
      UpdateOptions u = WorkerUpdate(config_, *type, config_.ship_ray ? runtime_dir_ : "",
                                     o_.session_dir + "/token");
      std::string hash = Tag(w, kTagRuntimeConfig);
      bool missing = missing_since_.count(w.id) && now - missing_since_[w.id] > kRecoverAfterS;
      if (status == kStatusUpToDate && hash == u.runtime_hash && !missing) continue;
      // Only this monitor sets workers up: a node left mid-setup (by a monitor that
      // was restarted) is set up again from the start.
      u.restart_only = status == kStatusUpToDate && hash == u.runtime_hash;  // recovery
      StartUpdater(w, std::move(u));
      missing_since_.erase(w.id);
    }
  }

  void StartUpdater(const ProviderNode& node, UpdateOptions u) {
    u.label = "worker " + node.ip;
    auto job = std::make_shared<UpdaterJob>();
    auto provider = provider_;
    auto runner = std::shared_ptr<CommandRunner>(RunnerFor(config_, node, head_ip_, state_dir_));
    RAY_LOG_INFO("setting up node {} ({})", node.id, u.restart_only ? "restart only" : "full");
    job->thread = std::thread([job, provider, runner, node, u] {
      job->result = UpdateNode(*provider, node, *runner, u,
                               [](const std::string& line) { RAY_LOG_INFO("{}", line); });
      job->done = true;
    });
    updaters_[node.id] = job;
  }

  void ReapUpdaters() {
    for (auto it = updaters_.begin(); it != updaters_.end();) {
      if (!it->second->done) {
        ++it;
        continue;
      }
      it->second->thread.join();
      if (!it->second->result.ok()) {
        // The policy replaces it; a host that keeps failing is not retried at once.
        ++setup_failures_;
        double hold = std::min(300.0, o_.update_interval_s * std::pow(2.0, std::min(setup_failures_, 8)));
        launch_hold_until_ = MonoMillis() / 1000.0 + hold;
        RAY_LOG_ERROR("setting up node {} failed ({} in a row; no launches for {:.0f} s): {}",
                      it->first, setup_failures_, hold, it->second->result.message());
      } else {
        bringup_ = false;
        setup_failures_ = 0;
      }
      it = updaters_.erase(it);
    }
  }

  json NodeTypes() const {
    json types = json::object();
    for (const NodeType* t : config_.WorkerTypes()) {
      types[t->name] = {{"resources", t->resources}, {"min_workers", t->min_workers},
                        {"max_workers", t->max_workers}};
    }
    return types;
  }

  void WriteStatus(const std::vector<ProviderNode>& workers,
                   const scheduler::AutoscalingInput& input,
                   const scheduler::AutoscalingDecision& d) {
    json nodes = json::array();
    for (const auto& w : workers) {
      json n = {{"id", w.id}, {"ip", w.ip}, {"tags", w.tags}, {"updating", updaters_.count(w.id) > 0}};
      if (w.tags.count(kTagNodeStatus) && w.tags.at(kTagNodeStatus) == kStatusUpdateFailed) {
        n["setup_failed"] = true;
      }
      for (const auto& v : input.workers) {
        if (v.id == w.id) n.update({{"ray_running", v.ray_running}, {"idle_s", v.idle_s}});
      }
      nodes.push_back(n);
    }
    json status = {{"time", NowSeconds()},
                   {"cluster_name", config_.cluster_name},
                   {"provider", config_.provider_type},
                   {"min_workers", config_.min_workers},
                   {"max_workers", config_.max_workers},
                   {"node_types", NodeTypes()},
                   {"workers", nodes},
                   {"demand", input.demand.size()},
                   {"infeasible", d.infeasible},
                   {"launching", d.to_launch},
                   {"summary", last_summary_},
                   {"launch_failures", launch_failures_},
                   {"last_error", last_error_}};
    last_status_ = status.dump(-1, ' ', false, json::error_handler_t::replace);
    Report();
  }

 public:
  // Tells the GCS the autoscaler lives (its last view), also between updates.
  void Report() {
    if (last_status_.empty()) return;
    if (Status st = gcs_.ReportAutoscaler(last_status_); !st.ok()) {
      RAY_LOG_WARN("cannot report to the GCS: {}", st.message());
    }
  }

 private:
  MonitorOptions o_;
  gcs::GcsClient gcs_;
  std::string head_ip_;
  ClusterConfig config_;
  std::string config_text_;
  std::string state_dir_;
  std::string runtime_dir_;
  std::shared_ptr<NodeProvider> provider_;
  std::map<std::string, double> last_used_;      // node id -> monotonic s
  std::map<std::string, double> missing_since_;  // node id -> monotonic s without a raylet
  std::map<std::string, std::shared_ptr<UpdaterJob>> updaters_;
  std::string last_summary_, last_error_;
  int launch_failures_ = 0;
  int setup_failures_ = 0;          // in a row
  double launch_hold_until_ = 0;    // monotonic s: no launches before
  std::string last_status_;         // the last report, repeated while paused
  bool bringup_ = true;
};

}  // namespace

Status RunMonitor(const MonitorOptions& options, const std::atomic<bool>& stop) {
  MonitorOptions o = options;
  if (const char* s = std::getenv("AUTOSCALER_UPDATE_INTERVAL_S")) o.update_interval_s = std::atof(s);
  if (!(o.update_interval_s > 0)) o.update_interval_s = 5;
  Monitor monitor(o);
  RAY_RETURN_IF_ERROR(monitor.LoadConfig());
  RAY_LOG_INFO("autoscaler running: config {}, every {} s", o.config_path, o.update_interval_s);
  int failures = 0;
  while (!stop) {
    Status st;
    try {
      st = monitor.Update();
    } catch (const std::exception& e) {  // never dies on what it reads
      st = Status::Internal(std::string("unexpected: ") + e.what());
    }
    double pause = o.update_interval_s;
    if (!st.ok()) {
      ++failures;
      pause = std::min(kMaxBackoffS, o.update_interval_s * std::pow(2.0, std::min(failures, 6)));
      RAY_LOG_ERROR("autoscaler update failed ({} in a row; next try in {:.0f} s): {}", failures,
                    pause, st.message());
      monitor.RecordError(st);
    } else {
      failures = 0;
    }
    for (double waited = 0, reported = 0; waited < pause && !stop; waited += 0.1) {
      ::usleep(100 * 1000);
      if (waited - reported >= kReportEveryS) {
        monitor.Report();
        reported = waited;
      }
    }
  }
  RAY_LOG_INFO("autoscaler stopping");
  return Status::Ok();
}

}  // namespace ray::cluster
