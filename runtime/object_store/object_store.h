#pragma once
// The per-node shared-memory object store. Each large object is one POSIX
// shared-memory segment named "/ray-<store tag>-<object id hex>". A writer (any
// process on the node) creates, fills and seals a segment; readers map it read-only,
// without copying. The raylet's ObjectStore accounts for the segments it admits and
// unlinks segments it frees. Segments are immutable once sealed.
//
// A full store makes room (see eviction_policy.h): it evicts objects nobody
// references here, least recently used first, then spills referenced ones to files
// (spill_files.h) and restores them, into a segment of the same name, when they are
// used again. Objects mapped by a process (pinned) are never chosen: unlinking a
// segment would leave the mapping valid but free no memory. Only when the unpinned
// objects cannot make room does it refuse (ResourceExhausted, naming the requested
// size, the capacity, the bytes in use and pinned).
//
// With background_io, the file I/O runs on a thread of the store's (spill_worker.h):
// the owner's thread never waits for the disk. A spill then starts in MakeRoom and
// ends in CompleteIo: until its file is complete the object stays in its segment and
// readable (its bytes leave the capacity's count at once, so shared memory may
// exceed the capacity by the bytes being spilled while they are written); a read
// meanwhile (Touch) cancels it, and a spill that fails leaves the object in memory.
// StartRestore brings an object back the same way. Only one job per object runs at
// a time; an object freed during its job keeps its entry (refusing the id) until the
// job ends, and then its segment and file go.

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "runtime/base/status.h"
#include "runtime/ids/ids.h"
#include "runtime/object_store/eviction_policy.h"
#include "runtime/object_store/spill_worker.h"

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
// The names of this store's segments that process `pid` maps now (from
// /proc/<pid>/maps; empty if the process is gone).
std::unordered_set<std::string> SegmentsMappedBy(int pid, const std::string& store_tag);
// Removes every segment whose store tag begins with `store_tag` (after a crash or
// on `ray stop`). An empty tag removes nothing.
void UnlinkAllSegments(const std::string& store_tag);

struct StoreOptions {
  std::string tag;                      // unique per node and session
  size_t capacity_bytes = 20ull << 30;  // Ray: "capped at 20GB"
  // Where referenced objects spill when the store is full; "" spills nothing (the
  // store then only evicts, and refuses when that is not enough).
  std::string spill_dir;
  // Spill and restore on the store's own thread (see above); false: in the caller's.
  bool background_io = false;
  // How that thread runs a job (tests slow or block it); null: on disk.
  std::function<Status(const SpillWorker::Job&)> run_io_job = nullptr;
};

class ObjectStore {
 public:
  // The names of the segments some process maps now (the pinned objects).
  using MappedSegments = std::function<std::unordered_set<std::string>()>;

  explicit ObjectStore(StoreOptions options, MappedSegments mapped = nullptr);
  ~ObjectStore();  // unlinks everything it holds, segments and spill files

  // Takes ownership of a sealed segment of `size` bytes, making room first if the
  // store is full. `referenced`: someone may still ask for the object here (it may
  // be spilled, never evicted). On ResourceExhausted the segment is unlinked and the
  // caller must report the error for that object. On AlreadyExists (the id is held)
  // the offered segment is unlinked unless it is the one already held under that name.
  Status Admit(const ObjectId& id, const std::string& segment, size_t size, bool referenced = true);
  void Free(const ObjectId& id);
  // Stops accounting for the object but leaves its segment: its writer fills it again.
  void Forget(const ObjectId& id);
  // The object was used now (least recently used objects leave first; one being
  // spilled in the background stays in memory).
  void Touch(const ObjectId& id);
  // Whether the object is on disk rather than in its segment (being restored too).
  bool Spilled(const ObjectId& id) const;
  // Brings a spilled object back into its segment (making room as Admit does); Ok if
  // it is in memory already. ResourceExhausted if there is no room, DataLoss if its
  // file is gone or short; the object stays spilled then. Waits for the disk (and, with
  // background_io, for the object's job in flight): the owner's loop uses StartRestore.
  Status Restore(const ObjectId& id);
  // With background_io: starts bringing a spilled object back. Ok: it is in memory
  // now (nothing to do); Unavailable: a restore runs, CompleteIo will report it;
  // else why it cannot start (as Restore). Without background_io: Restore.
  Status StartRestore(const ObjectId& id);
  // The objects whose restore ended (Ok, or why it failed: the object stays spilled).
  struct Restored {
    ObjectId id;
    Status status;
  };
  // Ends the background jobs that finished (call when io_fd() is readable).
  std::vector<Restored> CompleteIo();
  // Readable when background jobs finished; -1 without background_io.
  int io_fd() const { return worker_ ? worker_->notify_fd() : -1; }
  // Whether background jobs run, or ended restores wait to be reported (CompleteIo).
  bool IoPending() const { return (worker_ && worker_->in_flight() > 0) || !restored_.empty(); }
  // The objects evicted since the last call: they are no longer held.
  std::vector<ObjectId> TakeEvicted() { return std::move(evicted_); }

  bool Contains(const ObjectId& id) const {
    auto it = objects_.find(id);
    return it != objects_.end() && !it->second.freed;
  }
  size_t used_bytes() const { return used_; }  // in shared memory
  size_t spilled_bytes() const { return spilled_; }
  size_t spilling_bytes() const { return spilling_; }  // being spilled (background_io)
  size_t capacity_bytes() const { return options_.capacity_bytes; }
  size_t num_objects() const { return objects_.size(); }
  const std::string& tag() const { return options_.tag; }

 private:
  struct Entry {
    std::string segment;
    size_t size;
    bool referenced;
    std::string spill_path;  // non-empty while spilled (and being restored)
    // A background job in flight (see above), and what happened meanwhile.
    enum Io { kNone, kSpilling, kRestoring } io = kNone;
    bool read_while_spilling = false;
    bool freed = false;  // its segment and file go when the job ends
  };
  // Evicts and spills until `size` more bytes fit; the error names the sizes.
  Status MakeRoom(const ObjectId& id, size_t size);
  // Starts spilling a resident object in the background.
  void BeginSpill(const ObjectId& id, Entry& e);
  void EndSpill(const SpillWorker::Job& job, const Status& st);
  // Ends a restore; the status to report.
  Status EndRestore(const SpillWorker::Job& job, Status st);
  // Ends the jobs the worker finished; restores go to restored_ for CompleteIo.
  void EndFinishedJobs();
  Status Refuse(const ObjectId& id, size_t size, size_t pinned, const std::string& why) const;

  StoreOptions options_;
  MappedSegments mapped_;
  std::unordered_map<ObjectId, Entry, IdHash> objects_;
  EvictionPolicy policy_;  // the objects in shared memory
  std::vector<ObjectId> evicted_;
  size_t used_ = 0;
  size_t spilled_ = 0;
  size_t spilling_ = 0;  // being written to files, still in shared memory
  std::vector<Restored> restored_;  // ended, not yet reported by CompleteIo
  std::unique_ptr<SpillWorker> worker_;  // with background_io; last, stopped first
};

}  // namespace ray::object_store
