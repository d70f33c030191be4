#pragma once
// Counts this process's ObjectRefs (and ActorHandles, which count as refs to their
// actor's creation result): to the objects it owns (created: puts and task results)
// and to those it borrows (got from elsewhere: task arguments, values it read, results
// of other tasks). What the raylet must hear comes out in one Changes:
//   - owned objects whose count reached zero: the owner lets go (FreeObjects.ids). The
//     raylet frees the object at once unless others hold it (see
//     runtime/raylet/object_holds.h, which states the whole protocol), then when the
//     last of them lets go;
//   - borrowed objects this process started or stopped holding (FreeObjects.borrowed /
//     unborrowed): the raylet counts this process among the object's holders.
// A borrow's start and end are reconciled when changes are taken, so a ref made and
// dropped between two sends costs no message.
//
// Ids a thread serialized (RefEscaped) since its last TakeContained() are "contained"
// in the next carrier that thread sends (a task's arguments, a put value, a task's results):
// the raylet holds them for as long as the carrier lives. Until that carrier is sent
// (CarrierSent), no free or unborrow of those ids goes out, so that the raylet always
// hears of the carrier's hold before this process's release.
//
// Thread-safe: plugins drop ObjectRefs on any thread; the client takes what is due.
// Contained ids are kept per thread, because a thread serializes a carrier's refs and
// then sends that carrier itself (a submission, a put, a concurrent actor call's
// results), while other threads do the same with theirs.

#include <mutex>
#include <thread>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "runtime/ids/ids.h"

namespace ray::core {

class ReferenceCounter {
 public:
  // An object this process created. `direct`: the result of a direct call, which the
  // raylet does not know until promoted (see TakeEscapedDirect).
  void Own(const ObjectId& id, bool direct = false);
  // A change in the number of refs here. A ref to an object not owned here is a borrow.
  void RefDelta(const ObjectId& id, int32_t delta);
  // A direct call in flight holds what its arguments hold, until answered: counted
  // like refs, except that an owned object no ObjectRef ever referred to (a raw id's)
  // is not freed when its calls end.
  void HoldForCall(const ObjectId& id) { CallDelta(id, +1); }
  void ReleaseForCall(const ObjectId& id) { CallDelta(id, -1); }
  // The id was serialized (into a task, a value, a result): contained in the next carrier.
  void RefEscaped(const ObjectId& id);
  // The raylet holds these results from now on (a direct call sent through it again).
  void ClearDirect(const std::vector<ObjectId>& ids);

  // The ids serialized since the last call, for the carrier about to be sent; their
  // releases wait until CarrierSent(those ids).
  std::vector<ObjectId> TakeContained();
  void CarrierSent(const std::vector<ObjectId>& ids);

  struct Changes {
    std::vector<ObjectId> borrowed;    // this process holds them now (send first)
    std::vector<ObjectId> freed;       // owned, no ref left here: the owner lets go
    std::vector<bool> freed_escaped;   // per freed id: whether it ever left the process
    std::vector<ObjectId> unborrowed;  // no ref left here to these borrowed objects
    bool empty() const { return borrowed.empty() && freed.empty() && unborrowed.empty(); }
  };
  // What the raylet must hear now. Owned frees wait until kFreeBatch have gathered
  // unless `all` (a put-and-drop loop then costs little); borrows always go.
  Changes TakeChanges(bool all);
  // Whether borrows not yet told to the raylet exist (a direct task's worker tells
  // them before answering, so that they reach the raylet before the caller's release).
  bool BorrowsPending() const;
  // Direct results whose ids escaped since the last call: the raylet must get them.
  std::vector<ObjectId> TakeEscapedDirect();

  static constexpr size_t kFreeBatch = 256;

 private:
  struct Ref {
    int32_t refs = 0;
    int32_t calls = 0;  // direct calls in flight that hold it
    bool owned = false;
    bool referenced = false;  // owned: an ObjectRef referred to it once
    bool escaped = false;
    bool direct = false;
    bool registered = false;  // borrowed: the raylet counts this process as a holder
  };
  mutable std::mutex mu_;
  std::unordered_map<ObjectId, Ref, IdHash> refs_;
  std::vector<ObjectId> unreferenced_;  // owned objects whose count reached 0
  std::vector<ObjectId> borrow_changes_;  // borrowed objects whose holding may differ
  std::vector<ObjectId> to_promote_;      // direct results whose ids escaped
  // Per thread: serialized since that thread's last carrier.
  std::unordered_map<std::thread::id, std::unordered_set<ObjectId, IdHash>> contained_;
  std::unordered_map<ObjectId, int, IdHash> in_transit_;  // in carriers being sent

  void CallDelta(const ObjectId& id, int32_t delta);
  // Called with the lock held after a count of `id` changed.
  void Changed(const ObjectId& id, std::unordered_map<ObjectId, Ref, IdHash>::iterator it,
               bool inserted);
  // Whether a release of `id` must wait: its carrier is not sent yet.
  bool HeldBack(const ObjectId& id) const {
    if (in_transit_.count(id) > 0) return true;
    for (const auto& [thread, ids] : contained_) {
      if (ids.count(id) > 0) return true;
    }
    return false;
  }
};

}  // namespace ray::core
