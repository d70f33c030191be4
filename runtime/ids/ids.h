#pragma once
// Typed, fixed-size binary IDs. An ObjectId is its creating TaskId plus a 4-byte index
// (returns count up from 1; puts have the high bit set), so 20 bytes, shown as 40 hex
// characters like Ray's. The other IDs are random.

#include <array>
#include <cstdint>
#include <cstring>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace ray {

template <typename Tag, size_t N>
class BaseId {
 public:
  static constexpr size_t kSize = N;
  static constexpr const char* kName = Tag::kName;

  BaseId() { bytes_.fill(0); }
  static BaseId FromBinary(std::string_view b) {
    BaseId id;
    if (b.size() == N) std::memcpy(id.bytes_.data(), b.data(), N);
    return id;
  }
  static BaseId FromRandom();
  static BaseId FromHex(std::string_view hex);

  std::string Binary() const { return std::string(reinterpret_cast<const char*>(bytes_.data()), N); }
  std::string Hex() const;
  bool IsNil() const {
    for (auto b : bytes_) {
      if (b) return false;
    }
    return true;
  }
  const uint8_t* data() const { return bytes_.data(); }
  uint8_t* mutable_data() { return bytes_.data(); }

  bool operator==(const BaseId& o) const { return bytes_ == o.bytes_; }
  bool operator!=(const BaseId& o) const { return bytes_ != o.bytes_; }
  bool operator<(const BaseId& o) const { return bytes_ < o.bytes_; }

  // The trailing bytes (random in every ID kind); all of them for IDs shorter than
  // a size_t.
  size_t Hash() const {
    size_t h = 0;
    constexpr size_t kBytes = N < sizeof(h) ? N : sizeof(h);
    std::memcpy(&h, bytes_.data() + N - kBytes, kBytes);
    return h;
  }

 protected:
  std::array<uint8_t, N> bytes_;
};

// Each kind of id has its own tag, so that ids of different kinds are different
// types (passing a TaskId where an ActorId is wanted does not compile). kName names
// the kind in errors.
struct JobTag { static constexpr const char* kName = "job id"; };
struct TaskTag { static constexpr const char* kName = "task id"; };
struct ActorTag { static constexpr const char* kName = "actor id"; };
struct NodeTag { static constexpr const char* kName = "node id"; };
struct WorkerTag { static constexpr const char* kName = "worker id"; };
struct ObjectTag { static constexpr const char* kName = "object id"; };

using JobId = BaseId<JobTag, 4>;
using TaskId = BaseId<TaskTag, 16>;
using ActorId = BaseId<ActorTag, 16>;
using NodeId = BaseId<NodeTag, 16>;
using WorkerId = BaseId<WorkerTag, 16>;

class ObjectId : public BaseId<ObjectTag, 20> {
 public:
  ObjectId() = default;
  ObjectId(const BaseId<ObjectTag, 20>& b) : BaseId<ObjectTag, 20>(b) {}
  static ObjectId FromBinary(std::string_view b) { return BaseId::FromBinary(b); }
  static ObjectId FromHex(std::string_view h) { return BaseId::FromHex(h); }
  static ObjectId ForTaskReturn(const TaskId& task, uint32_t index);  // index from 1
  // A put of a process on node `putter`, while it runs `task`: the id carries the
  // putter's node tag in place of the task's (the node that counts its holders, see
  // HomeTag), unless `putter` is nil.
  static ObjectId ForPut(const TaskId& task, uint32_t put_index,
                         const NodeId& putter = NodeId());  // index from 1
  TaskId Task() const;
  uint32_t Index() const;  // without the put bit
  bool IsPut() const;
};

// An actor's id is the id of the task that created it: the same 16 bytes. These make
// the conversion explicit where one stands for the other.
static_assert(ActorId::kSize == TaskId::kSize);
inline ActorId ActorOfCreation(const TaskId& creation_task) {
  ActorId actor;
  std::memcpy(actor.mutable_data(), creation_task.data(), ActorId::kSize);
  return actor;
}
inline TaskId CreationTaskOf(const ActorId& actor) {
  TaskId task;
  std::memcpy(task.mutable_data(), actor.data(), TaskId::kSize);
  return task;
}

// A task id for work submitted by `job` from a process of node `submitter`, unique in
// the cluster: the job's 4 bytes, then the first kNodeTagSize bytes of the submitter's
// node id (its owner node: the raylet there keeps the task's lineage), then random
// bytes. Without a node (nil), the tag is random too.
constexpr size_t kNodeTagSize = 4;
TaskId NewTaskId(const JobId& job, const NodeId& submitter = NodeId());
JobId TaskJob(const TaskId& task);
// The node tag of `task` (kNodeTagSize bytes): a prefix of its submitter's node id.
std::string SubmitterTag(const TaskId& task);
// The node tag of object `id`: a prefix of the id of the node whose raylet counts its
// holders (its owner's node: the process that put it, or submitted its task).
inline std::string HomeTag(const ObjectId& id) { return SubmitterTag(id.Task()); }
// Whether node `node_id` (binary) carries `tag` (SubmitterTag, HomeTag) as its prefix.
inline bool NodeHasTag(std::string_view node_id, std::string_view tag) {
  return node_id.substr(0, tag.size()) == tag;
}

// Whether no id appears twice in `ids`: O(n), no allocation after a thread's first
// calls (Wait checks its list on every call).
bool AllUnique(const std::vector<ObjectId>& ids);

struct IdHash {
  template <typename T>
  size_t operator()(const T& id) const { return id.Hash(); }
};

}  // namespace ray
