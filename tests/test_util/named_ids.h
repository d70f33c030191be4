#pragma once
// Ids named by short strings, for unit tests: the name padded with '_' to the id's
// size (longer names are cut), and the name read back.

#include <string>
#include <utility>

#include "runtime/ids/ids.h"

namespace ray::test_util {

template <typename Id>
Id Named(std::string name) {
  name.resize(Id::kSize, '_');
  return Id::FromBinary(name);
}
inline TaskId TaskNamed(std::string name) { return Named<TaskId>(std::move(name)); }
inline JobId JobNamed(std::string name) { return Named<JobId>(std::move(name)); }

template <typename Id>
std::string NameOf(const Id& id) {
  std::string name = id.Binary();
  name.erase(name.find_last_not_of('_') + 1);
  return name;
}

}  // namespace ray::test_util
