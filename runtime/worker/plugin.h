#pragma once
// A loaded plugin library. Load() refuses, with the file and the reason, anything
// that is not a loadable ray plugin of this ABI version: a missing or unreadable
// file, a library without the plugin entry points, a different ABI version, or
// duplicate registrations.

#include <boost/dll/shared_library.hpp>

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "ray/abi.h"
#include "runtime/base/status.h"

namespace ray::worker {

class Plugin {
 public:
  // `hash`: the file's content hash if known (workers load plugins by hash), else
  // computed from the file.
  static Result<std::shared_ptr<Plugin>> Load(const std::string& path, std::string hash = "");

  const std::string& path() const { return path_; }
  const std::string& hash() const { return hash_; }  // content hash of the file
  // Registered names with their kind (0 function, 1 actor factory, 2 method).
  const std::vector<std::pair<std::string, int>>& functions() const { return functions_; }
  bool HasMain() const { return main_ != nullptr; }

  void Attach(const RayRuntimeApi* api) { attach_(api); }
  RayResult Invoke(const std::string& name, void* instance, const RayArg* args, size_t n) {
    return invoke_(name.data(), name.size(), instance, args, n);
  }
  void Destroy(const std::string& factory, void* instance) {
    destroy_(factory.data(), factory.size(), instance);
  }
  int Main(int argc, char** argv) { return main_(argc, argv); }

 private:
  Plugin() = default;
  boost::dll::shared_library lib_;
  std::string path_, hash_;
  std::vector<std::pair<std::string, int>> functions_;
  RayPluginAttachFn attach_ = nullptr;
  RayPluginInvokeFn invoke_ = nullptr;
  RayPluginDestroyFn destroy_ = nullptr;
  RayPluginMainFn main_ = nullptr;
};

}  // namespace ray::worker
