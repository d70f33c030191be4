#pragma once
// The raylet's clients: drivers and the workers it started, by peer (their socket
// identity), with the workers that are idle (warm ones first) and the number still
// starting (started, not registered yet).
//
// Bookkeeping only: no sockets, no processes (the raylet starts and reaps them; see
// worker_pool.h). Not thread-safe.

#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "runtime/ids/ids.h"
#include "runtime/raylet/gpu_allocator.h"
#include "runtime/raylet/object_table.h"
#include "runtime/scheduler/resources.h"
#include "runtime/serialization/protocol.h"
#include "runtime/serialization/running_task.h"
#include "runtime/serialization/start_gate.h"

namespace ray::raylet {

using protocol::TaskSpec;
using scheduler::ResourceSet;

struct Client {
  std::string peer;
  bool is_driver = false;
  bool registered = false;
  int pid = 0;
  JobId job_id;  // drivers
  // Workers.
  enum State { kStarting, kIdle, kBusy, kActor } state = kStarting;
  std::optional<TaskSpec> running;
  // Normal tasks sent ahead to run after `running`, holding the same resources.
  std::deque<TaskSpec> queued;
  bool no_pipelining = false;  // the running task called Get or Wait
  ResourceSet held;      // subtracted from the node's available resources
  bool blocked = false;  // in a Get or Wait for objects not yet ready; CPU lent back
  // Its Gets and Waits that wait here (by request id): its CPU is lent while any does.
  std::map<uint64_t, std::weak_ptr<Waiter>> blocking;
  ActorId actor_id;  // the actor it hosts (kActor)
  std::map<std::string, int> calls;  // function -> times run (max_calls)
  JobId last_job;                    // for log routing
  GpuGrant gpus;                     // GPU ids held with `held` (actors: for life)
  int64_t dispatched_ms = 0;         // wall clock: when `running` was sent
  std::string direct_endpoint;       // where callers reach the actor it may host
  std::string tcp_endpoint;          // ...and callers on other nodes (once asked to listen)
  bool tcp_asked = false;            // kListenTcp sent
  // Answers waiting for tcp_endpoint: route asks for the actor it hosts, and the
  // answer to the node whose caller it is leased to.
  std::vector<protocol::RouteAsk> route_asks;
  std::optional<std::pair<std::string, protocol::LeaseAnswer>> lease_answer;  // (to that node)
  std::string leased_to;             // the caller it runs tasks for, directly
  std::string leased_from;           // ...that caller's node, if another than this
  ResourceSet lease_shape;           // what the lease holds (`held`, unless blocked)
  std::vector<ActorId> owned_actors;  // created here by this worker: they die with it
  // The runtime environment (canonical runtime_env) the worker serves, once bound by
  // its first task or lease: workers of different environments are never shared.
  bool env_bound = false;
  std::string runtime_env;
  bool Serves(const std::string& env) const { return !env_bound || runtime_env == env; }
  // Binds it to runtime environment `env`, which it serves (see Serves).
  void Bind(const std::string& env) {
    env_bound = true;
    runtime_env = env;
  }
  // The direct call it runs (see running_task.h), once looked at.
  std::shared_ptr<protocol::RunningTaskSlot> running_slot;
  // Its start gate (start_gate.h; null until first needed, or if it has none: then no
  // tasks go ahead to it), and, while it runs tasks of ours, the starts before
  // `running`: running is start gate_base + 1, queued[i] gate_base + 2 + i.
  std::shared_ptr<protocol::StartGate> gate;
  uint64_t gate_base = 0;
  // `gate`, opened on first use (null if it has none).
  protocol::StartGate* Gate();
  // We closed its gate and its marker (RevokeTasks) may not be read yet: until it idles,
  // no task goes ahead to it and its gate is not closed again (the marker of the first
  // close reopens it: tasks sent after that marker could start though taken back).
  bool marker_due = false;
};

class ClientTable {
 public:
  using Map = std::unordered_map<std::string, Client>;

  Client* Find(const std::string& peer);
  const Client* Find(const std::string& peer) const;
  bool Has(const std::string& peer) const { return clients_.count(peer) > 0; }
  Map& all() { return clients_; }
  const Map& all() const { return clients_; }

  // A driver connected.
  Client& AddDriver(const std::string& peer, int pid, const JobId& job_id);
  // A worker was started: kStarting until it registers.
  void AddStarting(const std::string& peer);
  // Worker `w` registered: it is idle, after the idle ones (they are warmer). A
  // second registration changes nothing.
  void Register(Client& w, int pid, const std::string& direct_endpoint);
  // Removes the client; returns it (nullopt if unknown).
  std::optional<Client> Take(const std::string& peer);

  // Worker `w` is idle again: first in line (a warm worker first).
  void MakeIdle(Client& w);
  // The first idle worker that serves runtime environment `env` (see Client::Serves),
  // moved to the head of the line (where TakeFirstIdle takes it), or null. Entries of
  // workers gone, or no longer idle, are dropped on the way.
  Client* FirstIdle(const std::string& env = "");
  // Takes the head of the line (the worker FirstIdle gave) out of it.
  void TakeFirstIdle() { idle_.pop_front(); }
  // The idle line, by peer (some entries may be stale until FirstIdle drops them).
  const std::deque<std::string>& idle() const { return idle_; }
  // Workers started and not registered yet.
  size_t starting() const { return starting_; }
  // Workers hosting an actor.
  size_t Actors() const;

 private:
  Map clients_;
  std::deque<std::string> idle_;
  size_t starting_ = 0;
};

}  // namespace ray::raylet
