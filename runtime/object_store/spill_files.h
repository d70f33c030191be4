#pragma once
// Objects spilled from shared memory to disk: one file per object, named
// "<store tag>-<object id hex>" in the store's spill directory (by default
// <session dir>/spill), readable by the owner only (0600). A spill file holds the
// segment's bytes and nothing else; it is removed when the object is restored,
// freed, or the node stops.

#include <cstddef>
#include <string>

#include "runtime/base/status.h"
#include "runtime/ids/ids.h"

namespace ray::object_store {

std::string SpillPath(const std::string& dir, const std::string& store_tag, const ObjectId& id);
// Copies the sealed segment (`size` bytes) into a new file at `path` (its directory
// is created 0700 if missing). ResourceExhausted if the disk is full, Internal on
// other I/O errors; nothing is left behind on failure. The segment stays.
Status SpillSegment(const std::string& segment, size_t size, const std::string& path);
// Creates the sealed segment from the file at `path`, which must hold `size` bytes
// (DataLoss if not, or if it cannot be read). The file stays.
Status RestoreSegment(const std::string& path, const std::string& segment, size_t size);
// Removes the spill files of the store tagged `store_tag` (after a crash or when the
// node stops). An empty tag removes nothing.
void RemoveSpillFiles(const std::string& dir, const std::string& store_tag);

}  // namespace ray::object_store
