#include "runtime/raylet/object_table.h"

namespace ray::raylet {

bool ObjectTable::Erase(const ObjectId& id) {
  if (objects_.erase(id) == 0) return false;
  Withdraw(id);
  return true;
}

void ObjectTable::Publish(const ObjectId& id, const StoredObject& o) {
  if (!index_) return;
  if (o.state == protocol::ObjectState::kInline || o.state == protocol::ObjectState::kError) {
    index_->Publish(id, static_cast<uint8_t>(o.state), o.data);
  }
}

const StoredObject* ObjectTable::Find(const ObjectId& id) const {
  auto it = objects_.find(id);
  return it == objects_.end() ? nullptr : &it->second;
}

std::optional<int64_t> ObjectTable::NextDeadline() const {
  if (deadlines_.empty()) return std::nullopt;
  return deadlines_.begin()->first;
}

}  // namespace ray::raylet
