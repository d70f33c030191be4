#pragma once
// A NodeProvider plugin: where the nodes of a cluster come from when its YAML says
//
//   provider:
//     type: external
//     module: /path/to/my_provider.so   # this library
//     ...                               # any other keys: given to the plugin
//
// The launcher and the autoscaler decide which nodes to create and terminate; the
// provider only does it, and keeps a few string tags on each node (what it is, its
// setup status). Nodes it creates must be reachable over ssh with the YAML's
// `auth` at the address it reports; the launcher sets them up.
//
// The boundary is C and JSON, versioned: the library exports
// `ray_node_provider_api()`, whose `abi_version` is checked first. Each call takes
// a method name and a JSON request and returns a JSON reply ({"error": "..."} on
// failure); exceptions never cross it. Methods (requests -> replies):
//   non_terminated_nodes  {"filter": {tag: value}}  -> {"nodes": [{"id", "ip", "tags"}]}
//   create_nodes          {"node_config", "tags", "count", "resources"} -> {"ids": [...]}
//   set_node_tags         {"id", "tags"}  (merged into the node's) -> {}
//   terminate_nodes       {"ids": [...]} -> {}
// Calls come from one thread at a time.
//
// In C++, derive from ray::NodeProviderPlugin and export it with
// RAY_NODE_PROVIDER(MyProvider); see plugins/examples/static_hosts_provider.cc.

#include <stdint.h>

#define RAY_NODE_PROVIDER_ABI_VERSION 1

extern "C" {
struct RayNodeProviderApi {
  uint32_t abi_version;
  // A provider for `config_json` (the YAML's provider section); null on failure,
  // with *error set to a message the caller frees with free_string.
  void* (*create)(const char* config_json, const char* cluster_name, char** error);
  char* (*call)(void* self, const char* method, const char* request_json);
  void (*free_string)(char* s);
  void (*destroy)(void* self);
};
}

#ifdef __cplusplus
#include <cstdlib>
#include <cstring>
#include <exception>
#include <string>

#include <nlohmann/json.hpp>

namespace ray {

class NodeProviderPlugin {
 public:
  using Json = nlohmann::json;
  virtual ~NodeProviderPlugin() = default;
  // [{"id", "ip", "tags": {...}}] of the nodes not terminated whose tags hold `filter`.
  virtual Json NonTerminatedNodes(const Json& filter) = 0;
  // Ids of up to `count` new nodes, tagged `tags`.
  virtual Json CreateNodes(const Json& node_config, const Json& tags, int count,
                           const Json& resources) = 0;
  virtual void SetNodeTags(const std::string& id, const Json& tags) = 0;
  virtual void TerminateNodes(const Json& ids) = 0;
};

namespace node_provider_detail {

inline char* Dup(const std::string& s) {
  char* out = static_cast<char*>(std::malloc(s.size() + 1));
  if (out != nullptr) std::memcpy(out, s.c_str(), s.size() + 1);
  return out;
}

inline char* Call(NodeProviderPlugin* p, const char* method, const char* request) {
  using Json = nlohmann::json;
  try {
    Json r = Json::parse(request);
    std::string m = method;
    Json reply = Json::object();
    if (m == "non_terminated_nodes") {
      reply["nodes"] = p->NonTerminatedNodes(r.value("filter", Json::object()));
    } else if (m == "create_nodes") {
      reply["ids"] = p->CreateNodes(r.value("node_config", Json::object()),
                                    r.value("tags", Json::object()), r.value("count", 0),
                                    r.value("resources", Json::object()));
    } else if (m == "set_node_tags") {
      p->SetNodeTags(r.at("id").get<std::string>(), r.value("tags", Json::object()));
    } else if (m == "terminate_nodes") {
      p->TerminateNodes(r.value("ids", Json::array()));
    } else {
      reply = {{"error", "unknown method " + m}};
    }
    return Dup(reply.dump());
  } catch (const std::exception& e) {
    return Dup(Json({{"error", e.what()}}).dump());
  } catch (...) {
    return Dup(R"({"error": "unknown exception"})");
  }
}

}  // namespace node_provider_detail
}  // namespace ray

// Exports `Class` (constructible from (const nlohmann::json& config, const
// std::string& cluster_name)) as this library's node provider.
#define RAY_NODE_PROVIDER(Class)                                                          \
  extern "C" __attribute__((visibility("default"), used)) const RayNodeProviderApi*        \
  ray_node_provider_api() {                                                               \
    static const RayNodeProviderApi api = {                                               \
        RAY_NODE_PROVIDER_ABI_VERSION,                                                    \
        [](const char* config, const char* name, char** error) -> void* {                 \
          try {                                                                           \
            return new Class(nlohmann::json::parse(config), std::string(name));           \
          } catch (const std::exception& e) {                                             \
            *error = ::ray::node_provider_detail::Dup(e.what());                          \
            return nullptr;                                                               \
          } catch (...) {                                                                 \
            *error = ::ray::node_provider_detail::Dup("unknown exception");               \
            return nullptr;                                                               \
          }                                                                               \
        },                                                                                \
        [](void* self, const char* method, const char* request) -> char* {                \
          return ::ray::node_provider_detail::Call(static_cast<Class*>(self), method,     \
                                                   request);                              \
        },                                                                                \
        [](char* s) { std::free(s); },                                                    \
        [](void* self) { delete static_cast<Class*>(self); }};                            \
    return &api;                                                                          \
  }
#endif
