#include "runtime/raylet/object_table.h"

namespace ray::raylet {

const StoredObject* ObjectTable::Find(const ObjectId& id) const {
  auto it = objects_.find(id);
  return it == objects_.end() ? nullptr : &it->second;
}

std::optional<int64_t> ObjectTable::NextDeadline() const {
  if (deadlines_.empty()) return std::nullopt;
  return deadlines_.begin()->first;
}

}  // namespace ray::raylet
