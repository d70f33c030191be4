// The built-in providers (local, fake_multinode) and the factory. The external
// provider, a plugin, is in external_provider.cc.

#include "runtime/cluster/node_provider.h"

#include <filesystem>

#include <fmt/format.h>

#include "runtime/base/util.h"
#include "runtime/cluster/state_file.h"
#include "runtime/node/node.h"

namespace ray::cluster {

Result<std::unique_ptr<NodeProvider>> MakeExternalProvider(const ClusterConfig& config);

namespace {

using nlohmann::json;

constexpr const char* kRunning = "running";
constexpr const char* kTerminated = "terminated";

Tags TagsOf(const json& entry) {
  Tags tags;
  json stored = entry.value("tags", json::object());
  for (const auto& [k, v] : stored.items()) tags[k] = v;
  return tags;
}

// Both providers keep {"nodes": {id: {"state", "tags", ...}}} in their state file.
class StateFileProvider : public NodeProvider {
 public:
  explicit StateFileProvider(std::string path) : path_(std::move(path)) {}

  Result<std::vector<ProviderNode>> NonTerminatedNodes(const Tags& filter) override {
    std::vector<ProviderNode> out;
    RAY_RETURN_IF_ERROR(Update([&](json& nodes) {
      for (const auto& [id, e] : nodes.items()) {
        if (e.value("state", "") != kRunning || !TagsMatch(TagsOf(e), filter)) continue;
        out.push_back({id, e.value("ip", id), TagsOf(e), e.value("temp_dir", "")});
      }
      return Status::Ok();
    }));
    return out;
  }

  Status SetNodeTags(const std::string& id, const Tags& tags) override {
    return Update([&](json& nodes) {
      if (!nodes.contains(id)) return Status::NotFound("no node " + id);
      for (const auto& [k, v] : tags) nodes[id]["tags"][k] = v;
      return Status::Ok();
    });
  }

 protected:
  // Runs `change` on the "nodes" object of the state, after Reconcile.
  Status Update(const std::function<Status(json&)>& change) {
    return UpdateStateFile(path_, [&](json& doc) {
      if (!doc.contains("nodes") || !doc["nodes"].is_object()) doc["nodes"] = json::object();
      Reconcile(doc["nodes"]);
      return change(doc["nodes"]);
    });
  }
  // Brings the stored nodes in line with the config (the local provider's hosts).
  virtual void Reconcile(json& nodes) {}

  std::string path_;
};

// Ray's private-cluster provider: the node id is the host's address.
class LocalProvider : public StateFileProvider {
 public:
  LocalProvider(const ClusterConfig& c, const std::string& state_dir)
      : StateFileProvider(LocalStatePath(state_dir, c.cluster_name)),
        head_ip_(c.head_ip),
        worker_ips_(c.worker_ips) {}

  Result<std::vector<std::string>> CreateNodes(const NodeType& type, const Tags& tags,
                                               int count) override {
    std::vector<std::string> made;
    bool head = tags.count(kTagNodeKind) && tags.at(kTagNodeKind) == kKindHead;
    RAY_RETURN_IF_ERROR(Update([&](json& nodes) {
      for (const auto& ip : head ? std::vector<std::string>{head_ip_} : worker_ips_) {
        if (static_cast<int>(made.size()) >= count) break;
        json& e = nodes[ip];
        if (e.value("state", "") == kRunning) continue;
        e = {{"state", kRunning}, {"tags", tags}};
        made.push_back(ip);
      }
      return Status::Ok();
    }));
    return made;
  }

  Status TerminateNodes(const std::vector<std::string>& ids) override {
    return Update([&](json& nodes) {
      for (const auto& id : ids) {
        if (nodes.contains(id)) nodes[id]["state"] = kTerminated;
      }
      return Status::Ok();
    });
  }

 private:
  // Every listed host is known (terminated until claimed); hosts no longer listed go.
  void Reconcile(json& nodes) override {
    std::vector<std::string> ips = worker_ips_;
    ips.push_back(head_ip_);
    for (const auto& ip : ips) {
      if (!nodes.contains(ip)) nodes[ip] = {{"state", kTerminated}, {"tags", json::object()}};
    }
    std::vector<std::string> gone;
    for (const auto& [id, e] : nodes.items()) {
      if (std::find(ips.begin(), ips.end(), id) == ips.end()) gone.push_back(id);
    }
    for (const auto& id : gone) nodes.erase(id);
  }

  std::string head_ip_;
  std::vector<std::string> worker_ips_;
};

// Nodes as raylet processes of this machine, each under a temp dir of its own.
class FakeMultinodeProvider : public StateFileProvider {
 public:
  FakeMultinodeProvider(const ClusterConfig& c, const ProviderContext& ctx)
      : StateFileProvider(FakeClusterDir(ctx.state_dir, c.cluster_name) + "/nodes.json"),
        dir_(FakeClusterDir(ctx.state_dir, c.cluster_name)),
        ctx_(ctx) {}

  Result<std::vector<std::string>> CreateNodes(const NodeType& type, const Tags& tags,
                                               int count) override {
    bool head = tags.count(kTagNodeKind) && tags.at(kTagNodeKind) == kKindHead;
    std::vector<std::string> made;
    for (int i = 0; i < count; ++i) {
      std::string id;
      RAY_RETURN_IF_ERROR(Update([&](json& nodes) {
        int n = 0;
        while (nodes.contains(fmt::format("worker-{}", ++n))) {
        }
        id = head ? "head" : fmt::format("worker-{}", n);
        nodes[id] = {{"state", kRunning}, {"tags", tags}, {"ip", "127.0.0.1"},
                     {"temp_dir", head ? dir_ + "/head/tmp" : dir_ + "/nodes/" + id}};
        return Status::Ok();
      }));
      // The head is started by its start commands; a worker here and now.
      if (!head) {
        Status st = StartWorker(type, dir_ + "/nodes/" + id);
        if (!st.ok()) {
          (void)TerminateNodes({id});
          return st;
        }
        RAY_RETURN_IF_ERROR(SetNodeTags(id, {{kTagNodeStatus, kStatusUpToDate}}));  // set up
      }
      made.push_back(id);
    }
    return made;
  }

  // Stops the nodes' raylets first, then marks them: a node that would not stop
  // stays listed (and is tried again).
  Status TerminateNodes(const std::vector<std::string>& ids) override {
    std::map<std::string, std::string> dirs;
    RAY_RETURN_IF_ERROR(Update([&](json& nodes) {
      for (const auto& id : ids) {
        if (nodes.contains(id) && id != "head") dirs[id] = nodes[id].value("temp_dir", "");
      }
      return Status::Ok();
    }));
    Status result;
    std::vector<std::string> stopped;
    for (const auto& id : ids) {
      Status st;
      for (const auto& n : dirs.count(id) ? node::RunningNodes(dirs[id])
                                          : std::vector<node::NodeRecord>{}) {
        if (Status s = node::StopNode(n); !s.ok()) st = s;
      }
      if (st.ok()) stopped.push_back(id);
      if (!st.ok()) result = st;
    }
    RAY_RETURN_IF_ERROR(Update([&](json& nodes) {
      for (const auto& id : stopped) {
        if (nodes.contains(id)) nodes[id]["state"] = kTerminated;
      }
      return Status::Ok();
    }));
    return result;
  }

  bool UsesNodeUpdaters() const override { return false; }

 private:
  Status StartWorker(const NodeType& type, const std::string& temp_dir) {
    if (ctx_.gcs_address.empty()) {
      return Status::FailedPrecondition("fake_multinode workers are started by the head's "
                                        "autoscaler, which knows the cluster's address");
    }
    RAY_ASSIGN_OR_RETURN(std::string token, ReadFile(ctx_.token_file));
    node::NodeOptions o;
    o.temp_dir = temp_dir;
    o.node_ip = "127.0.0.1";
    o.resources = type.resources;
    RAY_ASSIGN_OR_RETURN(node::NodeRecord r, node::JoinCluster(o, ctx_.gcs_address, token));
    return Status::Ok();
  }

  std::string dir_;
  ProviderContext ctx_;
};

}  // namespace

bool TagsMatch(const Tags& node, const Tags& filter) {
  for (const auto& [k, v] : filter) {
    auto it = node.find(k);
    if (it == node.end() || it->second != v) return false;
  }
  return true;
}

std::string LocalStatePath(const std::string& state_dir, const std::string& cluster_name) {
  return state_dir + "/" + cluster_name + "-local.json";
}

std::string FakeClusterDir(const std::string& state_dir, const std::string& cluster_name) {
  return state_dir + "/" + cluster_name + "-fake";
}

Result<std::unique_ptr<NodeProvider>> MakeNodeProvider(const ClusterConfig& config,
                                                       const ProviderContext& context) {
  if (config.provider_type == "local") {
    return std::unique_ptr<NodeProvider>(new LocalProvider(config, context.state_dir));
  }
  if (config.provider_type == "fake_multinode") {
    return std::unique_ptr<NodeProvider>(new FakeMultinodeProvider(config, context));
  }
  if (config.provider_type == "external") return MakeExternalProvider(config);
  return Status::InvalidArgument("unknown provider type " + config.provider_type);
}

}  // namespace ray::cluster
