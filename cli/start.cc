// `ray start`: starts this machine's node in the background.

#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <thread>

#include <fmt/format.h>

#include "cli/commands.h"
#include "cli/common.h"
#include "runtime/base/util.h"
#include "runtime/node/node.h"
#include "runtime/scheduler/resources.h"

namespace ray::cli {

namespace {

struct StartOptions {
  bool head = false;
  int port = 6379;
  std::string address;
  std::string token;
  ResourceFlags resources;
  size_t object_store_memory = 0;
  std::string temp_dir = node::DefaultTempDir();
  std::string node_ip;  // head: 127.0.0.1; joining: this machine's address toward the head
  bool block = false;
  int64_t heartbeat_timeout_ms = 10000;
  std::string autoscaling_config;
  std::string include_webui = "true";  // Ray's name; "true" or "false"
  std::string dashboard_host = "127.0.0.1";
  int dashboard_port = 8265;
  bool dashboard_flags_given = false;  // any of the three, for a joining node's error
};

std::atomic<bool> g_interrupted{false};

// --block: stays until interrupted or a daemon exits, then stops the node.
void Block(const node::NodeRecord& node) {
  std::signal(SIGINT, [](int) { g_interrupted = true; });
  std::signal(SIGTERM, [](int) { g_interrupted = true; });
  auto alive = [&] {
    return ProcessAlive(node.raylet_pid) && (node.gcs_pid == 0 || ProcessAlive(node.gcs_pid));
  };
  while (!g_interrupted && alive()) std::this_thread::sleep_for(std::chrono::milliseconds(200));
  Status st = node::StopNode(node);
  if (!g_interrupted) Fail("start", Status::Unavailable("a node process exited; node stopped"));
  if (!st.ok()) Fail("start", st);
}

void Run(const StartOptions& o) {
  if (o.head == !o.address.empty()) {
    Fail("start", Status::InvalidArgument(
                      "pass --head to start a head node, or --address HEAD:PORT to join one"));
  }
  auto resources = o.resources.Resolve();
  if (!resources.ok()) Fail("start", resources.status());
  node::NodeOptions n;
  n.temp_dir = o.temp_dir;
  n.port = o.port;
  n.node_ip = o.node_ip.empty() ? "127.0.0.1" : o.node_ip;
  n.resources = *resources;
  n.object_store_memory = o.object_store_memory;
  n.heartbeat_timeout_ms = o.heartbeat_timeout_ms;
  n.persistent_tables = true;
  // Without --token: the file $RAY_CLUSTER_TOKEN_FILE names (the launcher puts the
  // cluster's there on every node).
  n.token = o.token;
  if (n.token.empty()) {
    auto token = TokenFromEnvironment();
    if (!token.ok()) Fail("start", token.status());
    n.token = *token;
  }
  if (!o.autoscaling_config.empty() && !o.head) {
    Fail("start", Status::InvalidArgument("--autoscaling-config is for the head (--head)"));
  }
  n.autoscaling_config = ExpandUser(o.autoscaling_config);  // as Ray does
  if (!n.autoscaling_config.empty() && ::access(n.autoscaling_config.c_str(), R_OK) != 0) {
    Fail("start", Status::InvalidArgument("--autoscaling-config: cannot read " +
                                          n.autoscaling_config));
  }
  if (o.include_webui != "true" && o.include_webui != "false") {
    Fail("start", Status::InvalidArgument("--include-webui takes true or false, not '" +
                                          o.include_webui + "'"));
  }
  if (!o.head && o.dashboard_flags_given) {
    Fail("start", Status::InvalidArgument(
                      "--include-webui, --dashboard-host and --dashboard-port are for the head "
                      "(--head): the head serves the dashboard"));
  }
  n.include_webui = o.head && o.include_webui == "true";
  n.dashboard_host = o.dashboard_host;
  n.dashboard_port = o.dashboard_port;
  if (!o.head) {
    if (n.token.empty()) {
      Fail("start", Status::InvalidArgument(
                        "joining needs the cluster token: --token (printed by `ray start --head`) "
                        "or a file named by $RAY_CLUSTER_TOKEN_FILE"));
    }
    std::string head = o.address.find("://") == std::string::npos ? "tcp://" + o.address : o.address;
    if (o.node_ip.empty()) {
      // Other nodes must reach this one: advertise the address facing the head.
      std::string host = head.substr(6, head.rfind(':') - 6);
      if (auto ip = LocalAddressToward(host)) n.node_ip = *ip;
    }
    auto node = node::JoinCluster(n, head, n.token);
    if (!node.ok()) Fail("start", node.status());
    std::printf("Joined the cluster at %s.\n  session:   %s\n  resources: %s\n", o.address.c_str(),
                node->session_dir.c_str(),
                scheduler::ResourceSet::FromDoubles(*resources).ToString().c_str());
    std::fflush(stdout);
    if (o.block) Block(*node);
    return;
  }
  auto node = node::StartHead(n);
  if (!node.ok()) Fail("start", node.status());
  std::string address = node->gcs_address.substr(6);  // strip tcp://
  // A token the user gave stays off the output (it may be a launcher's log).
  std::string token_hint = o.token.empty() && !n.token.empty()
                               ? "    (the one given; also in " + node->session_dir + "/token)"
                               : "    --token " + node->token;
  std::printf(
      "Started a ray head node.\n"
      "  session:   %s\n"
      "  address:   %s\n"
      "  resources: %s\n\n"
      "Run a job on this cluster:\n"
      "    ray submit --address %s job.so\n"
      "The cluster token (also in %s/token, mode 0600):\n"
      "%s\n"
      "See it:\n"
      "    ray status\n"
      "Stop it:\n"
      "    ray stop\n",
      node->session_dir.c_str(), address.c_str(),
      scheduler::ResourceSet::FromDoubles(*resources).ToString().c_str(), address.c_str(),
      node->session_dir.c_str(), token_hint.c_str());
  if (!node->dashboard_url.empty()) {
    // The token rides in the link only when it was printed above anyway.
    bool token_hidden = o.token.empty() && !n.token.empty();
    std::string link = node->dashboard_url + (token_hidden ? "/  (log in with the cluster token)"
                                                           : "/?token=" + node->token);
    std::printf("Dashboard:\n    %s\n", link.c_str());
  } else if (!node->dashboard_error.empty()) {
    std::printf("The dashboard did not start; the cluster runs without it:\n  %s\n",
                node->dashboard_error.c_str());
  }
  if (!node->recovered_from.empty()) {
    std::printf(
        "The cluster's tables (jobs, actors, plugins, task events) and token were taken\n"
        "over from the stopped head of %s.\n",
        node->recovered_from.c_str());
  }
  std::fflush(stdout);
  if (o.block) Block(*node);
}

}  // namespace

void AddStart(CLI::App& app) {
  auto o = std::make_shared<StartOptions>();
  auto* cmd = app.add_subcommand("start", "Start ray processes on this machine");
  cmd->add_flag("--head", o->head, "start a head node (GCS + raylet)");
  cmd->add_option("--port", o->port, "GCS port of the head node (default 6379; 0: any)")
      ->check(CLI::Range(0, 65535));
  cmd->add_option("--address", o->address, "join the cluster whose head is at HOST:PORT");
  cmd->add_option("--token", o->token,
                  "the cluster token, when joining (--address); default: the file "
                  "$RAY_CLUSTER_TOKEN_FILE names (a head then uses it instead of a new one)");
  o->resources.Add(cmd);
  cmd->add_option("--object-store-memory", o->object_store_memory,
                  "bytes of shared memory for objects (default: 30% of RAM, at most 20 GB)");
  cmd->add_option("--temp-dir", o->temp_dir, "root of session dirs (default $RAY_TMPDIR, else /tmp/ray)");
  cmd->add_option("--node-ip-address", o->node_ip,
                  "IP address of this node (default: 127.0.0.1 for a head; when joining, this "
                  "machine's address toward the head)");
  cmd->add_flag("--block", o->block, "stay in the foreground until interrupted, then stop");
  cmd->add_option("--heartbeat-timeout-ms", o->heartbeat_timeout_ms,
                  "head: a node silent this long is marked dead (default 10000)")
      ->check(CLI::Range(int64_t{100}, int64_t{3600000}));
  cmd->add_option("--autoscaling-config", o->autoscaling_config,
                  "head: run the autoscaler with this cluster config (written by `ray up`)");
  std::vector<CLI::Option*> dashboard = {
      cmd->add_option("--include-webui", o->include_webui,
                      "head: serve the web dashboard, true (default) or false"),
      cmd->add_option("--dashboard-host", o->dashboard_host,
                      "head: the dashboard's address (default 127.0.0.1; 0.0.0.0: all)"),
      cmd->add_option("--dashboard-port", o->dashboard_port,
                      "head: the dashboard's port (default 8265; 0: any free port)")
          ->check(CLI::Range(0, 65535))};
  cmd->callback([o, dashboard] {
    for (auto* opt : dashboard) o->dashboard_flags_given |= opt->count() > 0;
    Run(*o);
  });
}

}  // namespace ray::cli
