#pragma once
// The actors this node knows of: those it hosts or is placing (their creation task,
// their worker, the calls queued and in flight, their restarts), and handles to actors
// that live on other nodes (where their calls are forwarded).
//
// Bookkeeping only: no sockets, no clock; the raylet owns one and carries out what
// it decides (not thread-safe). Entries stay after an actor dies, so that its calls
// fail with the cause, until its job ends. A detached actor (creation.detached, the
// field lifetime policies test) outlives its job: its entry stays while it lives.

#include <algorithm>
#include <deque>
#include <memory>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "runtime/ids/ids.h"
#include "runtime/raylet/object_table.h"
#include "runtime/serialization/protocol.h"

namespace ray::raylet {

// (An actor's id is its creation task's: ActorOfCreation and CreationTaskOf in ids.h.)

struct Actor {
  enum State { kPending, kAlive, kRestarting, kDead } state = kPending;
  protocol::TaskSpec creation;
  std::string worker;       // peer
  std::string remote_node;  // set when the actor lives on another node: calls go there
  std::deque<protocol::TaskSpec> queue;     // not yet sent, in submission order
  std::deque<protocol::TaskSpec> inflight;  // sent, in order
  std::shared_ptr<Waiter> head_waiter;  // the queue's head waits for its arguments
  int restarts = 0;
  std::string death_cause;
  // Clients told its worker's endpoint: here (for an actor on another node, those
  // this node asked a route for), and on other nodes (node id, caller).
  std::set<std::string> direct_callers;
  std::set<std::pair<std::string, std::string>> remote_callers;
  bool killed = false;                    // Kill()ed: dies, never restarts

  // Whether it may restart after its worker or node died (max_restarts -1: always).
  bool MayRestart() const {
    return creation.max_restarts < 0 || restarts < creation.max_restarts;
  }
  // Whether calls of `caller` wait here, queued or in flight. A caller's calls run in
  // the order made, so it may call the actor directly only once none do.
  bool HasCallsFrom(const std::string& caller) const;

  // The calls that fail when it dies: those it was running, and those queued.
  struct Lost {
    std::vector<protocol::TaskSpec> running, queued;
  };
  // Its worker (or node) died, for `cause`. `restart`: it restarts (one restart used,
  // kRestarting): the calls in flight with retries left (max_task_retries) go back to
  // the head of the queue, in their order, one retry used, to run first on the
  // restarted actor. Else it is kDead, with `cause` unless a kill said why already, and
  // every call fails. Returns the calls that fail; its worker and head waiter are gone.
  Lost Die(bool restart, const std::string& cause);
};

class ActorDirectory {
 public:
  Actor* Find(const ActorId& id);
  const Actor* Find(const ActorId& id) const;
  // The actor's entry, made (kPending) if there is none.
  Actor& Entry(const ActorId& id) { return actors_[id]; }
  // Whether the actor is unknown here or dead.
  bool Gone(const ActorId& id) const;
  // Calls f(id, actor) for each actor. f may not add or remove actors.
  template <typename F>
  void ForEach(F&& f) {
    for (auto& [id, a] : actors_) f(id, a);
  }
  // Forgets the actors job `job_id` created, but its detached ones still alive.
  void EraseJob(const JobId& job_id);
  // Drops from `owned` (a worker's list of the actors it created) those gone or dead.
  void PruneOwned(std::vector<ActorId>& owned) const;

 private:
  std::unordered_map<ActorId, Actor, IdHash> actors_;
};

}  // namespace ray::raylet
