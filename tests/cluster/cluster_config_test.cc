#include "runtime/cluster/cluster_config.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "runtime/base/util.h"
#include "tests/test_util/temp_dir.h"

namespace ray::cluster {
namespace {

using Strings = std::vector<std::string>;

// Ray's minimal private cluster: six lines, so that a key appended is on line 7.
constexpr const char* kLocal = R"(provider:
  type: local
  head_ip: 10.0.0.1
  worker_ips: [10.0.0.2, 10.0.0.3]
auth:
  ssh_user: ubuntu
)";

// A provider section that needs nothing else (the module is not loaded here).
constexpr const char* kExternal = R"(provider:
  type: external
  module: /opt/provider.so
auth:
  ssh_user: ubuntu
)";

Result<ClusterConfig> Parse(const std::string& yaml) {
  return ParseClusterConfig(yaml, "src.yaml");
}

ClusterConfig MustParse(const std::string& yaml) {
  auto c = Parse(yaml);
  EXPECT_TRUE(c.ok()) << c.status().ToString();
  return c.ok() ? *c : ClusterConfig{};
}

// `yaml` is refused with InvalidArgument "src.yaml:<line>: ..." naming `key`.
::testing::AssertionResult RefusedAt(const std::string& yaml, int line, const std::string& key) {
  auto c = Parse(yaml);
  if (c.ok()) return ::testing::AssertionFailure() << "accepted";
  const std::string& m = c.status().message();
  if (c.status().code() != StatusCode::kInvalidArgument) {
    return ::testing::AssertionFailure() << "not InvalidArgument: " << c.status().ToString();
  }
  std::string prefix = "src.yaml:" + std::to_string(line) + ": ";
  if (m.rfind(prefix, 0) != 0) {
    return ::testing::AssertionFailure() << "does not start with '" << prefix << "': " << m;
  }
  if (m.find(key) == std::string::npos) {
    return ::testing::AssertionFailure() << "does not name `" << key << "`: " << m;
  }
  return ::testing::AssertionSuccess() << m;
}

TEST(ClusterConfigTest, MinimalLocalConfigGetsRaysDefaults) {
  ClusterConfig c = MustParse(std::string(kLocal) + R"(setup_commands: [echo common]
head_setup_commands: [echo head]
worker_setup_commands: [echo worker]
)");
  EXPECT_EQ(c.cluster_name, "default");
  EXPECT_EQ(c.provider_type, "local");
  EXPECT_EQ(c.head_ip, "10.0.0.1");
  EXPECT_EQ(c.worker_ips, (Strings{"10.0.0.2", "10.0.0.3"}));
  EXPECT_EQ(c.ssh_user, "ubuntu");
  EXPECT_EQ(c.ssh_private_key, "");
  // A local cluster is its hosts: as many workers as worker_ips, always.
  EXPECT_EQ(c.min_workers, 2);
  EXPECT_EQ(c.max_workers, 2);
  EXPECT_EQ(c.initial_workers, 0);
  EXPECT_DOUBLE_EQ(c.target_utilization_fraction, 0.8);
  EXPECT_DOUBLE_EQ(c.idle_timeout_minutes, 5);
  EXPECT_DOUBLE_EQ(c.upscaling_speed, 1);
  EXPECT_TRUE(c.ship_ray);
  EXPECT_TRUE(c.file_mounts.empty());
  EXPECT_TRUE(c.initialization_commands.empty());
  EXPECT_EQ(c.head_start_ray_commands,
            (Strings{"ray stop",
                     "ray start --head --port=6379 --node-ip-address=$RAY_HEAD_IP "
                     "--autoscaling-config=~/ray_bootstrap_config.yaml"}));
  EXPECT_EQ(c.worker_start_ray_commands,
            (Strings{"ray stop", "ray start --address=$RAY_HEAD_IP:6379"}));
  EXPECT_EQ(c.head_setup_commands, (Strings{"echo common", "echo head"}));
  EXPECT_EQ(c.worker_setup_commands, (Strings{"echo common", "echo worker"}));

  ASSERT_EQ(c.node_types.size(), 2u);
  EXPECT_EQ(c.head_node_type, "ray.head.default");
  EXPECT_EQ(c.HeadType().name, "ray.head.default");
  EXPECT_EQ(c.HeadType().max_workers, 0);
  ASSERT_EQ(c.WorkerTypes().size(), 1u);
  const NodeType& worker = *c.WorkerTypes()[0];
  EXPECT_EQ(worker.name, "ray.worker.default");
  EXPECT_EQ(worker.min_workers, 2);
  EXPECT_EQ(worker.max_workers, 2);
  EXPECT_TRUE(worker.resources.empty());
  EXPECT_EQ(c.SetupCommandsOf(worker), c.worker_setup_commands);
}

TEST(ClusterConfigTest, LegacyFormBecomesTwoNodeTypes) {
  ClusterConfig c = MustParse(std::string(kExternal) + R"(cluster_name: legacy
min_workers: 1
max_workers: 3
head_node: {InstanceType: m5.large}
worker_nodes: {InstanceType: m5.xlarge}
head_start_ray_commands: [my start]
)");
  EXPECT_EQ(c.cluster_name, "legacy");
  EXPECT_EQ(c.min_workers, 1);
  EXPECT_EQ(c.max_workers, 3);
  EXPECT_EQ(c.HeadType().node_config, nlohmann::json({{"InstanceType", "m5.large"}}));
  ASSERT_EQ(c.WorkerTypes().size(), 1u);
  EXPECT_EQ(c.WorkerTypes()[0]->node_config, nlohmann::json({{"InstanceType", "m5.xlarge"}}));
  EXPECT_EQ(c.WorkerTypes()[0]->min_workers, 1);
  EXPECT_EQ(c.WorkerTypes()[0]->max_workers, 3);
  EXPECT_EQ(c.head_start_ray_commands, Strings{"my start"});  // given: not defaulted
}

constexpr const char* kTyped = R"(cluster_name: typed
max_workers: 10
provider:
  type: external
  module: /opt/provider.so
auth:
  ssh_user: ubuntu
worker_setup_commands: [echo global]
available_node_types:
  head:
    node_config: {InstanceType: m5.large}
    resources: {CPU: 2}
  cpu:
    min_workers: 1
    max_workers: 4
    resources: {CPU: 8}
    worker_setup_commands: [echo cpu]
  gpu:
    resources: {CPU: 4, GPU: 1}
head_node_type: head
)";

TEST(ClusterConfigTest, AvailableNodeTypes) {
  ClusterConfig c = MustParse(kTyped);
  EXPECT_EQ(c.head_node_type, "head");
  EXPECT_EQ(c.node_types.size(), 3u);
  EXPECT_EQ(c.HeadType().node_config, nlohmann::json({{"InstanceType", "m5.large"}}));
  EXPECT_EQ(c.HeadType().resources, (std::map<std::string, double>{{"CPU", 2}}));
  EXPECT_EQ(c.HeadType().max_workers, 0);

  const NodeType* cpu = c.FindType("cpu");
  const NodeType* gpu = c.FindType("gpu");
  ASSERT_NE(cpu, nullptr);
  ASSERT_NE(gpu, nullptr);
  EXPECT_EQ(c.FindType("tpu"), nullptr);
  EXPECT_EQ(cpu->min_workers, 1);
  EXPECT_EQ(cpu->max_workers, 4);
  EXPECT_EQ(cpu->resources, (std::map<std::string, double>{{"CPU", 8}}));
  EXPECT_EQ(gpu->min_workers, 0);
  EXPECT_EQ(gpu->max_workers, 10);  // the global max_workers
  EXPECT_EQ(gpu->resources, (std::map<std::string, double>{{"CPU", 4}, {"GPU", 1}}));
  EXPECT_EQ(c.SetupCommandsOf(*cpu), Strings{"echo cpu"});     // its own
  EXPECT_EQ(c.SetupCommandsOf(*gpu), Strings{"echo global"});  // the global list
  EXPECT_EQ(c.min_workers, 1);                                 // the types' minimums together
  EXPECT_EQ(c.max_workers, 10);
}

TEST(ClusterConfigTest, WorkerTypesComeInNameOrder) {
  ClusterConfig c = MustParse(std::string(kExternal) + R"(available_node_types:
  zeta: {resources: {CPU: 1}}
  head: {}
  alpha: {resources: {CPU: 2}}
head_node_type: head
)");
  Strings names;
  for (const NodeType* t : c.WorkerTypes()) names.push_back(t->name);
  EXPECT_EQ(names, (Strings{"alpha", "zeta"}));
}

// ---- errors: the key, and the line it is on ----

TEST(ClusterConfigErrorsTest, UnknownTopLevelKey) {
  EXPECT_TRUE(RefusedAt(std::string(kLocal) + "max_wrokers: 2\n", 7, "max_wrokers"));
}

TEST(ClusterConfigErrorsTest, UnsupportedRayKeySaysSo) {
  auto c = Parse(std::string(kLocal) + "cluster_synced_files: []\n");
  EXPECT_TRUE(
      RefusedAt(std::string(kLocal) + "cluster_synced_files: []\n", 7, "cluster_synced_files"));
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.status().message().find("not supported"), std::string::npos) << c.status().message();
}

TEST(ClusterConfigErrorsTest, UnknownKeyInProvider) {
  EXPECT_TRUE(RefusedAt(R"(provider:
  type: local
  head_ip: 10.0.0.1
  worker_ips: [10.0.0.2]
  region: us-west-2
auth:
  ssh_user: ubuntu
)",
                        5, "region"));
}

TEST(ClusterConfigErrorsTest, UnknownKeyInAuth) {
  EXPECT_TRUE(RefusedAt(std::string(kLocal) + "  ssh_pasword: secret\n", 7, "ssh_pasword"));
}

TEST(ClusterConfigErrorsTest, WrongType) {
  EXPECT_TRUE(RefusedAt(std::string(kLocal) + "max_workers: two\n", 7, "max_workers"));
  EXPECT_TRUE(RefusedAt(std::string(kLocal) + "setup_commands: {a: b}\n", 7, "setup_commands"));
  EXPECT_TRUE(RefusedAt(std::string(kLocal) + "ship_ray: maybe\n", 7, "ship_ray"));
}

TEST(ClusterConfigErrorsTest, MissingProvider) {
  EXPECT_TRUE(RefusedAt("cluster_name: x\nauth:\n  ssh_user: u\n", 1, "provider"));
}

TEST(ClusterConfigErrorsTest, MissingProviderType) {
  EXPECT_TRUE(RefusedAt("cluster_name: x\nprovider: {head_ip: 10.0.0.1}\n", 2, "provider.type"));
}

TEST(ClusterConfigErrorsTest, UnsupportedProviderType) {
  EXPECT_TRUE(
      RefusedAt("cluster_name: x\nprovider:\n  type: aws\n  region: us-west-2\n", 3, "aws"));
}

TEST(ClusterConfigErrorsTest, LocalNeedsHeadIpAndSshUser) {
  EXPECT_TRUE(RefusedAt(R"(auth: {ssh_user: u}
provider: {type: local, worker_ips: [10.0.0.2]}
)",
                        2, "head_ip"));
  EXPECT_TRUE(RefusedAt(R"(provider: {type: local, head_ip: 10.0.0.1}
auth: {ssh_private_key: /k}
)",
                        2, "ssh_user"));
  EXPECT_TRUE(RefusedAt("provider: {type: local, head_ip: 10.0.0.1}\n", 1, "ssh_user"));
}

TEST(ClusterConfigErrorsTest, DockerWithAnImage) {
  EXPECT_TRUE(RefusedAt(std::string(kLocal) + "docker:\n  image: rayproject/ray\n", 8, "docker"));
  // An empty docker section, as Ray's examples have, is fine.
  EXPECT_TRUE(Parse(std::string(kLocal) + "docker:\n  image: \"\"\n  container_name: \"\"\n").ok());
}

TEST(ClusterConfigErrorsTest, AggressiveAutoscalingMode) {
  EXPECT_TRUE(
      RefusedAt(std::string(kLocal) + "autoscaling_mode: aggressive\n", 7, "autoscaling_mode"));
  EXPECT_TRUE(Parse(std::string(kLocal) + "autoscaling_mode: default\n").ok());
}

TEST(ClusterConfigErrorsTest, AvailableNodeTypesWithoutHeadNodeType) {
  EXPECT_TRUE(RefusedAt(std::string(kExternal) + "available_node_types: {head: {}}\n", 6,
                        "head_node_type"));
}

TEST(ClusterConfigErrorsTest, HeadNodeTypeNotAmongTheTypes) {
  EXPECT_TRUE(RefusedAt(std::string(kExternal) + R"(available_node_types:
  cpu: {resources: {CPU: 1}}
head_node_type: head
)",
                        8, "head"));
}

TEST(ClusterConfigErrorsTest, UnknownKeyInANodeType) {
  EXPECT_TRUE(RefusedAt(std::string(kExternal) + R"(available_node_types:
  head:
    resources: {CPU: 1}
    max_wokers: 2
head_node_type: head
)",
                        9, "max_wokers"));
}

TEST(ClusterConfigErrorsTest, LegacyKeysMixedWithNodeTypes) {
  EXPECT_TRUE(RefusedAt(std::string(kExternal) + R"(available_node_types:
  head: {}
head_node_type: head
worker_nodes: {InstanceType: m5.large}
)",
                        9, "worker_nodes"));
}

TEST(ClusterConfigErrorsTest, MinWorkersAboveMaxWorkers) {
  EXPECT_TRUE(
      RefusedAt(std::string(kExternal) + "min_workers: 3\nmax_workers: 2\n", 6, "min_workers"));
}

TEST(ClusterConfigErrorsTest, LocalWorkersAboveItsHosts) {
  EXPECT_TRUE(RefusedAt(std::string(kLocal) + "max_workers: 3\n", 7, "max_workers"));
  EXPECT_TRUE(
      RefusedAt(std::string(kLocal) + "min_workers: 3\nmax_workers: 3\n", 8, "max_workers"));
}

TEST(ClusterConfigErrorsTest, FakeMultinodeWorkerWithoutCpu) {
  EXPECT_TRUE(RefusedAt(R"(provider:
  type: fake_multinode
available_node_types:
  head: {resources: {CPU: 1}}
  gpu_only:
    resources: {GPU: 1}
head_node_type: head
)",
                        5, "gpu_only"));
}

TEST(ClusterConfigErrorsTest, FileMountThatDoesNotExist) {
  EXPECT_TRUE(RefusedAt(std::string(kLocal) + "file_mounts:\n  ~/data: /no/such/dir/anywhere\n", 8,
                        "/no/such/dir/anywhere"));
}

TEST(ClusterConfigErrorsTest, FileMountWithAnEmptyLocalPath) {
  EXPECT_TRUE(RefusedAt(std::string(kLocal) + "file_mounts:\n  ~/data: \"\"\n", 8, "~/data"));
}

TEST(ClusterConfigErrorsTest, NotValidYaml) {
  EXPECT_TRUE(RefusedAt("cluster_name: x\nprovider:\n  type: local\n  head_ip: a: b\nauth: {}\n", 4,
                        "YAML"));
  EXPECT_TRUE(RefusedAt("cluster_name: x\nsetup_commands:\n  - a\n - b\n", 4, "YAML"));
}

TEST(ClusterConfigErrorsTest, AListIsNotAConfig) {
  EXPECT_TRUE(RefusedAt("- provider\n- auth\n", 1, "mapping"));
}

TEST(ClusterConfigErrorsTest, BadClusterName) {
  auto c = Parse(std::string(kLocal) + "cluster_name: my cluster\n");
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.status().message().find("cluster_name"), std::string::npos) << c.status().message();
}

// ---- files ----

TEST(ClusterConfigFileTest, LoadNamesTheFileInErrors) {
  test_util::TempDir dir;
  std::string path = dir.path() + "/cluster.yaml";
  ASSERT_TRUE(WriteFile(path, std::string(kLocal) + "max_workers: two\n").ok());
  auto c = LoadClusterConfig(path);
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(c.status().message().rfind(path + ":7: ", 0), 0u) << c.status().message();

  auto missing = LoadClusterConfig(dir.path() + "/nope.yaml");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(missing.status().message().find(dir.path() + "/nope.yaml"), std::string::npos);
}

TEST(ClusterConfigFileTest, FileMountsAndKeyBecomeAbsolute) {
  test_util::TempDir dir;
  std::filesystem::create_directories(dir.path() + "/data");
  ASSERT_TRUE(WriteFile(dir.path() + "/key.pem", "k", 0600).ok());
  std::string path = dir.path() + "/cluster.yaml";
  ASSERT_TRUE(WriteFile(path, std::string(kLocal) + "  ssh_private_key: " + dir.path() +
                                  "/key.pem\nfile_mounts:\n  ~/data: " + dir.path() + "/data\n")
                  .ok());
  auto c = LoadClusterConfig(path);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->ssh_private_key, dir.path() + "/key.pem");
  EXPECT_EQ(c->file_mounts, (std::map<std::string, std::string>{{"~/data", dir.path() + "/data"}}));

  ASSERT_TRUE(
      WriteFile(path, std::string(kLocal) + "  ssh_private_key: " + dir.path() + "/missing.pem\n")
          .ok());
  auto no_key = LoadClusterConfig(path);
  ASSERT_FALSE(no_key.ok());
  EXPECT_NE(no_key.status().message().find("ssh_private_key"), std::string::npos);
  EXPECT_NE(no_key.status().message().find("missing.pem"), std::string::npos);
}

// ---- overrides, hashes, the JSON form ----

TEST(ClusterConfigOverridesTest, NameAndWorkerCounts) {
  ClusterConfig c = MustParse(std::string(kExternal) + "max_workers: 5\n");
  ASSERT_TRUE(ApplyOverrides(c, "renamed", 1, 3).ok());
  EXPECT_EQ(c.cluster_name, "renamed");
  EXPECT_EQ(c.min_workers, 1);
  EXPECT_EQ(c.max_workers, 3);
  // The legacy form's counts are the default worker type's.
  ASSERT_EQ(c.WorkerTypes().size(), 1u);
  EXPECT_EQ(c.WorkerTypes()[0]->min_workers, 1);
  EXPECT_EQ(c.WorkerTypes()[0]->max_workers, 3);
  EXPECT_EQ(c.json["cluster_name"], "renamed");  // what the head's autoscaler reads

  ASSERT_TRUE(ApplyOverrides(c, "", std::nullopt, std::nullopt).ok());
  EXPECT_EQ(c.cluster_name, "renamed");
  EXPECT_EQ(c.max_workers, 3);
}

TEST(ClusterConfigOverridesTest, LocalMinWorkersLowered) {
  ClusterConfig c = MustParse(kLocal);
  ASSERT_TRUE(ApplyOverrides(c, "", 0, std::nullopt).ok());
  EXPECT_EQ(c.min_workers, 0);
  EXPECT_EQ(c.WorkerTypes()[0]->min_workers, 0);
  EXPECT_EQ(c.WorkerTypes()[0]->max_workers, 2);
}

TEST(ClusterConfigOverridesTest, MinAboveMaxIsRefused) {
  ClusterConfig c = MustParse(std::string(kExternal) + "max_workers: 2\n");
  Status st = ApplyOverrides(c, "", 3, std::nullopt);
  EXPECT_EQ(st.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(st.message().find("min_workers"), std::string::npos) << st.message();
  EXPECT_EQ(c.min_workers, 0);  // unchanged
  EXPECT_EQ(c.max_workers, 2);
  EXPECT_EQ(ApplyOverrides(c, "", std::nullopt, -1).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(ApplyOverrides(c, "no spaces", std::nullopt, std::nullopt).code(),
            StatusCode::kInvalidArgument);
}

TEST(ClusterConfigOverridesTest, LocalMaxWorkersAboveItsHostsIsRefused) {
  ClusterConfig c = MustParse(kLocal);  // two worker_ips
  Status st = ApplyOverrides(c, "", std::nullopt, 5);
  EXPECT_EQ(st.code(), StatusCode::kInvalidArgument) << st.ToString();
  EXPECT_EQ(c.max_workers, 2);
}

TEST(ClusterConfigHashTest, LaunchHashFollowsNodeConfigOnly) {
  std::string base = std::string(kExternal) + "worker_nodes: {InstanceType: m5.large}\n";
  ClusterConfig a = MustParse(base);
  ClusterConfig same = MustParse(base);
  ClusterConfig other_setup = MustParse(base + "setup_commands: [pip install torch]\n");
  ClusterConfig other_node =
      MustParse(std::string(kExternal) + "worker_nodes: {InstanceType: m5.xlarge}\n");
  auto worker_hash = [](const ClusterConfig& c) { return LaunchHash(c, *c.WorkerTypes()[0]); };
  EXPECT_FALSE(worker_hash(a).empty());
  EXPECT_EQ(worker_hash(a), worker_hash(same));
  EXPECT_EQ(worker_hash(a), worker_hash(other_setup));
  EXPECT_NE(worker_hash(a), worker_hash(other_node));
  EXPECT_EQ(LaunchHash(a, a.HeadType()), LaunchHash(other_node, other_node.HeadType()));
  EXPECT_NE(LaunchHash(a, a.HeadType()), worker_hash(a));
}

TEST(ClusterConfigJsonTest, RoundTrips) {
  test_util::TempDir dir;
  std::filesystem::create_directories(dir.path() + "/data");
  ClusterConfig c = MustParse(std::string(kTyped) + "file_mounts: {~/data: " + dir.path() +
                              "/data}\ninitialization_commands: [echo init]\nship_ray: false\n");
  auto back = ClusterConfigFromJson(nlohmann::json::parse(c.json.dump()));
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  const ClusterConfig& b = *back;
  EXPECT_EQ(b.json, c.json);
  EXPECT_EQ(b.cluster_name, "typed");
  EXPECT_EQ(b.min_workers, c.min_workers);
  EXPECT_EQ(b.max_workers, c.max_workers);
  EXPECT_EQ(b.initial_workers, c.initial_workers);
  EXPECT_DOUBLE_EQ(b.target_utilization_fraction, c.target_utilization_fraction);
  EXPECT_DOUBLE_EQ(b.idle_timeout_minutes, c.idle_timeout_minutes);
  EXPECT_DOUBLE_EQ(b.upscaling_speed, c.upscaling_speed);
  EXPECT_EQ(b.provider_type, "external");
  EXPECT_EQ(b.provider, c.provider);
  EXPECT_EQ(b.ssh_user, "ubuntu");
  EXPECT_EQ(b.head_node_type, "head");
  ASSERT_EQ(b.node_types.size(), c.node_types.size());
  for (size_t i = 0; i < b.node_types.size(); ++i) {
    const NodeType& x = b.node_types[i];
    const NodeType& y = c.node_types[i];
    EXPECT_EQ(x.name, y.name);
    EXPECT_EQ(x.node_config, y.node_config);
    EXPECT_EQ(x.resources, y.resources);
    EXPECT_EQ(x.min_workers, y.min_workers);
    EXPECT_EQ(x.max_workers, y.max_workers);
    EXPECT_EQ(x.worker_setup_commands, y.worker_setup_commands);
    EXPECT_EQ(x.has_worker_setup_commands, y.has_worker_setup_commands);
  }
  EXPECT_EQ(b.file_mounts, c.file_mounts);
  EXPECT_EQ(b.initialization_commands, Strings{"echo init"});
  EXPECT_EQ(b.head_setup_commands, c.head_setup_commands);
  EXPECT_EQ(b.worker_setup_commands, c.worker_setup_commands);
  EXPECT_EQ(b.head_start_ray_commands, c.head_start_ray_commands);
  EXPECT_EQ(b.worker_start_ray_commands, c.worker_start_ray_commands);
  EXPECT_FALSE(b.ship_ray);
  EXPECT_EQ(LaunchHash(b, *b.FindType("cpu")), LaunchHash(c, *c.FindType("cpu")));
}

TEST(ClusterConfigJsonTest, MalformedJsonIsRefused) {
  auto c = ClusterConfigFromJson(nlohmann::json::array({1, 2}));
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().code(), StatusCode::kInvalidArgument);
}

TEST(ClusterConfigJsonTest, AMissingKeyIsRefusedNamingIt) {
  // The head's autoscaler reads the config back as JSON; a hand edit may drop a key.
  ClusterConfig c = MustParse(kTyped);
  for (const char* key : {"upscaling_speed", "max_workers", "available_node_types", "auth"}) {
    nlohmann::json j = c.json;
    j.erase(key);
    auto back = ClusterConfigFromJson(j);
    ASSERT_FALSE(back.ok()) << key;
    EXPECT_EQ(back.status().code(), StatusCode::kInvalidArgument);
    EXPECT_NE(back.status().message().find(key), std::string::npos) << back.status().message();
  }
}

}  // namespace
}  // namespace ray::cluster
