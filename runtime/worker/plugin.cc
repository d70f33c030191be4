#include "runtime/worker/plugin.h"

#include <unistd.h>

#include <msgpack.hpp>

#include "runtime/base/util.h"

namespace ray::worker {

Result<std::shared_ptr<Plugin>> Plugin::Load(const std::string& path, std::string hash) {
  if (::access(path.c_str(), R_OK) != 0) {
    return Status::NotFound("plugin " + path + ": file cannot be read");
  }
  if (hash.empty()) {
    auto bytes = ReadFile(path);
    if (!bytes.ok()) return Status::NotFound("plugin " + path + ": file cannot be read");
    hash = ContentHash(*bytes);
  }
  std::shared_ptr<Plugin> p(new Plugin());
  p->path_ = path;
  p->hash_ = std::move(hash);
  boost::dll::fs::error_code ec;
  p->lib_.load(path, ec, boost::dll::load_mode::rtld_now | boost::dll::load_mode::rtld_local);
  if (ec) {
    return Status::InvalidArgument("plugin " + path + ": not a loadable shared library (" +
                                   ec.message() + ")");
  }
  auto need = [&](const char* symbol) -> Status {
    if (!p->lib_.has(symbol)) {
      return Status::InvalidArgument("plugin " + path + ": not a ray plugin (missing symbol " +
                                     symbol + "; build it with ray_add_plugin and <ray/api.h>)");
    }
    return Status::Ok();
  };
  RAY_RETURN_IF_ERROR(need("ray_plugin_abi_version"));
  uint32_t version = p->lib_.get<uint32_t()>("ray_plugin_abi_version")();
  if (version != RAY_PLUGIN_ABI_VERSION) {
    return Status::FailedPrecondition(
        "plugin " + path + ": built for plugin ABI version " + std::to_string(version) +
        ", but this ray runs version " + std::to_string(RAY_PLUGIN_ABI_VERSION) +
        "; rebuild it against this ray's headers");
  }
  for (const char* s : {"ray_plugin_attach", "ray_plugin_describe", "ray_plugin_invoke",
                        "ray_plugin_destroy"}) {
    RAY_RETURN_IF_ERROR(need(s));
  }
  p->attach_ = p->lib_.get<void(const RayRuntimeApi*)>("ray_plugin_attach");
  p->invoke_ = p->lib_.get<RayResult(const char*, size_t, void*, const RayArg*, size_t)>(
      "ray_plugin_invoke");
  p->destroy_ = p->lib_.get<void(const char*, size_t, void*)>("ray_plugin_destroy");
  if (p->lib_.has("ray_plugin_main")) p->main_ = p->lib_.get<int(int, char**)>("ray_plugin_main");

  RayResult described = p->lib_.get<RayResult()>("ray_plugin_describe")();
  std::pair<std::vector<std::pair<std::string, int>>, std::vector<std::string>> info;
  try {
    msgpack::object_handle oh = msgpack::unpack(described.data, described.size);
    oh.get().convert(info);
  } catch (const std::exception& e) {
    described.free_fn(described.data);
    return Status::InvalidArgument("plugin " + path + ": malformed function table (" + e.what() +
                                   ")");
  }
  described.free_fn(described.data);
  if (!info.second.empty()) {
    return Status::AlreadyExists("plugin " + path + ": function '" + info.second[0] +
                                 "' is registered twice; names must be unique per plugin");
  }
  p->functions_ = std::move(info.first);
  return p;
}

}  // namespace ray::worker
