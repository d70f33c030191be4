#pragma once
// What happens to the actors this node hosts, places or calls (their table is
// actor_directory.h):
//   - calls: queued in submission order and sent to the actor's worker as their
//     arguments arrive (a call waiting for one holds back those behind it), or
//     forwarded to the node it lives on (the GCS says which, for a handle from
//     elsewhere), or failed with the cause of its death;
//   - its constructor finishing (ALIVE) or failing (dead);
//   - its death: a restart while it has restarts left (calls in flight with retries
//     left run again first, the others fail), else DEAD, its calls failed and its
//     constructor's arguments let go of;
//   - kills: for good, or as a crash (it restarts if it may), here or asked of its node;
//     and the deaths that follow others: its creator's, or its last handle's;
//   - its direct callers (here and on other nodes) told it is gone, and its GCS record.
//
// The raylet owns one (not thread-safe) and carries out what it asks through Deps:
// forward, execute, fail and start tasks, kill workers, tell other nodes.

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "runtime/gcs/gcs_client.h"
#include "runtime/ids/ids.h"
#include "runtime/raylet/actor_directory.h"
#include "runtime/raylet/client_table.h"
#include "runtime/raylet/gcs_backlog.h"
#include "runtime/raylet/gcs_reports.h"
#include "runtime/raylet/object_table.h"
#include "runtime/raylet/outbox.h"
#include "runtime/scheduler/placement.h"
#include "runtime/serialization/protocol.h"

namespace ray::raylet {

class ActorHost {
 public:
  struct Deps {
    std::string self;  // this node's id (binary)
    ActorDirectory& actors;
    ClientTable& clients;
    const ObjectTable& objects;
    Outbox& outbox;
    GcsReports& reports;
    // Where an actor lives, for a handle from elsewhere; and the calls that wait while
    // the GCS does not answer.
    gcs::GcsClient& gcs;
    GcsBacklog& gcs_backlog;
    const scheduler::Placement& placement;
    // Sends a frame to another node (false: its address is not known yet).
    std::function<bool(const std::string& node, const std::string& frame)> tell;
    // Sends task `t` to `node` (the actor's calls follow its creation there).
    std::function<void(protocol::TaskSpec t, const std::string& node)> forward;
    // Sends call `t` to the actor's worker `w`.
    std::function<void(Client& w, const protocol::TaskSpec& t)> execute;
    // Fails task `t`: its results are the error.
    std::function<void(const protocol::TaskSpec& t, ray::internal::ErrorKind kind,
                       const std::string& type, const std::string& message)>
        fail;
    // Runs the actor's creation again here (a restart), once its arguments are here.
    std::function<void(protocol::TaskSpec creation)> start;
    // Waits for the arguments of the call at the head of an actor's queue (a kTask
    // waiter; ArgumentsReady when they are here).
    std::function<void(std::shared_ptr<Waiter> w)> await;
    std::function<void(const std::string& worker)> kill_worker;
    // The arguments of task `task` let go of what they held.
    std::function<void(const TaskId& task)> release_arguments;
    // Whether `t`'s job ended (a detached actor's creation outlives it).
    std::function<bool(const protocol::TaskSpec& t)> job_over;
    // Drops actor creation `creation` from the queue of tasks ready to start here.
    std::function<void(const TaskId& creation)> drop_queued;
  };
  explicit ActorHost(Deps deps) : d_(std::move(deps)) {}

  // A call `t` of an actor, from a client here or another node.
  void Submit(protocol::TaskSpec t);
  // The actor's worker `w` ran `done`: its creation (the actor is alive, or its
  // constructor failed) or one of its calls.
  void TaskDone(Client& w, const protocol::TaskDone& done);
  // The arguments of the call at the head of actor `id`'s queue are here.
  void ArgumentsReady(const ActorId& id);
  // Its worker (or its placement) is gone, for `cause`: it restarts if it may, else it
  // is dead.
  void Died(const ActorId& id, const std::string& cause);
  // Kills it wherever it runs: here (on its worker, or still waiting to be placed), or
  // on the node that hosts it (the GCS says where, if this node does not know).
  // `no_restart`: for good; else its worker is killed and it restarts if it may.
  // `cause` (if not empty) is recorded as why it died.
  void Kill(const ActorId& id, bool no_restart = true, const std::string& cause = "");
  // The actors a dead worker created (its `owned_actors`, here or on other nodes)
  // share its fate, as in Ray's ownership model (detached ones excepted).
  void KillOwnedBy(const std::vector<ActorId>& owned);
  // The last handle to the actor is gone (its creation result was freed): it dies,
  // unless it outlives its handles (detached).
  void Unreferenced(const ActorId& id);
  // Records an actor creation in its creator's `owned_actors` (workers only: a
  // driver's actors go with its job).
  void NoteOwner(const protocol::TaskSpec& creation);
  // Records the actor ALIVE here or DEAD in the GCS: at once if other nodes may look
  // for it or its name must be freed, else with the reports' next batch.
  void Record(const ActorId& id, const Actor& a);
  // Tells the actor's direct callers its worker is gone (or going): see ActorGone.
  void TellCallersGone(const ActorId& id, Actor& a, const std::string& cause);

 private:
  // Sends the actor's queued calls to its worker while their arguments are here.
  void Pump(Actor& a);

  Deps d_;
};

}  // namespace ray::raylet
