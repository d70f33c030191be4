#include "runtime/ids/ids.h"

#include "runtime/base/util.h"

namespace ray {

template <typename Tag, size_t N>
BaseId<Tag, N> BaseId<Tag, N>::FromRandom() {
  return FromBinary(RandomBytes(N));
}

template <typename Tag, size_t N>
BaseId<Tag, N> BaseId<Tag, N>::FromHex(std::string_view hex) {
  auto bin = ::ray::FromHex(hex);
  return bin && bin->size() == N ? FromBinary(*bin) : BaseId();
}

template <typename Tag, size_t N>
std::string BaseId<Tag, N>::Hex() const {
  return ToHex(Binary());
}

template class BaseId<JobTag, 4>;
template class BaseId<TaskTag, 16>;
template class BaseId<ActorTag, 16>;
template class BaseId<NodeTag, 16>;
template class BaseId<WorkerTag, 16>;
template class BaseId<ObjectTag, 20>;

namespace {
constexpr uint32_t kPutBit = 0x80000000u;

ObjectId Make(const TaskId& task, uint32_t index) {
  ObjectId id;
  std::memcpy(id.mutable_data(), task.data(), TaskId::kSize);
  for (int i = 0; i < 4; ++i) id.mutable_data()[TaskId::kSize + i] = (index >> (24 - 8 * i)) & 0xff;
  return id;
}

uint32_t RawIndex(const ObjectId& id) {
  uint32_t v = 0;
  for (int i = 0; i < 4; ++i) v = v << 8 | id.data()[TaskId::kSize + i];
  return v;
}
}  // namespace

ObjectId ObjectId::ForTaskReturn(const TaskId& task, uint32_t index) { return Make(task, index); }
ObjectId ObjectId::ForPut(const TaskId& task, uint32_t put_index, const NodeId& putter) {
  ObjectId id = Make(task, put_index | kPutBit);
  if (!putter.IsNil()) std::memcpy(id.mutable_data() + JobId::kSize, putter.data(), kNodeTagSize);
  return id;
}
TaskId ObjectId::Task() const {
  return TaskId::FromBinary(std::string_view(reinterpret_cast<const char*>(data()), TaskId::kSize));
}
uint32_t ObjectId::Index() const { return RawIndex(*this) & ~kPutBit; }
bool ObjectId::IsPut() const { return RawIndex(*this) & kPutBit; }

TaskId NewTaskId(const JobId& job, const NodeId& submitter) {
  TaskId t = TaskId::FromRandom();
  std::memcpy(t.mutable_data(), job.data(), JobId::kSize);
  if (!submitter.IsNil()) std::memcpy(t.mutable_data() + JobId::kSize, submitter.data(), kNodeTagSize);
  return t;
}

std::string SubmitterTag(const TaskId& task) {
  return std::string(reinterpret_cast<const char*>(task.data()) + JobId::kSize, kNodeTagSize);
}

JobId TaskJob(const TaskId& task) {
  return JobId::FromBinary(std::string_view(reinterpret_cast<const char*>(task.data()), JobId::kSize));
}

bool AllUnique(const std::vector<ObjectId>& ids) {
  if (ids.size() < 2) return true;
  // Linear probing over positions; a thread keeps its table between calls.
  thread_local std::vector<uint32_t> slots;  // a position + 1; 0: free
  size_t capacity = 16;
  while (capacity < 2 * ids.size()) capacity <<= 1;
  slots.assign(capacity, 0);
  for (size_t i = 0; i < ids.size(); ++i) {
    // Mixed (splitmix64's finalizer): a task's results differ only in a few bytes.
    uint64_t slot = ids[i].Hash();
    slot = (slot ^ (slot >> 30)) * 0xBF58476D1CE4E5B9ull;
    slot = (slot ^ (slot >> 27)) * 0x94D049BB133111EBull;
    slot ^= slot >> 31;
    for (;; ++slot) {
      uint32_t& s = slots[slot & (capacity - 1)];
      if (s == 0) {
        s = static_cast<uint32_t>(i + 1);
        break;
      }
      if (ids[s - 1] == ids[i]) return false;
    }
  }
  return true;
}

}  // namespace ray
