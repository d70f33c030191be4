#pragma once
// Who holds the objects whose ids left the process that created them: the raylet's
// count of borrowers, which decides when such an object is freed.
//
// The protocol (Ray's ownership model, with the node's raylet keeping the count of
// holders that Ray's owner keeps):
//   - The owner of an object is the process that created it (put it, or submitted the
//     task that returns it). It counts its own refs (runtime/api/reference_counter.h)
//     and, when none is left, lets go (FreeObjects.ids). An object nobody else holds
//     is freed then, as before.
//   - Others hold it through a holder the raylet counts here:
//       a process   that borrows it: it has refs to it that it got from elsewhere
//                   (FreeObjects.borrowed when its first comes, .unborrowed when its
//                   last goes);
//       a task      whose arguments hold it (TaskSpec.contained_refs), until the
//                   task's results are stored (an actor that may restart holds its
//                   constructor's arguments until it is dead);
//       an object   whose value holds it (PutRequest/TaskDone.contained_refs: refs
//                   nested in a put value or a task's result), until that object is
//                   freed.
//     The object is freed once its owner let go and no holder is left.
//   - Order makes it safe: a process names the refs it serialized in the carrier it
//     sends (task, put, result) and releases them only after it (same connection, in
//     order). A borrower registers before it lets go of what it got the ref from (the
//     object it read, on the same connection), and a worker that keeps a ref past a
//     task registers before it answers (a direct call: acknowledged by the raylet
//     before the answer goes to the caller, who holds the call's refs until then).
//   - A borrower that dies: its holds go (RemoveHolder). The owner that dies: a driver
//     ends its job, which frees the job's objects; a worker's objects stay while they
//     are borrowed (the value lives in the node's store) and until the job ends.
//   - An actor counts as held while its handles live: a handle is a ref to the actor's
//     creation result (the actor dies when that object is freed).
//
// Across nodes (peer_holds.h): an object's holds are counted on its home node (the
// owner's: see HomeTag), where another node that holds it is one holder (Node). A node
// that is not its home counts its own holders of it too (`owner_elsewhere`): there it
// comes out free once its last holder goes, and the raylet tells its home.
//
// Bookkeeping only (no sockets, no store): the raylet frees what this hands back. Not
// thread-safe.

#include <string>
#include <unordered_map>
#include <vector>

#include "runtime/ids/ids.h"

namespace ray::raylet {

class ObjectHolds {
 public:
  // Holder keys.
  static std::string Process(const std::string& peer) { return "p" + peer; }
  static std::string Task(const TaskId& task_id) { return "t" + task_id.Binary(); }
  static std::string Object(const ObjectId& id) { return "o" + id.Binary(); }
  static std::string Node(const std::string& node_id) { return "n" + node_id; }

  // One more hold of `holder` on `id`; whether `id` was held by nobody before.
  // `owner_elsewhere`: its owner is on another node (nothing here waits for the owner).
  bool Add(const ObjectId& id, const std::string& holder, bool owner_elsewhere = false);
  // One hold fewer (none: ignored). Appends `id` to `freed` if it is free now.
  void Remove(const ObjectId& id, const std::string& holder, std::vector<ObjectId>& freed);
  // Every hold of `holder` goes; appends the objects free now to `freed`.
  void RemoveHolder(const std::string& holder, std::vector<ObjectId>& freed);
  // The owner let go: true if the object is free now, else it is once the last
  // holder goes (then it comes out of Remove/RemoveHolder).
  bool OwnerReleased(const ObjectId& id);
  // Whether anyone but the owner holds `id`.
  bool Held(const ObjectId& id) const { return objects_.count(id) > 0; }
  bool empty() const { return objects_.empty(); }
  // Forgets the objects of job `job_id` and every hold on them.
  void EraseJob(const JobId& job_id);

 private:
  struct Holds {
    std::unordered_map<std::string, int> by;  // holder -> holds
    bool owner_released = false;
  };
  void Drop(const ObjectId& id, const std::string& holder, int n, std::vector<ObjectId>& freed);

  std::unordered_map<ObjectId, Holds, IdHash> objects_;
  std::unordered_map<std::string, std::unordered_map<ObjectId, int, IdHash>> holders_;
};

}  // namespace ray::raylet
