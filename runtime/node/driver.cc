#include "runtime/node/driver.h"

#include <unistd.h>

#include "runtime/api/core_client.h"
#include "runtime/api/runtime_api.h"
#include "runtime/api/runtime_env_ship.h"
#include "runtime/base/hex.h"
#include "runtime/base/util.h"
#include "runtime/gcs/gcs_client.h"
#include "runtime/node/node.h"
#include "runtime/worker/plugin.h"

namespace ray::node {

namespace {

// Calls `call` again while the GCS does not answer (its supervisor may be starting
// it again), up to `attempts` times in all.
template <typename Call>
Status WhileUnavailable(int attempts, Call&& call) {
  Status st = call();
  for (int i = 1; i < attempts && st.code() == StatusCode::kUnavailable; ++i) st = call();
  return st;
}

// A namespace no other job names: a random UUID, as Ray's anonymous namespaces are.
std::string AnonymousNamespace() {
  std::string hex = ToHex(RandomBytes(16));
  return hex.substr(0, 8) + "-" + hex.substr(8, 4) + "-" + hex.substr(12, 4) + "-" +
         hex.substr(16, 4) + "-" + hex.substr(20);
}

// A live node of the cluster on this machine, found through the GCS.
Result<std::string> LocalRaylet(gcs::GcsClient& gcs, const std::string& gcs_address) {
  RAY_ASSIGN_OR_RETURN(auto nodes, gcs.GetNodes());
  for (const auto& n : nodes) {
    std::string path = n.raylet_socket.substr(n.raylet_socket.find("://") + 3);
    if (n.state == "ALIVE" && ::access(path.c_str(), F_OK) == 0) return n.raylet_socket;
  }
  return Status::Unavailable("no live node of the cluster at " + gcs_address +
                             " runs on this machine");
}

}  // namespace

struct DriverSession::State {
  State(const JobOptions& o) : options(o), gcs(o.gcs_address, o.token) {}
  JobOptions options;
  gcs::GcsClient gcs;
  JobId job;
  std::unique_ptr<core::CoreClient> client;
  std::unique_ptr<core::RuntimeBinding> binding;
  bool finished = false;
};

DriverSession::DriverSession(std::unique_ptr<State> state) : state_(std::move(state)) {}

DriverSession::~DriverSession() { Finish(0); }

const RayRuntimeApi* DriverSession::api() const { return state_->binding->api(); }

Result<std::unique_ptr<DriverSession>> DriverSession::Start(const JobOptions& o,
                                                            worker::Plugin& plugin) {
  auto s = std::make_unique<State>(o);
  RAY_ASSIGN_OR_RETURN(std::string bytes, ReadFile(o.plugin_path));
  RAY_RETURN_IF_ERROR(
      WhileUnavailable(3, [&] { return s->gcs.PutPlugin(plugin.hash(), o.plugin_path, bytes); }));
  std::string raylet = o.raylet_socket;
  if (raylet.empty()) {
    RAY_ASSIGN_OR_RETURN(raylet, LocalRaylet(s->gcs, o.gcs_address));
  }
  RAY_ASSIGN_OR_RETURN(core::RuntimeEnv asked,
                       core::ParseRuntimeEnv(o.runtime_env, "the job's --runtime-env"));
  RAY_ASSIGN_OR_RETURN(core::RuntimeEnv env,
                       core::ShipRuntimeEnv(asked, [&](const std::string& hash, const std::string& name,
                                                       const std::string& blob) {
                         return s->gcs.PutPlugin(hash, name, blob);
                       }));
  s->job = JobId::FromRandom();
  std::string ns = o.ray_namespace.empty() ? AnonymousNamespace() : o.ray_namespace;
  RAY_ASSIGN_OR_RETURN(s->client, core::CoreClient::Connect(raylet, true, s->job, ""));
  RAY_RETURN_IF_ERROR(WhileUnavailable(
      3, [&] { return s->gcs.AddJob(s->job.Binary(), ::getpid(), o.plugin_path, ns); }));
  // The job's tasks and actors run in it, and create actors of its default lifetime.
  s->client->SetInherited({core::Canonical(env), "", o.actors_detached});
  s->binding = std::make_unique<core::RuntimeBinding>(s->client.get(), plugin.hash());
  plugin.Attach(s->binding->api());
  return std::unique_ptr<DriverSession>(new DriverSession(std::move(s)));
}

void DriverSession::Finish(int code) {
  State& s = *state_;
  if (s.finished) return;
  s.finished = true;
  s.binding->StopCallbacks();  // (they may use the client: before it disconnects)
  (void)s.client->Call("flush_logs", "");  // the job's last worker output, before we go
  std::fflush(stdout);
  s.client->Disconnect();
  (void)WhileUnavailable(2, [&] { return s.gcs.FinishJob(s.job.Binary(), code); });
}

namespace {

// Connects as a job's driver for `plugin` and runs `drive` with the bound runtime.
Result<int> Drive(const JobOptions& o, worker::Plugin& plugin, const DriveFn& drive) {
  RAY_ASSIGN_OR_RETURN(auto session, DriverSession::Start(o, plugin));
  int code = drive(plugin, session->api());
  session->Finish(code);
  return code;
}

}  // namespace

Result<ClusterTarget> ResolveCluster(const std::string& address, const std::string& token,
                                     const std::string& temp_dir) {
  ClusterTarget t;
  auto nodes = RunningNodes(temp_dir);
  if (address.empty()) {
    if (nodes.empty()) {
      return Status::NotFound("no running ray node under " + temp_dir +
                              "; start one with `ray start --head` or give its address");
    }
    t.gcs_address = nodes.back().gcs_address;
    t.token = token.empty() ? nodes.back().token : token;
    t.raylet_socket = nodes.back().raylet_socket;
    return t;
  }
  std::string addr = address;
  if (addr.find("://") == std::string::npos) addr = "tcp://" + addr;
  if (addr.rfind(':') == addr.find("://")) {
    return Status::InvalidArgument("the cluster address must be HOST:PORT, got '" + address + "'");
  }
  t.gcs_address = addr;
  t.token = token;
  for (const auto& n : nodes) {
    if (n.gcs_address != addr) continue;
    if (t.token.empty()) t.token = n.token;
    t.raylet_socket = n.raylet_socket;
  }
  if (t.token.empty()) {
    return Status::PermissionDenied("no token for " + address +
                                    ": give the one `ray start --head` printed");
  }
  return t;
}

Result<int> RunJob(const JobOptions& o) {
  RAY_ASSIGN_OR_RETURN(auto plugin, worker::Plugin::Load(o.plugin_path));
  if (!plugin->HasMain()) {
    return Status::InvalidArgument("plugin " + o.plugin_path +
                                   ": has no RAY_MAIN, so it cannot be run as a job");
  }
  return Drive(o, *plugin, [&](worker::Plugin&, const RayRuntimeApi*) {
    std::vector<std::string> argv_strings{o.plugin_path};
    argv_strings.insert(argv_strings.end(), o.args.begin(), o.args.end());
    std::vector<char*> argv;
    for (auto& s : argv_strings) argv.push_back(s.data());
    argv.push_back(nullptr);
    return plugin->Main(static_cast<int>(argv_strings.size()), argv.data());
  });
}

Result<int> RunDriver(const JobOptions& o, const DriveFn& drive) {
  RAY_ASSIGN_OR_RETURN(auto plugin, worker::Plugin::Load(o.plugin_path));
  return Drive(o, *plugin, drive);
}

}  // namespace ray::node
