#pragma once
// Ids named by short strings, for unit tests: the name after '_'s that fill the id
// (longer names are cut), so that the trailing bytes IdHash reads differ; and the
// name read back.

#include <algorithm>
#include <string>
#include <utility>

#include "runtime/ids/ids.h"

namespace ray::test_util {

template <typename Id>
Id Named(std::string name) {
  name.resize(std::min(name.size(), Id::kSize));
  return Id::FromBinary(std::string(Id::kSize - name.size(), '_') + name);
}
inline TaskId TaskNamed(std::string name) { return Named<TaskId>(std::move(name)); }
inline JobId JobNamed(std::string name) { return Named<JobId>(std::move(name)); }

template <typename Id>
std::string NameOf(const Id& id) {
  std::string name = id.Binary();
  return name.substr(std::min(name.find_first_not_of('_'), name.size()));
}

}  // namespace ray::test_util
