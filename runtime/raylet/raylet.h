#pragma once
// The raylet: one per node. It owns the node's object table (small objects inline,
// large ones as segments of the shared-memory store), queues tasks until their
// arguments exist and their resources are free, runs them on its worker processes,
// hosts actors on dedicated workers (methods in submission order), retries tasks
// whose worker died, and reports the node to the GCS with heartbeats.
//
// Clients (drivers and workers) talk to it over one ZeroMQ ROUTER socket. It is
// single-threaded: one event loop, no locks. Malformed input is logged and dropped.

#include <atomic>
#include <map>
#include <string>

#include "runtime/base/clock.h"
#include "runtime/base/status.h"

namespace ray::raylet {

struct RayletOptions {
  std::string session_dir;
  std::string gcs_address;  // tcp://host:port of the GCS
  std::string token;        // cluster token
  std::string node_ip = "127.0.0.1";
  std::map<std::string, double> resources;  // this node's totals ("CPU", "GPU", custom)
  size_t object_store_bytes = 20ull << 30;
  int heartbeat_ms = 250;
  int max_workers = 0;        // 0: 4 x CPUs, at least 16
  int prestart_workers = -1;  // -1: one per CPU
  std::string ready_file;     // written with the raylet's endpoint once serving
  // What the raylet's timers read (deadlines of Gets and Waits, heartbeats, retries,
  // pulls, worker starts); null: the system clock. Not owned; outlives the raylet.
  const Clock* clock = nullptr;
};

// Serves until `stop` becomes true.
Status RunRaylet(const RayletOptions& options, const std::atomic<bool>& stop);

}  // namespace ray::raylet
