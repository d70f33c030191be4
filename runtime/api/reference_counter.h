#pragma once
// Counts this process's ObjectRefs to the objects it created (puts and task results),
// and says which of them can be freed: those whose count reached zero and whose id
// never left the process (an escaped id may be held elsewhere, so the object stays
// until the job ends). Objects made elsewhere are not counted: their owner decides.
//
// Thread-safe: plugins drop ObjectRefs on any thread; the client's own thread takes
// what is due.

#include <mutex>
#include <unordered_map>
#include <vector>

#include "runtime/ids/ids.h"

namespace ray::core {

class ReferenceCounter {
 public:
  // An object this process created. `direct`: the result of a direct call, which the
  // raylet does not know until promoted (see TakeEscapedDirect).
  void Own(const ObjectId& id, bool direct = false);
  // A change in the number of ObjectRefs here (ignored for objects not owned here).
  void RefDelta(const ObjectId& id, int32_t delta);
  // The id left the process (passed to a task, put inside a value): never freed.
  void RefEscaped(const ObjectId& id);
  // The raylet holds these results from now on (a direct call sent through it again).
  void ClearDirect(const std::vector<ObjectId>& ids);

  // Owned objects now unreferenced and never escaped, forgotten here. Unless `all`,
  // nothing until kFreeBatch have gathered (a put-and-drop loop then costs little).
  std::vector<ObjectId> TakeUnreferenced(bool all);
  // Direct results whose ids escaped since the last call: the raylet must get them.
  std::vector<ObjectId> TakeEscapedDirect();

  static constexpr size_t kFreeBatch = 256;

 private:
  struct Owned {
    int32_t refs = 0;
    bool escaped = false;
    bool direct = false;
  };
  std::mutex mu_;
  std::unordered_map<ObjectId, Owned, IdHash> refs_;
  std::vector<ObjectId> unreferenced_;  // owned objects whose count reached 0
  std::vector<ObjectId> to_promote_;    // direct results whose ids escaped
};

}  // namespace ray::core
