#include "runtime/node/node.h"

#include <dirent.h>
#include <csignal>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <ctime>
#include <filesystem>
#include <optional>
#include <thread>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "runtime/base/process.h"
#include "runtime/base/util.h"
#include "runtime/object_store/object_store.h"
#include "runtime/transport/transport.h"

namespace ray::node {

namespace fs = std::filesystem;

std::string DefaultTempDir() {
  const char* dir = std::getenv("RAY_TMPDIR");
  return dir != nullptr && *dir != '\0' ? dir : "/tmp/ray";
}

int DetectCpus() {
  long n = ::sysconf(_SC_NPROCESSORS_ONLN);
  return n > 0 ? static_cast<int>(n) : 1;
}

size_t DefaultObjectStoreBytes() {
  long pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGE_SIZE);
  size_t ram = pages > 0 && page > 0 ? static_cast<size_t>(pages) * page : 8ull << 30;
  return std::min<size_t>(ram * 3 / 10, 20ull << 30);
}

namespace {

std::string SessionName() {
  auto now = std::chrono::system_clock::now();
  auto t = std::chrono::system_clock::to_time_t(now);
  auto us = std::chrono::duration_cast<std::chrono::microseconds>(now.time_since_epoch()).count() %
            1000000;
  char buf[64];
  std::strftime(buf, sizeof(buf), "%Y-%m-%d_%H-%M-%S", std::localtime(&t));
  return fmt::format("session_{}_{:06d}_{}", buf, us, ::getpid());
}

// Waits for a daemon's ready file; fails early if the daemon exits.
Result<std::string> AwaitReady(const std::string& file, int pid, const std::string& what,
                               const std::string& log) {
  for (int waited = 0; waited < 15000; waited += 10) {
    auto content = ReadFile(file);
    if (content.ok() && !content->empty()) return std::move(content).value();
    if (!ProcessAlive(pid)) {
      auto err = ReadFile(log);
      std::string tail = err.ok() ? err->substr(err->size() > 2000 ? err->size() - 2000 : 0) : "";
      return Status::Unavailable(fmt::format("{} exited during startup (see {}):\n{}", what, log,
                                             tail));
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return Status::DeadlineExceeded(what + " did not become ready within 15 s (see " + log + ")");
}

Status WriteRecord(const NodeRecord& r) {
  nlohmann::json j = {{"session_dir", r.session_dir}, {"gcs_address", r.gcs_address},
                      {"raylet_socket", r.raylet_socket}, {"gcs_pid", r.gcs_pid},
                      {"raylet_pid", r.raylet_pid}, {"monitor_pid", r.monitor_pid},
                      {"dashboard_pid", r.dashboard_pid}, {"dashboard_url", r.dashboard_url},
                      {"persistent_tables", r.persistent_tables}};
  return WriteFile(r.session_dir + "/node.json", j.dump(2) + "\n", 0644);
}

}  // namespace

Result<NodeRecord> ReadNodeRecord(const std::string& session_dir) {
  RAY_ASSIGN_OR_RETURN(std::string text, ReadFile(session_dir + "/node.json"));
  NodeRecord r;
  try {
    auto j = nlohmann::json::parse(text);
    r.session_dir = j.at("session_dir");
    r.gcs_address = j.at("gcs_address");
    r.raylet_socket = j.at("raylet_socket");
    r.gcs_pid = j.at("gcs_pid");
    r.raylet_pid = j.at("raylet_pid");
    r.monitor_pid = j.value("monitor_pid", 0);
    r.dashboard_pid = j.value("dashboard_pid", 0);
    r.dashboard_url = j.value("dashboard_url", "");
    r.persistent_tables = j.value("persistent_tables", false);
  } catch (const std::exception& e) {
    return Status::DataLoss(session_dir + "/node.json is malformed: " + e.what());
  }
  auto token = ReadFile(session_dir + "/token");
  if (token.ok()) r.token = *token;
  return r;
}

namespace {

// A new session dir with its layout, the token file and the session_latest link.
Result<NodeRecord> NewSession(const NodeOptions& o, std::string token) {
  std::error_code ec;
  fs::create_directories(o.temp_dir, ec);
  if (ec) return Status::PermissionDenied("cannot create " + o.temp_dir + ": " + ec.message());
  NodeRecord r;
  r.session_dir = fs::absolute(o.temp_dir).string() + "/" + SessionName();
  for (const char* sub : {"logs", "sockets", "plugins"}) {
    fs::create_directories(r.session_dir + "/" + sub, ec);
  }
  if (ec) return Status::PermissionDenied("cannot create " + r.session_dir + ": " + ec.message());
  ::chmod((r.session_dir + "/sockets").c_str(), 0700);
  r.token = std::move(token);
  RAY_RETURN_IF_ERROR(WriteFile(r.session_dir + "/token", r.token, 0600));
  std::string latest = o.temp_dir + "/session_latest";
  fs::remove(latest, ec);
  fs::create_symlink(r.session_dir, latest, ec);
  return r;
}

SpawnOptions Daemon(const NodeOptions& o, const NodeRecord& r, const std::string& name,
                    std::vector<std::string> args) {
  SpawnOptions spawn;
  std::string ray = o.ray_executable.empty() ? SelfExecutable() : o.ray_executable;
  spawn.argv = {ray, "_" + name, "--session-dir", r.session_dir};
  spawn.argv.insert(spawn.argv.end(), args.begin(), args.end());
  spawn.stdout_path = r.session_dir + "/logs/" + name + ".out";
  spawn.stderr_path = r.session_dir + "/logs/" + name + ".err";
  spawn.new_session = !o.die_with_parent;
  // Tied to a `ray run`: SIGTERM, so the daemon still removes its sockets and segments.
  spawn.parent_death_signal = o.die_with_parent ? SIGTERM : 0;
  return spawn;
}

// Starts the raylet of `r` against r.gcs_address and waits until it serves.
Status StartRaylet(const NodeOptions& o, NodeRecord& r) {
  std::string resources = "{";
  for (const auto& [k, v] : o.resources) {
    resources += fmt::format("{}\"{}\": {}", resources.size() > 1 ? ", " : "", k, v);
  }
  resources += "}";
  SpawnOptions raylet = Daemon(
      o, r, "raylet",
      {"--gcs-address", r.gcs_address, "--resources", resources, "--node-ip-address", o.node_ip,
       "--object-store-memory",
       std::to_string(o.object_store_memory ? o.object_store_memory : DefaultObjectStoreBytes()),
       "--heartbeat-ms", std::to_string(o.heartbeat_ms)});
  RAY_ASSIGN_OR_RETURN(Child child, Spawn(raylet));
  r.raylet_pid = child.pid;
  auto ready = AwaitReady(r.session_dir + "/raylet.ready", r.raylet_pid, "the raylet",
                          raylet.stderr_path);
  if (!ready.ok()) {
    TerminateProcess(r.raylet_pid);
    if (ready.status().message().find("invalid cluster token") != std::string::npos) {
      return Status::PermissionDenied("the cluster at " + r.gcs_address +
                                      " refused this node: invalid cluster token (check --token)");
    }
    return ready.status();
  }
  r.raylet_socket = *ready;
  return Status::Ok();
}

// Starts the head's dashboard; on failure the head runs on without it and
// r.dashboard_error says why.
void StartDashboard(const NodeOptions& o, NodeRecord& r) {
  std::vector<std::string> args = {"--gcs-address", r.gcs_address, "--host", o.dashboard_host,
                                   "--port", std::to_string(o.dashboard_port)};
  if (o.dashboard_host == "0.0.0.0" || o.dashboard_host == "::") {
    args.insert(args.end(), {"--advertise-host", o.node_ip});
  }
  // Under a supervisor that starts it again if it dies (daemon_supervisor.h);
  // dashboard_pid is the supervisor's, dashboard.pid the server's.
  SpawnOptions spawn = Daemon(o, r, "dashboard_supervisor", args);
  auto child = Spawn(spawn);
  if (!child.ok()) {
    r.dashboard_error = child.status().message();
    return;
  }
  auto url = AwaitReady(r.session_dir + "/dashboard.ready", child->pid, "the dashboard",
                        r.session_dir + "/logs/dashboard.err");
  if (!url.ok()) {
    TerminateProcess(child->pid);
    r.dashboard_error = url.status().message();
    return;
  }
  r.dashboard_pid = child->pid;
  r.dashboard_url = *url;
}

}  // namespace

namespace {

// The head session last started under temp_dir, if it stopped and left its tables.
std::optional<NodeRecord> StoppedHead(const std::string& temp_dir) {
  std::error_code ec;
  fs::path latest = fs::canonical(temp_dir + "/session_latest", ec);
  if (ec || !fs::exists(latest / "gcs.sqlite3", ec)) return std::nullopt;
  auto r = ReadNodeRecord(latest.string());
  if (!r.ok() || r->gcs_pid <= 0 || !r->persistent_tables) return std::nullopt;
  for (int pid : {r->gcs_pid, r->raylet_pid, r->monitor_pid, r->dashboard_pid}) {
    if (pid > 0 && ProcessAlive(pid) &&
        ProcessCmdline(pid).find(r->session_dir) != std::string::npos) {
      return std::nullopt;  // still running: not ours to take over
    }
  }
  return std::move(r).value();
}

}  // namespace

Result<NodeRecord> StartHead(const NodeOptions& o) {
  std::optional<NodeRecord> previous;
  if (o.persistent_tables) previous = StoppedHead(o.temp_dir);
  // The stopped cluster's token, so that its other nodes may check in again.
  std::string token = o.token;
  if (token.empty() && previous) token = previous->token;
  if (token.empty()) token = ToHex(RandomBytes(16));
  RAY_ASSIGN_OR_RETURN(NodeRecord r, NewSession(o, token));
  r.persistent_tables = o.persistent_tables;
  std::vector<std::string> args = {"--listen", fmt::format("tcp://{}:{}", o.node_ip, o.port),
                                   "--heartbeat-timeout-ms",
                                   std::to_string(o.heartbeat_timeout_ms)};
  if (previous) {
    r.recovered_from = previous->session_dir;
    args.insert(args.end(), {"--recover-from", previous->session_dir + "/gcs.sqlite3"});
  }
  SpawnOptions gcs = Daemon(o, r, "gcs_supervisor", args);
  RAY_ASSIGN_OR_RETURN(Child gcs_child, Spawn(gcs));
  r.gcs_pid = gcs_child.pid;
  auto gcs_ready = AwaitReady(r.session_dir + "/gcs.ready", r.gcs_pid, "the GCS",
                              r.session_dir + "/logs/gcs.err");
  if (!gcs_ready.ok()) {
    TerminateProcess(r.gcs_pid);
    return gcs_ready.status();
  }
  r.gcs_address = *gcs_ready;
  if (Status st = StartRaylet(o, r); !st.ok()) {
    TerminateProcess(r.gcs_pid);
    return st;
  }
  if (!o.autoscaling_config.empty()) {
    SpawnOptions monitor = Daemon(o, r, "monitor",
                                  {"--gcs-address", r.gcs_address, "--autoscaling-config",
                                   fs::absolute(o.autoscaling_config).string()});
    auto child = Spawn(monitor);
    if (!child.ok()) {
      (void)StopNode(r);
      return child.status();
    }
    r.monitor_pid = child->pid;
  }
  if (o.include_webui) StartDashboard(o, r);
  RAY_RETURN_IF_ERROR(WriteRecord(r));
  return r;
}

Result<NodeRecord> JoinCluster(const NodeOptions& o, const std::string& head_address,
                               const std::string& token) {
  RAY_ASSIGN_OR_RETURN(NodeRecord r, NewSession(o, token));
  r.gcs_address = head_address;
  RAY_RETURN_IF_ERROR(StartRaylet(o, r));
  RAY_RETURN_IF_ERROR(WriteRecord(r));
  return r;
}

Status StopNode(const NodeRecord& node) {
  // Only processes that are still the ones we started (their command line names
  // this session) are signalled; a recycled pid is left alone.
  bool ok = true;
  // The autoscaler first, so that it launches nothing more.
  for (int pid : {node.monitor_pid, node.dashboard_pid, node.raylet_pid, node.gcs_pid}) {
    if (pid > 0 && ProcessAlive(pid) &&
        ProcessCmdline(pid).find(node.session_dir) != std::string::npos) {
      ok = TerminateProcess(pid, 3000) && ok;
    }
  }
  transport::RemoveSocketFile(node.raylet_socket);
  object_store::UnlinkAllSegments(ContentHash(node.session_dir).substr(0, 8));
  return ok ? Status::Ok() : Status::Internal("some processes of " + node.session_dir +
                                              " could not be stopped");
}

std::vector<NodeRecord> RunningNodes(const std::string& temp_dir) {
  std::vector<NodeRecord> out;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(temp_dir, ec)) {
    if (!entry.is_directory() || entry.is_symlink()) continue;
    if (entry.path().filename().string().rfind("session_", 0) != 0) continue;
    auto r = ReadNodeRecord(entry.path().string());
    if (!r.ok()) continue;
    bool alive = false;
    for (int pid : {r->raylet_pid, r->gcs_pid, r->monitor_pid, r->dashboard_pid}) {
      alive |= pid > 0 && ProcessAlive(pid) && ProcessCmdline(pid).find(r->session_dir) != std::string::npos;
    }
    if (alive) out.push_back(std::move(r).value());
  }
  std::sort(out.begin(), out.end(),
            [](const NodeRecord& a, const NodeRecord& b) { return a.session_dir < b.session_dir; });
  return out;
}

}  // namespace ray::node
