#include "runtime/cluster/monitor.h"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <map>
#include <memory>
#include <mutex>
#include <thread>

#include <nlohmann/json.hpp>

#include "runtime/base/logging.h"
#include "runtime/base/util.h"
#include "runtime/base/yaml.h"
#include "runtime/cluster/autoscaler.h"
#include "runtime/cluster/cluster_config.h"
#include "runtime/cluster/node_provider.h"
#include "runtime/cluster/node_setup.h"
#include "runtime/gcs/gcs_client.h"

namespace ray::cluster {

namespace {

using nlohmann::json;

constexpr double kMaxBackoffS = 60;
constexpr double kReportEveryS = 5;  // the GCS counts the autoscaler alive for 30 s
constexpr int kStopTimeoutS = 60;

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

// Node setups as NodeUpdaters over ssh, one thread each, from the head.
class ThreadedSetups : public NodeSetups {
 public:
  ThreadedSetups(std::shared_ptr<NodeProvider> provider, const ClusterConfig& config,
                 std::string head_ip, std::string state_dir)
      : provider_(std::move(provider)), config_(config), head_ip_(std::move(head_ip)),
        state_dir_(std::move(state_dir)) {}
  ~ThreadedSetups() override {
    for (auto& [id, job] : jobs_) job->thread.join();
  }

  void Start(const ProviderNode& node, UpdateOptions u) override {
    auto job = std::make_shared<Job>();
    auto provider = provider_;
    std::shared_ptr<CommandRunner> runner = RunnerFor(config_, node, head_ip_, state_dir_);
    job->thread = std::thread([job, provider, runner, node, u] {
      job->result = UpdateNode(*provider, node, *runner, u,
                               [](const std::string& line) { RAY_LOG_INFO("{}", line); });
      job->done = true;
    });
    jobs_[node.id] = job;
  }

  bool Busy(const std::string& id) const override { return jobs_.count(id) > 0; }

  std::map<std::string, Status> Finished() override {
    std::map<std::string, Status> out;
    for (auto it = jobs_.begin(); it != jobs_.end();) {
      if (!it->second->done) {
        ++it;
        continue;
      }
      it->second->thread.join();
      out[it->first] = it->second->result;
      it = jobs_.erase(it);
    }
    return out;
  }

  void StopRay(const ProviderNode& node) override {
    auto runner = RunnerFor(config_, node, head_ip_, state_dir_);
    auto r = runner->Run("ray stop", kStopTimeoutS);
    if (!r.ok() || r->exit_code != 0) {
      RAY_LOG_WARN("`ray stop` on {} failed: {}", runner->Describe(),
                   r.ok() ? r->tail : r.status().message());
    }
  }

 private:
  struct Job {
    std::thread thread;
    std::atomic<bool> done{false};
    Status result;
  };
  std::shared_ptr<NodeProvider> provider_;
  const ClusterConfig& config_;  // the monitor's current config
  std::string head_ip_;
  std::string state_dir_;
  std::map<std::string, std::shared_ptr<Job>> jobs_;
};

std::string GcsHost(const std::string& gcs_address) {
  std::string host = gcs_address.substr(gcs_address.find("://") + 3);
  return host.substr(0, host.rfind(':'));
}

// The monitor: the config (reloaded when it changes), the provider and the setups
// it makes, the GCS; the rounds are the Autoscaler's.
class Monitor {
 public:
  explicit Monitor(const MonitorOptions& o)
      : o_(o), gcs_(o.gcs_address, o.token), head_ip_(GcsHost(o.gcs_address)) {}

  // Loads the config; a later bad edit keeps the last good one. A new provider
  // (another provider section) waits for the running setups of the old one.
  Status LoadConfig() {
    auto text = ReadFile(o_.config_path);
    if (!text.ok()) return text.status();
    if (autoscaler_ && *text == config_text_) return Status::Ok();
    RAY_ASSIGN_OR_RETURN(json j, LoadYamlFile(o_.config_path));
    RAY_ASSIGN_OR_RETURN(ClusterConfig config, ClusterConfigFromJson(j));
    std::string state_dir = DefaultStateDir();
    if (j.contains("_state_dir") && j["_state_dir"].is_string()) state_dir = j["_state_dir"];
    ProviderContext ctx{state_dir, o_.gcs_address, o_.session_dir + "/token"};
    std::string runtime;
    if (config.ship_ray && config.provider_type != "fake_multinode") {
      RAY_ASSIGN_OR_RETURN(runtime, RuntimeStagingDir(state_dir + "/monitor"));
    }
    bool same_provider = autoscaler_ && config.provider == config_.provider;
    config_ = std::move(config);
    config_text_ = std::move(text).value();
    if (!same_provider) {
      autoscaler_.reset();
      setups_.reset();
      RAY_ASSIGN_OR_RETURN(auto provider, MakeNodeProvider(config_, ctx));
      provider_ = std::make_shared<SerializedProvider>(std::move(provider));
      setups_ = std::make_unique<ThreadedSetups>(provider_, config_, head_ip_, state_dir);
      autoscaler_ = std::make_unique<Autoscaler>(
          *provider_, *setups_, SetupFiles{runtime, o_.session_dir + "/token"});
    }
    RAY_LOG_INFO("cluster config loaded: {} ({} provider), workers {}..{}", config_.cluster_name,
                 config_.provider_type, config_.min_workers, config_.max_workers);
    return Status::Ok();
  }

  Status Update() {
    if (Status st = LoadConfig(); !st.ok()) {
      RAY_LOG_ERROR("cannot use the cluster config {} (keeping the last good one): {}",
                    o_.config_path, st.message());
    }
    RAY_ASSIGN_OR_RETURN(auto nodes, gcs_.GetNodes());
    ClusterView view{{}, o_.session_dir};
    for (auto& n : nodes) {
      if (n.state == "ALIVE") view.alive.push_back(std::move(n));
    }
    Status st = autoscaler_->Update(config_, view, MonoMillis() / 1000.0, o_.update_interval_s);
    Report();
    return st;
  }

  void RecordError(const Status& st) {
    autoscaler_->RecordError(st.message());
    Report();
  }

  // Tells the GCS the autoscaler lives (with its last view), also between rounds.
  void Report() {
    json view = autoscaler_->View();
    view["time"] = NowSeconds();
    std::string text = view.dump(-1, ' ', false, json::error_handler_t::replace);
    if (Status st = gcs_.ReportAutoscaler(text); !st.ok()) {
      RAY_LOG_WARN("cannot report to the GCS: {}", st.message());
    }
  }

 private:
  MonitorOptions o_;
  gcs::GcsClient gcs_;
  std::string head_ip_;
  ClusterConfig config_;
  std::string config_text_;
  std::shared_ptr<NodeProvider> provider_;
  std::unique_ptr<NodeSetups> setups_;       // before autoscaler_: outlives it
  std::unique_ptr<Autoscaler> autoscaler_;
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
