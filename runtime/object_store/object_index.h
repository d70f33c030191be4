#pragma once
// The node's index of small objects, in shared memory, so that a process finds an
// object another process made without asking the raylet (a Get of it needs no
// message). The raylet is its only writer: it publishes each inline object (and each
// error) it holds, and withdraws it when the object goes. Every process on the node
// maps the index read-only and copies what it finds.
//
// The segment ("/ray-<store tag>-index") is a header, a hash table of fixed-size
// slots (linear probing, at most kMaxProbe slots from an id's home, never more than
// 3/4 full) and an arena holding the objects' bytes. Each slot has a sequence number,
// odd while the writer changes it: a reader copies the slot and the bytes it points
// to, then checks the number is unchanged, and otherwise looks again. The writer
// withdraws a slot before it gives its bytes to another object, so a reader never
// returns bytes of the wrong object. A miss is never wrong either: the reader then
// asks the raylet, as before. Objects that do not fit (too large, the table or the
// arena full, shared memory full) are simply not indexed.
//
// The writer is single-threaded (the raylet's loop). Readers may be any number of
// threads and processes.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

#include "runtime/base/status.h"
#include "runtime/ids/ids.h"
#include "runtime/object_store/range_allocator.h"

namespace ray::object_store {

// "/ray-<store tag>-index": removed with the store's segments (UnlinkAllSegments).
std::string ObjectIndexName(const std::string& store_tag);

struct IndexedObject {
  uint8_t kind = 0;  // what the writer published it as (the raylet's object state)
  std::string bytes;
};

struct ObjectIndexOptions {
  uint32_t num_slots = 1u << 16;        // a power of two
  uint64_t arena_bytes = 64ull << 20;   // reserved in shared memory as it is used
  uint64_t max_object_bytes = 128 << 10;
  uint64_t commit_step = 1ull << 20;    // the arena grows by this much at a time
};

class ObjectIndexWriter {
 public:
  // Creates the segment (replacing a stale one of that name), its table reserved now.
  // ResourceExhausted if shared memory cannot hold the table.
  static Result<std::unique_ptr<ObjectIndexWriter>> Create(const std::string& name,
                                                           ObjectIndexOptions options = {});
  ~ObjectIndexWriter();  // unmaps and removes the segment
  ObjectIndexWriter(const ObjectIndexWriter&) = delete;
  ObjectIndexWriter& operator=(const ObjectIndexWriter&) = delete;

  // Makes the object findable; false if it is not indexed (see above). An id already
  // indexed keeps its first bytes (objects are immutable).
  bool Publish(const ObjectId& id, uint8_t kind, std::string_view bytes);
  // The object can no longer be found; no-op if it is not indexed.
  void Withdraw(const ObjectId& id);

  size_t size() const { return slot_of_.size(); }
  uint64_t arena_used() const { return arena_.used(); }

 private:
  ObjectIndexWriter(std::string name, int fd, char* base, size_t mapped,
                    ObjectIndexOptions options);
  // Arena bytes reserved up to `end`; false if shared memory is full.
  bool Commit(uint64_t end);
  // Moves the entries after a cleared slot back towards their homes, so that no
  // probe stops early at the gap.
  void CloseGap(uint32_t gap);

  std::string name_;
  int fd_;
  char* base_;
  size_t mapped_;
  ObjectIndexOptions options_;
  uint64_t committed_ = 0;  // arena bytes reserved
  RangeAllocator arena_;
  std::unordered_map<ObjectId, uint32_t, IdHash> slot_of_;
};

class ObjectIndexReader {
 public:
  // nullptr if there is no such segment, or it is not an index of this layout.
  static std::unique_ptr<ObjectIndexReader> Open(const std::string& name);
  ~ObjectIndexReader();
  ObjectIndexReader(const ObjectIndexReader&) = delete;
  ObjectIndexReader& operator=(const ObjectIndexReader&) = delete;

  // The object's kind and a copy of its bytes if it is indexed; nullopt if it is not
  // (or its slot kept changing while this looked).
  std::optional<IndexedObject> Find(const ObjectId& id) const;
  // Whether the object is indexed (without copying it).
  bool Contains(const ObjectId& id) const;

 private:
  ObjectIndexReader(const char* base, size_t mapped, uint32_t num_slots, uint64_t arena_bytes,
                    uint64_t max_object_bytes)
      : base_(base),
        mapped_(mapped),
        num_slots_(num_slots),
        arena_bytes_(arena_bytes),
        max_object_bytes_(max_object_bytes) {}
  // Looks `id` up, copying its bytes if `copy`; nullopt on a miss.
  std::optional<IndexedObject> Lookup(const ObjectId& id, bool copy) const;

  const char* base_;
  size_t mapped_;
  uint32_t num_slots_;   // as the header said when opened
  uint64_t arena_bytes_;
  uint64_t max_object_bytes_;
};

}  // namespace ray::object_store
