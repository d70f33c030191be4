// The client library (libray_client.so): a program of the user's own as a job's
// driver, behind ray/init.h's two C entry points. ray_client_shutdown returns 0 (the
// job ended), 1 (it ended, with an error), or 2 (refused: the job goes on). One job per process at a time; the
// entry points are called from one thread (ray::Init's contract).

#include <dlfcn.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>

#include "ray/abi.h"
#include "ray/wire.h"
#include "runtime/api/async_gets.h"
#include "runtime/base/fs.h"
#include "runtime/base/status.h"
#include "runtime/node/driver.h"
#include "runtime/node/node.h"
#include "runtime/worker/plugin.h"

#define RAY_CLIENT_EXPORT extern "C" __attribute__((visibility("default")))

namespace ray::client {
namespace {

namespace fs = std::filesystem;

// The job this process drives: its plugin, its session, and the cluster Init started
// for it, if it did.
struct Job {
  std::shared_ptr<worker::Plugin> plugin;
  std::optional<node::NodeRecord> own_cluster;
  std::unique_ptr<node::DriverSession> session;
};
Job* g_job = nullptr;

// This library's own file (to find the `ray` program installed beside it).
std::string LibraryPath() {
  Dl_info info{};
  if (::dladdr(reinterpret_cast<void*>(&LibraryPath), &info) == 0 || !info.dli_fname) return "";
  return info.dli_fname;
}

// The `ray` program whose daemons a started cluster runs: $RAY_EXECUTABLE, else the one
// installed beside this library (<prefix>/lib -> <prefix>/bin/ray), else the build
// tree's, else the first on $PATH.
Result<std::string> RayExecutable() {
  if (const char* e = std::getenv("RAY_EXECUTABLE"); e && *e) return std::string(e);
  std::error_code ec;
  fs::path lib = LibraryPath();
  for (const fs::path& p : {lib.parent_path() / ".." / "bin" / "ray", fs::path(RAY_BUILD_EXECUTABLE)}) {
    if (!p.empty() && fs::exists(p, ec)) return fs::canonical(p, ec).string();
  }
  if (const char* path = std::getenv("PATH")) {
    std::string dirs = path;
    for (size_t b = 0, e; b <= dirs.size(); b = e + 1) {
      e = dirs.find(':', b);
      if (e == std::string::npos) e = dirs.size();
      fs::path p = fs::path(dirs.substr(b, e - b)) / "ray";
      if (e > b && ::access(p.c_str(), X_OK) == 0) return p.string();
    }
  }
  return Status::NotFound("the `ray` program was not found (beside " + lib.string() +
                          ", in the build tree, or on PATH); set RAY_EXECUTABLE");
}

// The plugin workers load for this program: code_search_path's one entry, else the
// program's own path + ".so".
Result<std::string> PluginPath(const internal::InitRequest& r) {
  if (r.code_search_path.size() > 1) {
    return Status::InvalidArgument("code_search_path: " + std::to_string(r.code_search_path.size()) +
                                   " entries given; a job has exactly one plugin");
  }
  std::string path =
      r.code_search_path.empty() ? SelfExecutable() + ".so" : r.code_search_path.front();
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) {
    return Status::NotFound("code_search_path: no plugin at " + path +
                            (r.code_search_path.empty()
                                 ? " (build it beside the program with ray_add_program, or "
                                   "name it in RayConfig::code_search_path)"
                                 : ""));
  }
  return fs::canonical(path, ec).string();
}

// A cluster started for this program, tied to it (its daemons end with the process).
Result<node::NodeRecord> StartOwnCluster(const internal::InitRequest& r,
                                         const std::string& temp_dir) {
  node::NodeOptions n;
  RAY_ASSIGN_OR_RETURN(n.ray_executable, RayExecutable());
  n.temp_dir = temp_dir;
  n.port = 0;
  n.resources["CPU"] = r.num_cpus >= 0 ? r.num_cpus : node::DetectCpus();
  n.die_with_parent = true;
  return node::StartHead(n);
}

Result<std::unique_ptr<Job>> Start(const internal::InitRequest& r) {
  auto job = std::make_unique<Job>();
  RAY_ASSIGN_OR_RETURN(std::string plugin_path, PluginPath(r));
  RAY_ASSIGN_OR_RETURN(job->plugin, worker::Plugin::Load(plugin_path));
  std::string temp_dir = r.temp_dir.empty() ? node::DefaultTempDir() : r.temp_dir;
  std::string address = r.address;
  if (address.empty()) {
    const char* env = std::getenv("RAY_ADDRESS");
    address = env ? env : "";
  }
  node::ClusterTarget target;
  if (address.empty() && node::RunningNodes(temp_dir).empty()) {
    RAY_ASSIGN_OR_RETURN(auto started, StartOwnCluster(r, temp_dir));
    job->own_cluster = started;
    target = {started.gcs_address, started.token, started.raylet_socket};
  } else {
    RAY_ASSIGN_OR_RETURN(
        target, node::ResolveCluster(address == "auto" ? "" : address, r.token, temp_dir));
  }
  node::JobOptions o;
  o.plugin_path = plugin_path;
  o.ray_namespace = r.ray_namespace;
  o.runtime_env = r.runtime_env;
  o.actors_detached = r.actors_detached;
  o.gcs_address = target.gcs_address;
  o.token = target.token;
  o.raylet_socket = target.raylet_socket;
  auto session = node::DriverSession::Start(o, *job->plugin);
  if (!session.ok()) {
    if (job->own_cluster) (void)node::StopNode(*job->own_cluster);
    return session.status();
  }
  job->session = std::move(*session);
  return job;
}

Status Finish() {
  std::unique_ptr<Job> job(g_job);
  g_job = nullptr;
  job->session->Finish(0);
  job->session.reset();
  return job->own_cluster ? node::StopNode(*job->own_cluster) : Status::Ok();
}

int Report(const Status& st, char* error, size_t cap) {
  if (cap > 0) {
    std::strncpy(error, st.message().c_str(), cap - 1);
    error[cap - 1] = '\0';
  }
  return 1;
}

}  // namespace
}  // namespace ray::client

RAY_CLIENT_EXPORT int ray_client_init(const char* request, size_t len, const RayRuntimeApi** api,
                                      char* error, size_t error_cap) {
  using namespace ray;
  if (client::g_job) {
    return client::Report(Status::FailedPrecondition("already initialized"), error, error_cap);
  }
  internal::InitRequest r;
  try {
    r = internal::Unpack<internal::InitRequest>(request, len);
  } catch (const std::exception& e) {
    return client::Report(Status::InvalidArgument(std::string("malformed configuration: ") + e.what()),
                          error, error_cap);
  }
  auto job = client::Start(r);
  if (!job.ok()) return client::Report(job.status(), error, error_cap);
  client::g_job = job->release();
  *api = client::g_job->session->api();
  return 0;
}

RAY_CLIENT_EXPORT int ray_client_shutdown(char* error, size_t error_cap) {
  if (!ray::client::g_job) return 0;
  if (ray::core::AsyncGets::OnCallbackThread()) {
    ray::client::Report(ray::Status::FailedPrecondition(
                            "not from a Then/GetAsync callback (the job goes on)"),
                        error, error_cap);
    return 2;
  }
  ray::Status st = ray::client::Finish();
  return st.ok() ? 0 : ray::client::Report(st, error, error_cap);
}
