#include "runtime/cluster/cluster_config.h"

#include <cstdlib>
#include <filesystem>
#include <optional>
#include <set>

#include <arpa/inet.h>
#include <unistd.h>

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include "runtime/base/util.h"
#include "runtime/base/yaml.h"

namespace ray::cluster {

namespace {

using nlohmann::json;

// The type a key's value must have.
enum class Type { kString, kInt, kNumber, kBool, kStringList, kMap, kStringMap, kNumberMap };

const char* Describe(Type t) {
  switch (t) {
    case Type::kString: return "a string";
    case Type::kInt: return "an integer";
    case Type::kNumber: return "a number";
    case Type::kBool: return "true or false";
    case Type::kStringList: return "a list of strings";
    case Type::kMap: return "a mapping";
    case Type::kStringMap: return "a mapping of strings to strings";
    case Type::kNumberMap: return "a mapping of names to numbers";
  }
  return "";
}

struct Key {
  const char* name;
  Type type;
};

constexpr Key kTopKeys[] = {
    {"cluster_name", Type::kString},     {"min_workers", Type::kInt},
    {"max_workers", Type::kInt},         {"initial_workers", Type::kInt},
    {"target_utilization_fraction", Type::kNumber},
    {"idle_timeout_minutes", Type::kNumber},
    {"upscaling_speed", Type::kNumber},  {"autoscaling_mode", Type::kString},
    {"provider", Type::kMap},            {"auth", Type::kMap},
    {"docker", Type::kMap},              {"head_node", Type::kMap},
    {"worker_nodes", Type::kMap},        {"available_node_types", Type::kMap},
    {"head_node_type", Type::kString},   {"file_mounts", Type::kStringMap},
    {"initialization_commands", Type::kStringList},
    {"setup_commands", Type::kStringList},
    {"head_setup_commands", Type::kStringList},
    {"worker_setup_commands", Type::kStringList},
    {"head_start_ray_commands", Type::kStringList},
    {"worker_start_ray_commands", Type::kStringList},
    {"ship_ray", Type::kBool},
};
constexpr Key kAuthKeys[] = {{"ssh_user", Type::kString}, {"ssh_private_key", Type::kString}};
constexpr Key kDockerKeys[] = {
    {"image", Type::kString},          {"container_name", Type::kString},
    {"pull_before_run", Type::kBool},  {"run_options", Type::kStringList},
    {"head_image", Type::kString},     {"worker_image", Type::kString},
    {"head_run_options", Type::kStringList}, {"worker_run_options", Type::kStringList},
};
constexpr Key kLocalProviderKeys[] = {{"type", Type::kString},
                                      {"head_ip", Type::kString},
                                      {"worker_ips", Type::kStringList},
                                      {"use_internal_ips", Type::kBool}};
constexpr Key kFakeProviderKeys[] = {{"type", Type::kString},
                                     {"use_node_id_as_ip", Type::kBool},
                                     {"disable_node_updaters", Type::kBool},
                                     {"disable_launch_config_check", Type::kBool}};
constexpr Key kNodeTypeKeys[] = {{"node_config", Type::kMap},
                                 {"resources", Type::kNumberMap},
                                 {"min_workers", Type::kInt},
                                 {"max_workers", Type::kInt},
                                 {"worker_setup_commands", Type::kStringList}};

// Ray keys this ray does not implement, with what to do instead.
const std::map<std::string, std::string>& Unsupported() {
  static const std::map<std::string, std::string> keys = {
      {"cluster_synced_files", "not implemented yet; use file_mounts"},
      {"file_mounts_sync_continuously", "not implemented yet"},
      {"rsync_exclude", "not implemented yet"},
      {"rsync_filter", "not implemented yet"},
      {"no_restart", "set by `ray up --no-restart`, not in the YAML"},
  };
  return keys;
}

// Walks the YAML tree checking keys and types; the first problem wins.
class Checker {
 public:
  explicit Checker(std::string source) : source_(std::move(source)) {}

  Status Fail(const YAML::Node& at, const std::string& message) const {
    if (at.IsDefined() && at.Mark().line >= 0) {
      return Status::InvalidArgument(fmt::format("{}:{}: {}", source_, at.Mark().line + 1, message));
    }
    return Status::InvalidArgument(fmt::format("{}: {}", source_, message));
  }

  Status Value(const YAML::Node& v, const std::string& path, Type type) const {
    auto wrong = [&] {
      std::string got = v.IsScalar() ? "'" + v.Scalar() + "'" : v.IsSequence() ? "a list"
                        : v.IsMap()  ? "a mapping" : "nothing";
      return Fail(v, fmt::format("`{}` must be {}, got {}", path, Describe(type), got));
    };
    json j = YamlToJson(v);
    switch (type) {
      case Type::kString:
        if (!v.IsScalar()) return wrong();
        return Status::Ok();
      case Type::kInt:
        if (!j.is_number_integer()) return wrong();
        return Status::Ok();
      case Type::kNumber:
        if (!j.is_number()) return wrong();
        return Status::Ok();
      case Type::kBool:
        if (!j.is_boolean()) return wrong();
        return Status::Ok();
      case Type::kStringList:
        if (v.IsNull()) return Status::Ok();
        if (!v.IsSequence()) return wrong();
        for (const auto& e : v) {
          if (!e.IsScalar()) return Fail(e, fmt::format("`{}` items must be strings", path));
        }
        return Status::Ok();
      case Type::kMap:
        if (!v.IsMap() && !v.IsNull()) return wrong();
        return Status::Ok();
      case Type::kStringMap:
      case Type::kNumberMap:
        if (v.IsNull()) return Status::Ok();
        if (!v.IsMap()) return wrong();
        for (const auto& kv : v) {
          json e = YamlToJson(kv.second);
          bool ok = type == Type::kStringMap ? kv.second.IsScalar() : e.is_number();
          if (!ok) {
            return Fail(kv.second, fmt::format("`{}.{}` must be {}", path,
                                               kv.first.as<std::string>(),
                                               type == Type::kStringMap ? "a string" : "a number"));
          }
        }
        return Status::Ok();
    }
    return Status::Ok();
  }

  // Every key of `map` must be one of `keys` and have its type.
  template <size_t N>
  Status Map(const YAML::Node& map, const std::string& path, const Key (&keys)[N]) const {
    if (map.IsNull() || !map.IsDefined()) return Status::Ok();
    for (const auto& kv : map) {
      std::string name = kv.first.as<std::string>();
      std::string full = path.empty() ? name : path + "." + name;
      const Key* key = nullptr;
      for (const auto& k : keys) {
        if (name == k.name) key = &k;
      }
      if (key == nullptr) {
        if (path.empty() && Unsupported().count(name)) {
          return Fail(kv.first, fmt::format("`{}` is not supported by this ray: {}", name,
                                            Unsupported().at(name)));
        }
        std::string expected;
        for (const auto& k : keys) expected += std::string(expected.empty() ? "" : ", ") + k.name;
        return Fail(kv.first, fmt::format("unknown key `{}`{} (expected one of: {})", name,
                                          path.empty() ? "" : " in " + path, expected));
      }
      RAY_RETURN_IF_ERROR(Value(kv.second, full, key->type));
    }
    return Status::Ok();
  }

 private:
  std::string source_;
};

std::vector<std::string> Strings(const json& j) {
  std::vector<std::string> out;
  if (!j.is_array()) return out;
  for (const auto& e : j) out.push_back(e.is_string() ? e.get<std::string>() : e.dump());
  return out;
}

std::string String(const json& j, const std::string& fallback = "") {
  if (j.is_null()) return fallback;
  return j.is_string() ? j.get<std::string>() : j.dump();
}

std::vector<std::string> Concat(std::vector<std::string> a, const std::vector<std::string>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

// Ray's start commands. The head listens on its own address (not loopback only) so
// that workers reach it; ~/ray_bootstrap_config.yaml makes it run the autoscaler.
json DefaultHeadStart(const std::string& provider) {
  if (provider == "fake_multinode") {
    return json::array({"ray stop", "ray start --head --port=0 "
                                    "--autoscaling-config=~/ray_bootstrap_config.yaml"});
  }
  return json::array({"ray stop", "ray start --head --port=6379 --node-ip-address=$RAY_HEAD_IP "
                                  "--autoscaling-config=~/ray_bootstrap_config.yaml"});
}
json DefaultWorkerStart() {
  return json::array({"ray stop", "ray start --address=$RAY_HEAD_IP:6379"});
}

// Structural checks over the YAML, then Ray's defaults over its JSON.
Status Check(const Checker& check, const YAML::Node& root) {
  if (!root.IsMap()) return check.Fail(root, "the cluster config must be a mapping of keys");
  RAY_RETURN_IF_ERROR(check.Map(root, "", kTopKeys));
  const YAML::Node provider = root["provider"];
  if (!provider) return check.Fail(root, "missing required key `provider` (with `type`)");
  if (!provider["type"]) return check.Fail(provider, "missing required key `provider.type`");
  std::string type = provider["type"].Scalar();
  if (type == "local") {
    RAY_RETURN_IF_ERROR(check.Map(provider, "provider", kLocalProviderKeys));
    if (!provider["head_ip"]) {
      return check.Fail(provider, "missing required key `provider.head_ip` (local provider)");
    }
    const YAML::Node auth = root["auth"];
    if (!auth || !auth["ssh_user"]) {
      return check.Fail(auth ? auth : root, "missing required key `auth.ssh_user` (local provider)");
    }
  } else if (type == "fake_multinode") {
    RAY_RETURN_IF_ERROR(check.Map(provider, "provider", kFakeProviderKeys));
    for (const auto& kv : provider) {
      if (kv.first.Scalar() != "type" && YamlToJson(kv.second) != true) {
        return check.Fail(kv.second, fmt::format("`provider.{}` can only be true: fake_multinode "
                                                 "nodes are processes of this machine",
                                                 kv.first.Scalar()));
      }
    }
  } else if (type == "external") {
    if (!provider["module"] || !provider["module"].IsScalar()) {
      return check.Fail(provider, "missing required key `provider.module`: the path of a "
                                  "NodeProvider plugin (.so)");
    }
  } else {
    return check.Fail(provider["type"],
                      fmt::format("provider type `{}` is not supported (supported: local, "
                                  "fake_multinode, external)", type));
  }
  if (root["auth"]) RAY_RETURN_IF_ERROR(check.Map(root["auth"], "auth", kAuthKeys));
  if (root["file_mounts"] && root["file_mounts"].IsMap()) {
    for (const auto& kv : root["file_mounts"]) {
      if (kv.second.Scalar().empty()) {
        return check.Fail(kv.first, fmt::format("file_mounts: `{}` has no local path",
                                                kv.first.Scalar()));
      }
    }
  }
  if (const YAML::Node docker = root["docker"]) {
    RAY_RETURN_IF_ERROR(check.Map(docker, "docker", kDockerKeys));
    for (const char* image : {"image", "head_image", "worker_image"}) {
      if (docker[image] && !docker[image].Scalar().empty()) {
        return check.Fail(docker[image], "`docker` is not supported by this ray: nodes run ray "
                                         "directly; remove the section or leave `image` empty");
      }
    }
  }
  if (root["autoscaling_mode"] && root["autoscaling_mode"].Scalar() != "default") {
    return check.Fail(root["autoscaling_mode"],
                      "`autoscaling_mode` may only be `default` (`aggressive` is not implemented)");
  }
  if (const YAML::Node types = root["available_node_types"]) {
    if (!root["head_node_type"]) {
      return check.Fail(types, "`available_node_types` needs `head_node_type`");
    }
    for (const char* legacy : {"head_node", "worker_nodes", "min_workers", "initial_workers"}) {
      if (root[legacy]) {
        return check.Fail(root[legacy],
                          fmt::format("`{}` belongs to the legacy form; with "
                                      "available_node_types, set it per node type",
                                      legacy));
      }
    }
    for (const auto& kv : types) {
      RAY_RETURN_IF_ERROR(check.Map(kv.second, "available_node_types." + kv.first.Scalar(),
                                    kNodeTypeKeys));
    }
    if (!types[root["head_node_type"].Scalar()]) {
      return check.Fail(root["head_node_type"],
                        fmt::format("head_node_type `{}` is not in available_node_types",
                                    root["head_node_type"].Scalar()));
    }
  } else if (root["head_node_type"]) {
    return check.Fail(root["head_node_type"], "`head_node_type` needs `available_node_types`");
  }
  return Status::Ok();
}

// Ray's defaults (the legacy example-full.yaml and the 1.x schema), then the legacy
// form rewritten into node types. Returns the filled JSON.
json Fill(json c) {
  std::string provider = c["provider"]["type"];
  c.emplace("cluster_name", "default");
  c.emplace("initial_workers", 0);
  // Ray 0.7's load rule belongs to the legacy form (Ray 1.x dropped it): off otherwise.
  c.emplace("target_utilization_fraction", c.contains("available_node_types") ? 0.0 : 0.8);
  c.emplace("idle_timeout_minutes", 5);
  c.emplace("upscaling_speed", 1.0);
  c.emplace("ship_ray", true);
  c.emplace("auth", json::object());
  c.erase("autoscaling_mode");
  c.erase("docker");
  for (const char* k : {"file_mounts", "head_node", "worker_nodes"}) {
    if (!c.contains(k) || c[k].is_null()) c[k] = json::object();
  }
  for (const char* k : {"initialization_commands", "setup_commands", "head_setup_commands",
                        "worker_setup_commands"}) {
    if (!c.contains(k) || c[k].is_null()) c[k] = json::array();
  }
  if (!c.contains("head_start_ray_commands")) c["head_start_ray_commands"] = DefaultHeadStart(provider);
  if (!c.contains("worker_start_ray_commands")) c["worker_start_ray_commands"] = DefaultWorkerStart();
  if (provider == "local") {
    auto& p = c["provider"];
    if (!p.contains("worker_ips") || p["worker_ips"].is_null()) p["worker_ips"] = json::array();
    int n = static_cast<int>(p["worker_ips"].size());
    // Typically min == max == the number of hosts (more is refused in Problems).
    c.emplace("max_workers", n);
    c.emplace("min_workers", std::min(n, c["max_workers"].get<int>()));
  }
  c.emplace("max_workers", 2);
  if (!c.contains("available_node_types")) {
    c.emplace("min_workers", 0);
    c["available_node_types"] = {
        {"ray.head.default", {{"node_config", c["head_node"]}, {"resources", json::object()},
                              {"min_workers", 0}, {"max_workers", 0}}},
        {"ray.worker.default", {{"node_config", c["worker_nodes"]}, {"resources", json::object()},
                                {"min_workers", c["min_workers"]},
                                {"max_workers", c["max_workers"]}}}};
    c["head_node_type"] = "ray.head.default";
  } else {
    c["min_workers"] = 0;
    for (auto& [name, t] : c["available_node_types"].items()) {
      if (t.is_null()) t = json::object();
      t.emplace("node_config", json::object());
      if (t["node_config"].is_null()) t["node_config"] = json::object();
      t.emplace("resources", json::object());
      if (t["resources"].is_null()) t["resources"] = json::object();
      t.emplace("min_workers", 0);
      t.emplace("max_workers", name == c["head_node_type"] ? 0 : c["max_workers"].get<int>());
      c["min_workers"] = c["min_workers"].get<int>() +
                         (name == c["head_node_type"] ? 0 : t["min_workers"].get<int>());
    }
  }
  c.erase("head_node");
  c.erase("worker_nodes");
  return c;
}

// A value out of its range: the key's path (for its line) and what is wrong.
struct Problem {
  std::vector<std::string> path;
  std::string message;
};

std::optional<Problem> FindProblem(const ClusterConfig& c) {
  using P = std::vector<std::string>;
  auto bad = [](P path, std::string m) { return Problem{std::move(path), std::move(m)}; };
  if (c.cluster_name.empty() ||
      c.cluster_name.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                       "0123456789_-") != std::string::npos) {
    return bad({"cluster_name"}, "`cluster_name` '" + c.cluster_name +
                                     "' may hold only letters, digits, _ and -");
  }
  for (auto [key, v] : {std::pair{"max_workers", c.max_workers}, {"min_workers", c.min_workers},
                        {"initial_workers", c.initial_workers}}) {
    if (v < 0) return bad({key}, fmt::format("`{}` must not be negative", key));
  }
  if (c.min_workers > c.max_workers) {
    return bad({"min_workers"}, fmt::format("`min_workers` ({}) exceeds `max_workers` ({})",
                                            c.min_workers, c.max_workers));
  }
  int hosts = static_cast<int>(c.worker_ips.size());
  if (c.provider_type == "local") {
    // Nodes are matched to their hosts by the address they register with.
    std::set<std::string> seen = {c.head_ip};
    in_addr addr{};
    if (::inet_pton(AF_INET, c.head_ip.c_str(), &addr) != 1) {
      return bad({"provider", "head_ip"}, "`provider.head_ip` '" + c.head_ip +
                                              "' must be an IPv4 address");
    }
    for (const auto& ip : c.worker_ips) {
      if (::inet_pton(AF_INET, ip.c_str(), &addr) != 1) {
        return bad({"provider", "worker_ips"},
                   "`provider.worker_ips` holds '" + ip + "', which is not an IPv4 address");
      }
      if (!seen.insert(ip).second) {
        return bad({"provider", "worker_ips"},
                   "`provider.worker_ips` holds " + ip + " twice, or the head's address");
      }
    }
  }
  if (c.provider_type == "local" && c.max_workers > hosts) {
    return bad({"max_workers"}, fmt::format("`max_workers` is {}, but the local provider has "
                                            "only {} worker_ips", c.max_workers, hosts));
  }
  if (!(c.target_utilization_fraction >= 0 && c.target_utilization_fraction <= 1)) {
    return bad({"target_utilization_fraction"},
               "`target_utilization_fraction` must be in [0, 1] (0: off)");
  }
  if (c.idle_timeout_minutes < 0) {
    return bad({"idle_timeout_minutes"}, "`idle_timeout_minutes` must not be negative");
  }
  if (!(c.upscaling_speed > 0)) return bad({"upscaling_speed"}, "`upscaling_speed` must be positive");
  for (const auto& t : c.node_types) {
    P at = {"available_node_types", t.name};
    if (t.min_workers < 0 || t.max_workers < 0 || t.min_workers > t.max_workers) {
      return bad(at, fmt::format("node type `{}`: need 0 <= min_workers ({}) <= max_workers ({})",
                                 t.name, t.min_workers, t.max_workers));
    }
    if (c.provider_type == "local" && t.max_workers > hosts) {
      return bad(at, fmt::format("node type `{}`: max_workers {} exceeds the {} worker_ips",
                                 t.name, t.max_workers, hosts));
    }
    for (const auto& [r, v] : t.resources) {
      if (v < 0) return bad(at, fmt::format("node type `{}`: resource {} is negative", t.name, r));
    }
    if (c.provider_type == "fake_multinode" && t.name != c.head_node_type &&
        !t.resources.count("CPU")) {
      return bad(at, fmt::format("node type `{}`: fake_multinode nodes need `resources` with CPU",
                                 t.name));
    }
  }
  for (const auto& [remote, local] : c.file_mounts) {
    if (!std::filesystem::exists(local)) {
      return bad({"file_mounts", remote},
                 fmt::format("file_mounts: the local path '{}' (for '{}') does not exist", local,
                             remote));
    }
  }
  if (!c.ssh_private_key.empty() && ::access(c.ssh_private_key.c_str(), R_OK) != 0) {
    return bad({"auth", "ssh_private_key"},
               "auth.ssh_private_key '" + c.ssh_private_key + "' cannot be read");
  }
  return std::nullopt;
}

// The config from its filled JSON, unchecked. Keys must all be there (at() names a
// missing one).
Result<ClusterConfig> Build(const json& j) {
  try {
    ClusterConfig c;
    c.json = j;
    c.cluster_name = String(j.at("cluster_name"));
    c.min_workers = j.at("min_workers");
    c.max_workers = j.at("max_workers");
    c.initial_workers = j.at("initial_workers");
    c.target_utilization_fraction = j.at("target_utilization_fraction");
    c.idle_timeout_minutes = j.at("idle_timeout_minutes");
    c.upscaling_speed = j.at("upscaling_speed");
    c.provider = j.at("provider");
    c.provider_type = String(c.provider.at("type"));
    c.head_ip = String(c.provider.value("head_ip", json()));
    c.worker_ips = Strings(c.provider.value("worker_ips", json::array()));
    c.ssh_user = String(j.at("auth").value("ssh_user", json()));
    std::string key = String(j.at("auth").value("ssh_private_key", json()));
    c.ssh_private_key = key.empty() ? "" : std::filesystem::absolute(ExpandUser(key)).string();
    c.head_node_type = String(j.at("head_node_type"));
    for (const auto& [name, t] : j.at("available_node_types").items()) {
      NodeType type;
      type.name = name;
      type.node_config = t.at("node_config");
      for (const auto& [r, v] : t.at("resources").items()) type.resources[r] = v.get<double>();
      type.min_workers = t.at("min_workers");
      type.max_workers = t.at("max_workers");
      if (t.contains("worker_setup_commands")) {
        type.worker_setup_commands = Strings(t["worker_setup_commands"]);
        type.has_worker_setup_commands = true;
      }
      c.node_types.push_back(std::move(type));
    }
    if (c.FindType(c.head_node_type) == nullptr) {
      return Status::InvalidArgument("head_node_type `" + c.head_node_type + "` is not a node type");
    }
    for (const auto& [remote, local] : j.at("file_mounts").items()) {
      std::string path = String(local);
      if (path.empty()) return Status::InvalidArgument("file_mounts: '" + remote + "' has no local path");
      c.file_mounts[remote] = std::filesystem::absolute(ExpandUser(path)).string();
    }
    auto setup = Strings(j.at("setup_commands"));
    c.initialization_commands = Strings(j.at("initialization_commands"));
    c.head_setup_commands = Concat(setup, Strings(j.at("head_setup_commands")));
    c.worker_setup_commands = Concat(setup, Strings(j.at("worker_setup_commands")));
    c.head_start_ray_commands = Strings(j.at("head_start_ray_commands"));
    c.worker_start_ray_commands = Strings(j.at("worker_start_ray_commands"));
    c.ship_ray = j.at("ship_ray");
    return c;
  } catch (const std::exception& e) {
    return Status::InvalidArgument(std::string("malformed cluster config: ") + e.what());
  }
}

// The key of the deepest entry of `path` found under `root` (its line is the one
// to show), or `root`.
YAML::Node Deepest(const YAML::Node& root, const std::vector<std::string>& path) {
  YAML::Node at = root, key = root;
  for (const auto& name : path) {
    bool found = false;
    if (at.IsMap()) {
      for (const auto& kv : at) {
        if (kv.first.Scalar() != name) continue;
        key = kv.first;
        at = kv.second;
        found = true;
        break;
      }
    }
    if (!found) break;
  }
  return key;
}

}  // namespace

const NodeType* ClusterConfig::FindType(const std::string& name) const {
  for (const auto& t : node_types) {
    if (t.name == name) return &t;
  }
  return nullptr;
}

std::vector<const NodeType*> ClusterConfig::WorkerTypes() const {
  std::vector<const NodeType*> out;
  for (const auto& t : node_types) {
    if (t.name != head_node_type) out.push_back(&t);
  }
  return out;
}

const std::vector<std::string>& ClusterConfig::SetupCommandsOf(const NodeType& type) const {
  return type.has_worker_setup_commands ? type.worker_setup_commands : worker_setup_commands;
}

Result<ClusterConfig> ClusterConfigFromJson(const json& j) {
  RAY_ASSIGN_OR_RETURN(ClusterConfig c, Build(j));
  if (auto problem = FindProblem(c)) return Status::InvalidArgument(problem->message);
  return c;
}

Result<ClusterConfig> ParseClusterConfig(const std::string& yaml, const std::string& source) {
  YAML::Node root;
  try {
    root = YAML::Load(yaml);
  } catch (const YAML::Exception& e) {
    return Status::InvalidArgument(
        fmt::format("{}:{}: not valid YAML: {}", source, e.mark.line + 1, e.msg));
  }
  if (root.IsMap() && root["_bootstrap"]) {
    // Written by `ray up` for the head (~/ray_bootstrap_config.yaml): filled already.
    auto config = ClusterConfigFromJson(YamlToJson(root));
    if (!config.ok()) return Status::InvalidArgument(source + ": " + config.status().message());
    return config;
  }
  Checker check(source);
  RAY_RETURN_IF_ERROR(Check(check, root));
  auto config = Build(Fill(YamlToJson(root)));
  if (!config.ok()) return Status::InvalidArgument(source + ": " + config.status().message());
  if (auto problem = FindProblem(*config)) {
    return check.Fail(Deepest(root, problem->path), problem->message);
  }
  return config;
}

Result<ClusterConfig> LoadClusterConfig(const std::string& path) {
  auto text = ReadFile(path);
  if (!text.ok()) {
    return Status::InvalidArgument("cannot read the cluster config " + path + ": " +
                                   text.status().message());
  }
  return ParseClusterConfig(*text, path);
}

Status ApplyOverrides(ClusterConfig& c, const std::string& cluster_name,
                      std::optional<int> min_workers, std::optional<int> max_workers) {
  json j = c.json;
  bool legacy = j["available_node_types"].contains("ray.worker.default");
  if (min_workers && !legacy) {
    return Status::InvalidArgument("--min-workers applies to the legacy form; with "
                                   "available_node_types, set min_workers per node type");
  }
  if (!cluster_name.empty()) j["cluster_name"] = cluster_name;
  if (max_workers) {
    // Types that had the global maximum as theirs follow it.
    for (auto& [name, t] : j["available_node_types"].items()) {
      if (name != j["head_node_type"] && t["max_workers"] == j["max_workers"]) {
        t["max_workers"] = *max_workers;
      }
    }
    j["max_workers"] = *max_workers;
  }
  if (min_workers) j["min_workers"] = *min_workers;
  // The legacy form's counts live on the default worker type.
  if (auto& types = j["available_node_types"]; legacy) {
    if (max_workers) types["ray.worker.default"]["max_workers"] = *max_workers;
    if (min_workers) types["ray.worker.default"]["min_workers"] = *min_workers;
  }
  RAY_ASSIGN_OR_RETURN(ClusterConfig updated, ClusterConfigFromJson(j));
  c = std::move(updated);
  return Status::Ok();
}

std::string LaunchHash(const ClusterConfig& config, const NodeType& type) {
  json j = {type.node_config, config.json["auth"], type.resources};
  return ContentHash(j.dump());
}

}  // namespace ray::cluster
