// provider type `external`: a NodeProvider plugin (.so) behind <ray/node_provider.h>.

#include <cstdlib>

#include <boost/dll/shared_library.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <ray/node_provider.h>

#include "runtime/base/util.h"
#include "runtime/cluster/node_provider.h"

namespace ray::cluster {

namespace {

using nlohmann::json;

class ExternalProvider : public NodeProvider {
 public:
  ExternalProvider(boost::dll::shared_library lib, const RayNodeProviderApi* api, void* self,
                   std::string module)
      : lib_(std::move(lib)), api_(api), self_(self), module_(std::move(module)) {}
  ~ExternalProvider() override { api_->destroy(self_); }

  Result<std::vector<ProviderNode>> NonTerminatedNodes(const Tags& filter) override {
    RAY_ASSIGN_OR_RETURN(json reply, Call("non_terminated_nodes", {{"filter", filter}}));
    std::vector<ProviderNode> out;
    try {
      for (const auto& n : reply.at("nodes")) {
        ProviderNode node;
        node.id = n.at("id").get<std::string>();
        node.ip = n.at("ip").get<std::string>();
        json tags = n.value("tags", json::object());
        for (const auto& [k, v] : tags.items()) node.tags[k] = v;
        out.push_back(std::move(node));
      }
    } catch (const std::exception& e) {
      return Malformed("non_terminated_nodes", e.what());
    }
    return out;
  }

  Result<std::vector<std::string>> CreateNodes(const NodeType& type, const Tags& tags,
                                               int count) override {
    RAY_ASSIGN_OR_RETURN(json reply, Call("create_nodes", {{"node_config", type.node_config},
                                                           {"tags", tags},
                                                           {"count", count},
                                                           {"resources", type.resources}}));
    try {
      return reply.at("ids").get<std::vector<std::string>>();
    } catch (const std::exception& e) {
      return Malformed("create_nodes", e.what());
    }
  }

  Status SetNodeTags(const std::string& id, const Tags& tags) override {
    return Call("set_node_tags", {{"id", id}, {"tags", tags}}).status();
  }

  Status TerminateNodes(const std::vector<std::string>& ids) override {
    return Call("terminate_nodes", {{"ids", ids}}).status();
  }

 private:
  Result<json> Call(const char* method, const json& request) {
    char* raw = api_->call(self_, method, request.dump().c_str());
    if (raw == nullptr) return Malformed(method, "no reply");
    std::string text = raw;
    api_->free_string(raw);
    json reply;
    try {
      reply = json::parse(text);
    } catch (const std::exception& e) {
      return Malformed(method, e.what());
    }
    if (!reply.is_object()) return Malformed(method, "not a JSON object");
    if (reply.contains("error")) {
      return Status::Unavailable(
          fmt::format("node provider {}: {}: {}", module_, method, reply["error"].dump()));
    }
    return reply;
  }
  Status Malformed(const std::string& method, const std::string& why) const {
    return Status::Internal(fmt::format("node provider {}: malformed reply to {}: {}", module_,
                                        method, why));
  }

  boost::dll::shared_library lib_;  // outlives the provider object it made
  const RayNodeProviderApi* api_;
  void* self_;
  std::string module_;
};

}  // namespace

Result<std::unique_ptr<NodeProvider>> MakeExternalProvider(const ClusterConfig& config) {
  std::string module = ExpandUser(config.provider.value("module", ""));
  auto refuse = [&](const std::string& why) {
    return Status::InvalidArgument(fmt::format("provider.module {}: {}", module, why));
  };
  boost::dll::shared_library lib;
  try {
    lib.load(module, boost::dll::load_mode::rtld_now | boost::dll::load_mode::rtld_local);
  } catch (const std::exception& e) {
    return refuse(std::string("cannot be loaded: ") + e.what());
  }
  if (!lib.has("ray_node_provider_api")) {
    return refuse("is not a node provider plugin (no ray_node_provider_api; see "
                  "<ray/node_provider.h>)");
  }
  auto entry = lib.get<const RayNodeProviderApi*()>("ray_node_provider_api");
  const RayNodeProviderApi* api = entry();
  if (api == nullptr || api->abi_version != RAY_NODE_PROVIDER_ABI_VERSION) {
    return refuse(fmt::format("speaks node provider ABI {}, this ray speaks {}",
                              api ? api->abi_version : 0, RAY_NODE_PROVIDER_ABI_VERSION));
  }
  char* error = nullptr;
  void* self = api->create(config.provider.dump().c_str(), config.cluster_name.c_str(), &error);
  if (self == nullptr) {
    std::string why = error ? error : "no reason given";
    if (error) api->free_string(error);
    return refuse("refused the config: " + why);
  }
  return std::unique_ptr<NodeProvider>(new ExternalProvider(std::move(lib), api, self, module));
}

}  // namespace ray::cluster
