#include "runtime/node/driver.h"

#include <unistd.h>

#include "runtime/api/core_client.h"
#include "runtime/api/runtime_api.h"
#include "runtime/base/util.h"
#include "runtime/gcs/gcs_client.h"
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

// Connects as a job's driver for `plugin` and runs `drive` with the bound runtime.
Result<int> Drive(const JobOptions& o, worker::Plugin& plugin, const DriveFn& drive) {
  gcs::GcsClient gcs(o.gcs_address, o.token);
  RAY_ASSIGN_OR_RETURN(std::string bytes, ReadFile(o.plugin_path));
  RAY_RETURN_IF_ERROR(
      WhileUnavailable(3, [&] { return gcs.PutPlugin(plugin.hash(), o.plugin_path, bytes); }));

  std::string raylet = o.raylet_socket;
  if (raylet.empty()) {
    RAY_ASSIGN_OR_RETURN(auto nodes, gcs.GetNodes());
    for (const auto& n : nodes) {
      std::string path = n.raylet_socket.substr(n.raylet_socket.find("://") + 3);
      if (n.state == "ALIVE" && ::access(path.c_str(), F_OK) == 0) {
        raylet = n.raylet_socket;
        break;
      }
    }
    if (raylet.empty()) {
      return Status::Unavailable("no live node of the cluster at " + o.gcs_address +
                                 " runs on this machine");
    }
  }
  JobId job = JobId::FromRandom();
  RAY_ASSIGN_OR_RETURN(auto client, core::CoreClient::Connect(raylet, true, job, ""));
  RAY_RETURN_IF_ERROR(
      WhileUnavailable(3, [&] { return gcs.AddJob(job.Binary(), ::getpid(), o.plugin_path); }));
  core::RuntimeBinding binding(client.get(), plugin.hash());
  plugin.Attach(binding.api());
  int code = drive(plugin, binding.api());
  binding.StopCallbacks();  // (they may use the client: before it disconnects)
  (void)client->Call("flush_logs", "");  // the job's last worker output, before we go
  std::fflush(stdout);
  client->Disconnect();
  (void)WhileUnavailable(2, [&] { return gcs.FinishJob(job.Binary(), code); });
  return code;
}

}  // namespace

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
