// Hidden modes of the one binary: the daemons `ray start` and the raylet launch.

#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <cstring>
#include <string_view>

#include <nlohmann/json.hpp>

#include "runtime/transport/floor.h"
#include "cli/commands.h"
#include "cli/common.h"
#include "runtime/base/logging.h"
#include "runtime/base/net.h"
#include "runtime/base/util.h"
#include "runtime/cluster/monitor.h"
#include "runtime/dashboard/dashboard.h"
#include "runtime/gcs/gcs_server.h"
#include "runtime/node/gcs_supervisor.h"
#include "runtime/raylet/raylet.h"
#include "runtime/raylet/zygote.h"
#include "runtime/worker/worker.h"

namespace ray::cli {

namespace {

std::atomic<bool> g_stop{false};

void StopOnSignals() {
  std::signal(SIGTERM, [](int) { g_stop = true; });
  std::signal(SIGINT, [](int) { g_stop = true; });
}

std::string Token(const std::string& session_dir) {
  auto t = ReadFile(session_dir + "/token");
  if (!t.ok()) Fail("daemon", t.status());
  return *t;
}

}  // namespace

void AddDaemons(CLI::App& app, int argc, char** argv) {
  auto gcs = std::make_shared<gcs::GcsOptions>();
  auto* g = app.add_subcommand("_gcs", "")->group("");
  g->add_option("--session-dir", gcs->session_dir)->required();
  g->add_option("--listen", gcs->listen);
  g->add_option("--heartbeat-timeout-ms", gcs->heartbeat_timeout_ms);
  g->add_option("--recover-from", gcs->recover_from);
  g->callback([gcs] {
    InitLogging("gcs", "");
    StopOnSignals();
    gcs->token = Token(gcs->session_dir);
    gcs->ready_file = gcs->session_dir + "/gcs.ready";
    Status st = gcs::RunGcsServer(*gcs, g_stop);
    if (!st.ok()) Fail("_gcs", st);
  });

  // The head's GCS supervisor (runtime/node/gcs_supervisor.h): runs `_gcs` and starts
  // it again when it exits.
  auto sup = std::make_shared<node::GcsSupervisorOptions>();
  auto* gs = app.add_subcommand("_gcs_supervisor", "")->group("");
  gs->add_option("--session-dir", sup->session_dir)->required();
  gs->add_option("--listen", sup->listen)->required();
  gs->add_option("--heartbeat-timeout-ms", sup->heartbeat_timeout_ms);
  gs->add_option("--recover-from", sup->recover_from);
  gs->callback([sup] {
    InitLogging("gcs_supervisor", "");
    StopOnSignals();
    Status st = node::RunGcsSupervisor(*sup, g_stop);
    if (!st.ok()) Fail("_gcs_supervisor", st);
  });

  struct RayletFlags {
    raylet::RayletOptions options;
    std::string resources_json;
  };
  auto r = std::make_shared<RayletFlags>();
  auto* rl = app.add_subcommand("_raylet", "")->group("");
  rl->add_option("--session-dir", r->options.session_dir)->required();
  rl->add_option("--gcs-address", r->options.gcs_address)->required();
  rl->add_option("--resources", r->resources_json)->required();
  rl->add_option("--node-ip-address", r->options.node_ip);
  rl->add_option("--object-store-memory", r->options.object_store_bytes);
  rl->add_option("--heartbeat-ms", r->options.heartbeat_ms);
  rl->callback([r] {
    InitLogging("raylet", "");
    StopOnSignals();
    try {
      r->options.resources = nlohmann::json::parse(r->resources_json).get<std::map<std::string, double>>();
    } catch (const std::exception& e) {
      Fail("_raylet", Status::InvalidArgument(std::string("--resources: ") + e.what()));
    }
    r->options.token = Token(r->options.session_dir);
    r->options.ready_file = r->options.session_dir + "/raylet.ready";
    Status st = raylet::RunRaylet(r->options, g_stop);
    if (!st.ok()) Fail("_raylet", st);
  });

  // The autoscaler of a head started with --autoscaling-config.
  auto m = std::make_shared<cluster::MonitorOptions>();
  auto* mo = app.add_subcommand("_monitor", "")->group("");
  mo->add_option("--session-dir", m->session_dir)->required();
  mo->add_option("--gcs-address", m->gcs_address)->required();
  mo->add_option("--autoscaling-config", m->config_path)->required();
  mo->callback([m] {
    InitLogging("monitor", "");
    StopOnSignals();
    m->token = Token(m->session_dir);
    Status st = cluster::RunMonitor(*m, g_stop);
    if (!st.ok()) Fail("_monitor", st);
  });

  // The web dashboard of a head started without --include-webui false, and the
  // supervisor `ray start --head` runs it under (it starts the dashboard again, on
  // the port it bound first, whenever it exits).
  auto d = std::make_shared<dashboard::DashboardOptions>();
  auto dashboard_flags = [d](CLI::App* cmd) {
    cmd->add_option("--session-dir", d->session_dir)->required();
    cmd->add_option("--gcs-address", d->gcs_address)->required();
    cmd->add_option("--host", d->host);
    cmd->add_option("--port", d->port);
    cmd->add_option("--advertise-host", d->advertise_host);
  };
  auto* da = app.add_subcommand("_dashboard", "")->group("");
  dashboard_flags(da);
  da->callback([d] {
    InitLogging("dashboard", "");
    StopOnSignals();
    d->token = Token(d->session_dir);
    d->ready_file = d->session_dir + "/dashboard.ready";
    Status st = dashboard::RunDashboard(*d, g_stop);
    if (!st.ok()) Fail("_dashboard", st);
  });
  auto* ds = app.add_subcommand("_dashboard_supervisor", "")->group("");
  dashboard_flags(ds);
  ds->callback([d] {
    InitLogging("dashboard_supervisor", "");
    StopOnSignals();
    Status st = dashboard::RunDashboardSupervisor(*d, g_stop);
    if (!st.ok()) Fail("_dashboard_supervisor", st);
  });

  // The peer of `ray microbenchmark`'s ZeroMQ floor measurement.
  auto endpoint = std::make_shared<std::string>();
  auto* fp = app.add_subcommand("_floor_peer", "")->group("");
  fp->add_option("endpoint", *endpoint)->required();
  fp->callback([endpoint] { throw Exit{transport::RunFloorPeer(*endpoint)}; });

  // The loopback tcp floor alone, for benchmarks of work between nodes
  // (tests/bench/cross_node_bench.sh): prints roundtrips_per_s= and messages_per_s=,
  // and with --bandwidth bytes_per_s= (8 MiB messages, one way:
  // tests/bench/netns_transfer_bench.sh).
  auto floor_seconds = std::make_shared<double>(1.0);
  auto floor_bandwidth = std::make_shared<bool>(false);
  auto* ft = app.add_subcommand("_tcp_floor", "")->group("");
  ft->add_option("--seconds", *floor_seconds, "how long each measurement runs")
      ->check(CLI::PositiveNumber);
  ft->add_flag("--bandwidth", *floor_bandwidth,
               "also measure one-way bandwidth with 8 MiB messages (bytes_per_s=)");
  ft->callback([floor_seconds, floor_bandwidth] {
    // Two free loopback ports in a row (the peer binds them a moment later).
    int port = 0;
    for (int p = 20000 + ::getpid() % 20000; p < 60000 && !port; p += 2) {
      if (LoopbackPortFree(p) && LoopbackPortFree(p + 1)) port = p;
    }
    if (!port) Fail("_tcp_floor", Status::Unavailable("no two free loopback ports in a row"));
    auto floor = transport::MeasureFloor({SelfExecutable(), "_floor_peer"},
                                         "tcp://127.0.0.1:" + std::to_string(port), *floor_seconds,
                                         *floor_bandwidth);
    if (!floor.ok()) Fail("_tcp_floor", floor.status());
    std::printf("roundtrips_per_s=%.0f\nmessages_per_s=%.0f\n", floor->roundtrips_per_s,
                floor->messages_per_s);
    if (*floor_bandwidth) std::printf("bytes_per_s=%.0f\n", floor->bytes_per_s);
  });

  auto w = std::make_shared<worker::WorkerOptions>();
  auto run_worker = [w] {
    InitLogging("worker", "");
    std::setvbuf(stdout, nullptr, _IOLBF, 0);
    Status st = worker::RunWorker(*w);
    if (!st.ok()) Fail("_worker", st);
  };
  auto* wk = app.add_subcommand("_worker", "")->group("");
  wk->add_option("--raylet", w->raylet_endpoint)->required();
  wk->add_option("--worker-id", w->worker_id_hex)->required();
  wk->add_option("--session-dir", w->session_dir)->required();
  wk->add_option("--node-id", w->node_id_hex);
  wk->callback(run_worker);

  // The raylet's fork server (runtime/raylet/zygote.h): each worker it forks runs as
  // `_worker` would, with the id the raylet gave it. Its command line then reads
  // `_worker ... --worker-id <id>` (written over `_zygote` and the placeholder id), as
  // for a worker started with exec.
  auto zygote_fd = std::make_shared<int>(-1);
  auto* zy = app.add_subcommand("_zygote", "")->group("");
  zy->add_option("--fd", *zygote_fd)->required();
  zy->add_option("--worker-id", w->worker_id_hex);  // placeholder
  zy->add_option("--raylet", w->raylet_endpoint)->required();
  zy->add_option("--session-dir", w->session_dir)->required();
  zy->add_option("--node-id", w->node_id_hex);
  zy->callback([w, zygote_fd, run_worker, argc, argv] {
    auto id = raylet::ServeZygote(*zygote_fd);
    if (!id) return;  // the raylet is gone
    for (int i = 1; i < argc; ++i) {
      std::string_view arg = argv[i];
      if (arg == "_zygote") std::memcpy(argv[i], "_worker", arg.size());
      if (arg == "--worker-id" && i + 1 < argc && std::strlen(argv[i + 1]) == id->size()) {
        std::memcpy(argv[i + 1], id->data(), id->size());
      }
    }
    w->worker_id_hex = *id;
    run_worker();
  });
}

}  // namespace ray::cli
