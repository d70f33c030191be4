#pragma once
// Readers of the objects held here, answered once their objects are: the Gets and Waits
// of clients, other nodes' pulls, and tasks waiting for their arguments (see Waiter).
// A reader waits in the object table until its objects are here or its deadline
// passes; spilled objects it reads are restored on the store's thread first (the loop
// goes on meanwhile); then a Get or Wait gets its reply, and the raylet hears of a task
// whose arguments are ready or a pull to serve.
//
// The raylet loop owns one (not thread-safe). It reads the raylet's object table and
// store, and queues replies in the raylet's outbox.

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "runtime/ids/ids.h"
#include "runtime/object_store/object_store.h"
#include "runtime/raylet/cpu_lending.h"
#include "runtime/raylet/object_table.h"
#include "runtime/raylet/outbox.h"
#include "runtime/serialization/protocol.h"

namespace ray::raylet {

class ObjectReads {
 public:
  struct Node {
    ObjectTable& objects;
    object_store::ObjectStore& store;
    Outbox& outbox;
    CpuLending& lending;  // told when a client's Get or Wait is answered
    // The store evicted copies to make room (the raylet forgets them).
    std::function<void()> drop_evicted;
    // Object `id` is not here: look for it (at node `hint` first, if not empty).
    std::function<void(const ObjectId& id, const std::string& hint)> locate;
    // A task's arguments (kTask) are here, all in memory.
    std::function<void(Waiter& w)> args_ready;
    // The object another node pulls (kPeerPull) is here, in memory.
    std::function<void(Waiter& w)> pull_ready;
  };

  explicit ObjectReads(Node node) : node_(std::move(node)) {}

  // Reader `w` waits until its objects are here (answered at once if they are).
  void Await(const std::shared_ptr<Waiter>& w);
  // Reader `w`'s objects are here, or its deadline passed: it is answered (with what
  // is ready so far), once those of its objects that were spilled are back in memory.
  // Answered once.
  void Complete(const std::shared_ptr<Waiter>& w);
  // Readers whose deadline passed are answered.
  void ExpireDeadlines();
  // The store's background spills and restores ended: readers of restored objects
  // are answered.
  void OnStoreIo();
  // The object as a reader gets it (kMissing if it is not here). A spilled object is
  // restored first, waiting for the disk (an error payload says why if that fails);
  // readers that can wait for it in the background did so already. Counts as a use.
  protocol::ObjectPayload PayloadOf(const ObjectId& id);

 private:
  // Starts restoring `w`'s spilled objects in the background: true if it must wait
  // for them (Complete is called again once they are back, from OnStoreIo), false if
  // they are all in memory (or cannot be restored: PayloadOf says why).
  bool AwaitRestore(const std::shared_ptr<Waiter>& w);

  Node node_;
  // Readers of objects being restored from disk, by object.
  std::unordered_map<ObjectId, std::vector<std::shared_ptr<Waiter>>, IdHash> restoring_;
  // Objects whose background restore failed: their readers are answered with the
  // error (PayloadOf tries once more, in the loop), not left to restore them again.
  std::unordered_set<ObjectId, IdHash> unrestorable_;
};

}  // namespace ray::raylet
