#include "runtime/object_store/object_index.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>

namespace ray::object_store {

namespace {

static_assert(std::atomic<uint64_t>::is_always_lock_free, "shared between processes");

constexpr uint64_t kMagic = 0x3158444e494f5952;  // "RYOINDX1"
constexpr uint32_t kMaxProbe = 64;
constexpr size_t kHeaderBytes = 4096;

struct Header {
  uint64_t magic;
  uint32_t num_slots;
  uint32_t slot_bytes;
  uint64_t arena_bytes;
  uint64_t max_object_bytes;
  std::atomic<uint64_t> committed;  // arena bytes reserved: a reader reads none beyond
};

// kind 0: empty. A published object's kind is stored plus one.
struct Slot {
  std::atomic<uint64_t> seq;  // odd while the writer changes the slot
  uint8_t id[ObjectId::kSize];
  uint8_t kind;
  uint8_t unused[3];
  uint32_t size;
  uint64_t offset;  // in the arena
};
static_assert(sizeof(Slot) <= 64);
constexpr size_t kSlotBytes = 64;

size_t MappedSize(uint32_t num_slots, uint64_t arena_bytes) {
  return kHeaderBytes + size_t{num_slots} * kSlotBytes + arena_bytes;
}
Slot& SlotAt(char* base, uint32_t i) {
  return *reinterpret_cast<Slot*>(base + kHeaderBytes + size_t{i} * kSlotBytes);
}
const Slot& SlotAt(const char* base, uint32_t i) {
  return *reinterpret_cast<const Slot*>(base + kHeaderBytes + size_t{i} * kSlotBytes);
}
const Header& HeaderOf(const char* base) { return *reinterpret_cast<const Header*>(base); }

// Reader: a field the writer may be changing, read once (never re-read after a check).
template <typename T>
T LoadOnce(const T& field) {
  return __atomic_load_n(&field, __ATOMIC_RELAXED);
}
size_t ArenaStart(uint32_t num_slots) { return kHeaderBytes + size_t{num_slots} * kSlotBytes; }

// The slot an id is looked for first. An id's trailing bytes are random per task and
// count up per object (ids.h): mixed, so that one task's objects spread out.
uint32_t Home(const ObjectId& id, uint32_t num_slots) {
  uint64_t h = id.Hash();
  h ^= h >> 30;
  h *= 0xbf58476d1ce4e5b9ull;
  h ^= h >> 27;
  h *= 0x94d049bb133111ebull;
  h ^= h >> 31;
  return static_cast<uint32_t>(h) & (num_slots - 1);
}

// Writer: changes a slot under its sequence number.
template <typename Change>
void Rewrite(Slot& s, Change&& change) {
  uint64_t seq = s.seq.load(std::memory_order_relaxed);
  s.seq.store(seq + 1, std::memory_order_relaxed);
  std::atomic_thread_fence(std::memory_order_release);
  change(s);
  s.seq.store(seq + 2, std::memory_order_release);
}

}  // namespace

std::string ObjectIndexName(const std::string& store_tag) { return "/ray-" + store_tag + "-index"; }

Result<std::unique_ptr<ObjectIndexWriter>> ObjectIndexWriter::Create(const std::string& name,
                                                                     ObjectIndexOptions options) {
  if (options.num_slots == 0 || (options.num_slots & (options.num_slots - 1)) != 0) {
    return Status::InvalidArgument("object index: num_slots must be a power of two");
  }
  options.arena_bytes = options.arena_bytes / RangeAllocator::kAlignment * RangeAllocator::kAlignment;
  int fd = ::shm_open(name.c_str(), O_CREAT | O_EXCL | O_RDWR, 0600);
  if (fd < 0 && errno == EEXIST) {  // left by a raylet that crashed
    ::shm_unlink(name.c_str());
    fd = ::shm_open(name.c_str(), O_CREAT | O_EXCL | O_RDWR, 0600);
  }
  if (fd < 0) return Status::Internal("shm_open " + name + ": " + std::strerror(errno));
  const size_t mapped = MappedSize(options.num_slots, options.arena_bytes);
  const size_t table = ArenaStart(options.num_slots);
  // The arena is reserved as it fills (Commit): a sparse page written to a full
  // /dev/shm would be a SIGBUS.
  int rc = ::ftruncate(fd, static_cast<off_t>(mapped)) == 0 ? ::posix_fallocate(fd, 0, table) : errno;
  void* p = rc == 0 ? ::mmap(nullptr, mapped, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0) : MAP_FAILED;
  if (p == MAP_FAILED) {
    std::string err = std::strerror(rc != 0 ? rc : errno);
    ::close(fd);
    ::shm_unlink(name.c_str());
    return Status::ResourceExhausted("cannot make the object index " + name + " (" +
                                     std::to_string(table) + " bytes): " + err);
  }
  ::fchmod(fd, 0400);  // readers cannot open it for writing
  auto* base = static_cast<char*>(p);
  auto& header = *reinterpret_cast<Header*>(base);
  header.num_slots = options.num_slots;
  header.slot_bytes = kSlotBytes;
  header.arena_bytes = options.arena_bytes;
  header.max_object_bytes = options.max_object_bytes;
  header.committed.store(0, std::memory_order_relaxed);
  header.magic = kMagic;  // (complete before any reader: the raylet takes clients later)
  return std::unique_ptr<ObjectIndexWriter>(new ObjectIndexWriter(name, fd, base, mapped, options));
}

ObjectIndexWriter::ObjectIndexWriter(std::string name, int fd, char* base, size_t mapped,
                                     ObjectIndexOptions options)
    : name_(std::move(name)),
      fd_(fd),
      base_(base),
      mapped_(mapped),
      options_(options),
      arena_(options.arena_bytes) {}

ObjectIndexWriter::~ObjectIndexWriter() {
  ::munmap(base_, mapped_);
  ::close(fd_);
  ::shm_unlink(name_.c_str());
}

bool ObjectIndexWriter::Commit(uint64_t end) {
  if (end <= committed_) return true;
  uint64_t want = (end + options_.commit_step - 1) / options_.commit_step * options_.commit_step;
  want = std::min(want, options_.arena_bytes);
  const off_t at = static_cast<off_t>(ArenaStart(options_.num_slots) + committed_);
  if (::posix_fallocate(fd_, at, static_cast<off_t>(want - committed_)) != 0) return false;
  committed_ = want;
  reinterpret_cast<Header*>(base_)->committed.store(committed_, std::memory_order_release);
  return true;
}

bool ObjectIndexWriter::Publish(const ObjectId& id, uint8_t kind, std::string_view bytes) {
  if (bytes.size() > options_.max_object_bytes || slot_of_.count(id) ||
      slot_of_.size() >= options_.num_slots / 4 * 3) {
    return false;
  }
  const uint32_t mask = options_.num_slots - 1;
  uint32_t at = Home(id, options_.num_slots);
  uint32_t probe = 0;
  while (probe < kMaxProbe && SlotAt(base_, at).kind != 0) {
    at = (at + 1) & mask;
    ++probe;
  }
  if (probe == kMaxProbe) return false;
  auto offset = arena_.Allocate(bytes.size());
  if (!offset) return false;
  if (!Commit(*offset + bytes.size())) {
    arena_.Free(*offset, bytes.size());
    return false;
  }
  // (No reader can be reading these bytes for another object: the slot that pointed
  // there was withdrawn before they were freed.)
  std::memcpy(base_ + ArenaStart(options_.num_slots) + *offset, bytes.data(), bytes.size());
  Rewrite(SlotAt(base_, at), [&](Slot& s) {
    std::memcpy(s.id, id.data(), ObjectId::kSize);
    s.size = static_cast<uint32_t>(bytes.size());
    s.offset = *offset;
    s.kind = static_cast<uint8_t>(kind + 1);
  });
  slot_of_.emplace(id, at);
  return true;
}

void ObjectIndexWriter::Withdraw(const ObjectId& id) {
  auto it = slot_of_.find(id);
  if (it == slot_of_.end()) return;
  const uint32_t at = it->second;
  slot_of_.erase(it);
  Slot& s = SlotAt(base_, at);
  const uint64_t offset = s.offset, size = s.size;
  Rewrite(s, [](Slot& s) { s.kind = 0; });
  arena_.Free(offset, size);  // (after the slot: see Publish)
  CloseGap(at);
}

void ObjectIndexWriter::CloseGap(uint32_t gap) {
  const uint32_t mask = options_.num_slots - 1;
  for (uint32_t j = (gap + 1) & mask; SlotAt(base_, j).kind != 0; j = (j + 1) & mask) {
    Slot& from = SlotAt(base_, j);
    ObjectId moved = ObjectId::FromBinary(
        std::string_view(reinterpret_cast<const char*>(from.id), ObjectId::kSize));
    const uint32_t home = Home(moved, options_.num_slots);
    // It may move back only if the gap lies between its home and where it is.
    if (((j - home) & mask) < ((j - gap) & mask)) continue;
    // Written at the gap first, then cleared here: a reader may miss it meanwhile (and
    // ask the raylet), but never finds it where it is not.
    Rewrite(SlotAt(base_, gap), [&](Slot& s) {
      std::memcpy(s.id, from.id, ObjectId::kSize);
      s.size = from.size;
      s.offset = from.offset;
      s.kind = from.kind;
    });
    Rewrite(from, [](Slot& s) { s.kind = 0; });
    slot_of_[moved] = gap;
    gap = j;
  }
}

std::unique_ptr<ObjectIndexReader> ObjectIndexReader::Open(const std::string& name) {
  int fd = ::shm_open(name.c_str(), O_RDONLY, 0);
  if (fd < 0) return nullptr;
  struct stat st;
  void* p = MAP_FAILED;
  if (::fstat(fd, &st) == 0 && static_cast<size_t>(st.st_size) >= kHeaderBytes) {
    p = ::mmap(nullptr, st.st_size, PROT_READ, MAP_SHARED, fd, 0);
  }
  ::close(fd);
  if (p == MAP_FAILED) return nullptr;
  const auto* base = static_cast<const char*>(p);
  const Header& h = HeaderOf(base);
  const size_t size = static_cast<size_t>(st.st_size);
  bool valid = h.magic == kMagic && h.slot_bytes == kSlotBytes && h.num_slots > 0 &&
               (h.num_slots & (h.num_slots - 1)) == 0 &&
               MappedSize(h.num_slots, h.arena_bytes) == size;
  if (!valid) {
    ::munmap(p, size);
    return nullptr;
  }
  return std::unique_ptr<ObjectIndexReader>(
      new ObjectIndexReader(base, size, h.num_slots, h.arena_bytes, h.max_object_bytes));
}

ObjectIndexReader::~ObjectIndexReader() { ::munmap(const_cast<char*>(base_), mapped_); }

std::optional<IndexedObject> ObjectIndexReader::Find(const ObjectId& id) const {
  return Lookup(id, /*copy=*/true);
}

bool ObjectIndexReader::Contains(const ObjectId& id) const {
  return Lookup(id, /*copy=*/false).has_value();
}

std::optional<IndexedObject> ObjectIndexReader::Lookup(const ObjectId& id, bool copy) const {
  const uint32_t mask = num_slots_ - 1;
  const char* arena = base_ + ArenaStart(num_slots_);
  const Header& header = HeaderOf(base_);
  // A slot the writer changes while this reads it is read again (a few times at
  // most: a miss only costs a message).
  for (int attempt = 0; attempt < 4; ++attempt) {
    uint32_t at = Home(id, num_slots_);
    bool changed = false;
    for (uint32_t probe = 0; probe < kMaxProbe && !changed; ++probe, at = (at + 1) & mask) {
      const Slot& s = SlotAt(base_, at);
      const uint64_t before = s.seq.load(std::memory_order_acquire);
      if (before % 2 != 0) {
        changed = true;
        break;
      }
      const uint8_t kind = LoadOnce(s.kind);
      if (kind == 0) return std::nullopt;
      if (std::memcmp(s.id, id.data(), ObjectId::kSize) != 0) continue;
      IndexedObject found;
      found.kind = static_cast<uint8_t>(kind - 1);
      const uint64_t offset = LoadOnce(s.offset), size = LoadOnce(s.size);
      // (Only reserved arena bytes are read: a torn slot cannot make this process
      // touch pages shared memory may have no room for.)
      const uint64_t reserved = std::min(arena_bytes_, header.committed.load(std::memory_order_acquire));
      const bool inside = size <= max_object_bytes_ && offset <= reserved && size <= reserved - offset;
      if (copy && inside) {
        found.bytes.assign(arena + offset, size);
      }
      std::atomic_thread_fence(std::memory_order_acquire);
      if (s.seq.load(std::memory_order_relaxed) != before) {
        changed = true;
        break;
      }
      if (!inside) return std::nullopt;  // (a writer's bug: not trusted)
      return found;
    }
    if (!changed) return std::nullopt;
  }
  return std::nullopt;
}

}  // namespace ray::object_store
