#pragma once
// The per-node shared-memory object store. Each large object is one POSIX
// shared-memory segment named "/ray-<store tag>-<object id hex>". A writer (any
// process on the node) creates, fills and seals a segment; readers map it read-only,
// without copying. The raylet's ObjectStore accounts for the segments it admits,
// refuses admission past its capacity (ResourceExhausted, naming the sizes), and
// unlinks segments it frees. Segments are immutable once sealed.

#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "runtime/base/status.h"
#include "runtime/ids/ids.h"

namespace ray::object_store {

// A read-only mapping of a sealed segment; unmapped on destruction.
class Mapping {
 public:
  Mapping(void* addr, size_t size) : addr_(addr), size_(size) {}
  ~Mapping();
  Mapping(const Mapping&) = delete;
  Mapping& operator=(const Mapping&) = delete;
  const char* data() const { return static_cast<const char*>(addr_); }
  size_t size() const { return size_; }

 private:
  void* addr_;
  size_t size_;
};

std::string SegmentName(const std::string& store_tag, const ObjectId& id);

// A new segment of `size` bytes, its pages reserved now (a full /dev/shm is an error
// here, not a SIGBUS later), mapped for writing: its open fd and the mapping (null
// for size 0). AlreadyExists if the name is taken; ResourceExhausted if the shm
// filesystem is full (nothing is left behind).
struct NewSegment {
  int fd;
  void* addr;
};
Result<NewSegment> CreateSegment(const std::string& name, size_t size);

// A segment created by this process and kept mapped for writing. Sealed (read-only
// for anyone who opens it) from the start; the writer fills it through its mapping.
// Renamed to a later object's name, it is filled again without new pages: no page
// faults, no zeroing. Unmapped on destruction; the segment itself stays.
class WritableSegment {
 public:
  // ResourceExhausted if the shm filesystem is full (nothing is left behind).
  static Result<std::shared_ptr<WritableSegment>> Create(const std::string& name, size_t size);
  ~WritableSegment();
  WritableSegment(const WritableSegment&) = delete;
  WritableSegment& operator=(const WritableSegment&) = delete;

  Status Rename(const std::string& name);
  // Copies the parts one after another from the start.
  void Fill(const std::vector<std::string_view>& parts);
  char* data() const { return static_cast<char*>(addr_); }
  size_t size() const { return size_; }
  const std::string& name() const { return name_; }

 private:
  WritableSegment(std::string name, void* addr, size_t size)
      : name_(std::move(name)), addr_(addr), size_(size) {}
  std::string name_;
  void* addr_;
  size_t size_;
};

// Creates the segment, writes `data` and seals it. AlreadyExists if present;
// ResourceExhausted if the shm filesystem is full (the partial segment is removed).
Status WriteSegment(const std::string& name, std::string_view data);
// Maps a sealed segment read-only; NotFound if it does not exist, DataLoss if its size
// differs from `expected_size`.
Result<std::shared_ptr<Mapping>> MapSegment(const std::string& name, size_t expected_size);
void UnlinkSegment(const std::string& name);
// Removes every segment whose store tag begins with `store_tag` (after a crash or
// on `ray stop`). An empty tag removes nothing.
void UnlinkAllSegments(const std::string& store_tag);

struct StoreOptions {
  std::string tag;                      // unique per node and session
  size_t capacity_bytes = 20ull << 30;  // Ray: "capped at 20GB"
};

class ObjectStore {
 public:
  explicit ObjectStore(StoreOptions options);
  ~ObjectStore();  // unlinks everything it holds

  // Takes ownership of a sealed segment of `size` bytes. On ResourceExhausted the
  // segment is unlinked and the caller must report the error for that object. On
  // AlreadyExists (the id is held) the offered segment is unlinked unless it is the
  // one already held under that name.
  Status Admit(const ObjectId& id, const std::string& segment, size_t size);
  void Free(const ObjectId& id);
  // Stops accounting for the object but leaves its segment: its writer fills it again.
  void Forget(const ObjectId& id);
  bool Contains(const ObjectId& id) const { return objects_.count(id) > 0; }
  size_t used_bytes() const { return used_; }
  size_t capacity_bytes() const { return options_.capacity_bytes; }
  size_t num_objects() const { return objects_.size(); }
  const std::string& tag() const { return options_.tag; }

 private:
  struct Entry {
    std::string segment;
    size_t size;
  };
  StoreOptions options_;
  std::unordered_map<ObjectId, Entry, IdHash> objects_;
  size_t used_ = 0;
};

}  // namespace ray::object_store
