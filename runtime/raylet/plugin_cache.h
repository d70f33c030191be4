#pragma once
// The plugins (`.so` files named by content hash) this node's workers load: a local
// copy of each in the session's plugin directory, fetched from the GCS the first time
// a task needs one. A plugin that cannot be fetched because the GCS does not answer is
// asked for again later (the task waits); one the GCS does not have is not (the worker
// reports the missing file as the task's error).
//
// No sockets: the raylet gives it what fetches a plugin's bytes. Not thread-safe.

#include <functional>
#include <map>
#include <string>

#include "runtime/base/status.h"

namespace ray::raylet {

class PluginCache {
 public:
  // A plugin's bytes by hash; Unavailable while they cannot be had now.
  using Fetch = std::function<Result<std::string>(const std::string& hash)>;

  PluginCache(std::string dir, Fetch fetch) : dir_(std::move(dir)), fetch_(std::move(fetch)) {}

  // Makes sure the plugin is here, fetching it if it is not; false only while it
  // cannot be fetched now (Unavailable): ask again later.
  bool Ensure(const std::string& hash);
  // Where the plugin's copy is (fetched first if not known yet).
  std::string PathOf(const std::string& hash);

 private:
  std::string FileOf(const std::string& hash) const { return dir_ + "/" + hash + ".so"; }

  std::string dir_;
  Fetch fetch_;
  std::map<std::string, std::string> known_;  // hash -> path of the local copy
  bool warned_ = false;  // said once that a plugin waits for the GCS
};

}  // namespace ray::raylet
