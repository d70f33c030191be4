// Two nodes as two hosts: network namespaces joined by a veth pair (10.77.0.1/24 and
// 10.77.0.2/24), the head in one, a worker node in the other, the job submitted in
// the head's. Nothing else on the network is touched: the veth pair is created
// inside the namespaces, and the test deletes them. Needs root (CAP_NET_ADMIN) and
// `ip` (iproute2); without them every test is skipped, saying why.

#include <gtest/gtest.h>
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "tests/integration/ray_harness.h"

namespace ray::testing {
namespace {

using nlohmann::json;

constexpr const char* kHeadIp = "10.77.0.1";
constexpr const char* kWorkerIp = "10.77.0.2";
constexpr const char* kPort = "6390";
class NetnsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    // Names unique to this process; interface names stay within 15 characters.
    std::string tag = std::to_string(::getpid());
    head_ns_ = "rayit-" + tag + "-a";
    worker_ns_ = "rayit-" + tag + "-b";
    head_if_ = "rv" + tag + "a";
    worker_if_ = "rv" + tag + "b";
    if (::geteuid() != 0) GTEST_SKIP() << "network namespaces need root (CAP_NET_ADMIN)";
    if (RunCommand({"ip", "-V"}, dir_.path()).exit_code != 0) {
      GTEST_SKIP() << "`ip` (iproute2) is not installed; scripts/setup.sh installs it";
    }
    auto probe = RunCommand({"ip", "netns", "add", head_ns_}, dir_.path());
    if (probe.exit_code != 0) {
      GTEST_SKIP() << "cannot create a network namespace here: " << probe.all();
    }
    created_ = true;
    for (const auto& cmd : std::vector<std::vector<std::string>>{
             {"ip", "netns", "add", worker_ns_},
             {"ip", "-n", head_ns_, "link", "add", head_if_, "type", "veth", "peer", "name",
              worker_if_, "netns", worker_ns_},
             {"ip", "-n", head_ns_, "addr", "add", std::string(kHeadIp) + "/24", "dev", head_if_},
             {"ip", "-n", worker_ns_, "addr", "add", std::string(kWorkerIp) + "/24", "dev",
              worker_if_},
             {"ip", "-n", head_ns_, "link", "set", "lo", "up"},
             {"ip", "-n", worker_ns_, "link", "set", "lo", "up"},
             {"ip", "-n", head_ns_, "link", "set", head_if_, "up"},
             {"ip", "-n", worker_ns_, "link", "set", worker_if_, "up"}}) {
      auto r = RunCommand(cmd, dir_.path());
      ASSERT_EQ(r.exit_code, 0) << cmd[3] << ": " << r.all();
    }
    head_ = dir_.path() + "/head";
    worker_ = dir_.path() + "/worker";
  }

  void TearDown() override {
    if (!created_) return;
    if (started_worker_) InNs(worker_ns_, {"stop", "--temp-dir", worker_});
    if (started_head_) InNs(head_ns_, {"stop", "--temp-dir", head_});
    EXPECT_TRUE(AwaitNoProcessesMentioning(dir_.path()).empty());
    // Deleting a namespace deletes the veth end inside it, and so the pair.
    EXPECT_EQ(RunCommand({"ip", "netns", "del", worker_ns_}, dir_.path()).exit_code, 0);
    EXPECT_EQ(RunCommand({"ip", "netns", "del", head_ns_}, dir_.path()).exit_code, 0);
    auto left = RunCommand({"ip", "netns", "list"}, dir_.path());
    EXPECT_EQ(left.out.find("rayit-" + std::to_string(::getpid())), std::string::npos) << left.out;
  }

  // `ray <args>` inside namespace `ns`.
  RunResult InNs(const std::string& ns, const std::vector<std::string>& args, int timeout_s = 60) {
    std::vector<std::string> argv{"ip", "netns", "exec", ns, RAY_BINARY};
    argv.insert(argv.end(), args.begin(), args.end());
    return RunCommand(argv, dir_.path(), timeout_s);
  }

  // Starts the head in one namespace and a worker node with {"Special": 1} in the other.
  void StartCluster() {
    auto head = InNs(head_ns_, {"start", "--head", "--node-ip-address", kHeadIp, "--port", kPort,
                                "--num-cpus", "1", "--temp-dir", head_});
    started_head_ = head.exit_code == 0;
    ASSERT_EQ(head.exit_code, 0) << head.all();
    token_ = ReadText(head_ + "/session_latest/token");
    auto join = InNs(worker_ns_, {"start", "--address", address(), "--token", token_,
                                  "--node-ip-address", kWorkerIp, "--num-cpus", "2",
                                  "--resources", "{\"Special\": 1}", "--temp-dir", worker_});
    started_worker_ = join.exit_code == 0;
    ASSERT_EQ(join.exit_code, 0) << join.all();
  }
  std::string address() const { return std::string(kHeadIp) + ":" + kPort; }
  json HeadJson(const std::vector<std::string>& args) {
    auto r = InNs(head_ns_, args);
    EXPECT_EQ(r.exit_code, 0) << r.all();
    return r.exit_code == 0 ? json::parse(r.out) : json();
  }

  TempDir dir_;
  std::string head_ns_, worker_ns_, head_if_, worker_if_, head_, worker_, token_;
  bool created_ = false, started_head_ = false, started_worker_ = false;
};

TEST_F(NetnsTest, EachHostHasOnlyItsOwnAddressAndTheRootNamespaceNone) {
  auto head = RunCommand({"ip", "-n", head_ns_, "-o", "addr"}, dir_.path());
  auto worker = RunCommand({"ip", "-n", worker_ns_, "-o", "addr"}, dir_.path());
  auto root = RunCommand({"ip", "-o", "addr"}, dir_.path());
  ASSERT_EQ(head.exit_code, 0) << head.all();
  EXPECT_NE(head.out.find(kHeadIp), std::string::npos) << head.out;
  EXPECT_EQ(head.out.find(kWorkerIp), std::string::npos) << head.out;
  EXPECT_NE(worker.out.find(kWorkerIp), std::string::npos) << worker.out;
  EXPECT_EQ(worker.out.find(kHeadIp), std::string::npos) << worker.out;
  EXPECT_EQ(root.out.find("10.77.0."), std::string::npos) << root.out;
  EXPECT_EQ(root.out.find(head_if_), std::string::npos) << root.out;
}

TEST_F(NetnsTest, AJobInTheHeadsNamespaceRunsWorkOnTheOtherHost) {
  StartCluster();
  json status = HeadJson({"status", "--json", "--temp-dir", head_});
  ASSERT_EQ(status["nodes"].size(), 2u) << status.dump();
  EXPECT_EQ(status["address"], address());
  std::string head_id, worker_id;
  for (const auto& n : status["nodes"]) {
    EXPECT_EQ(n["state"], "ALIVE");
    (n["address"] == kHeadIp ? head_id : worker_id) = n["node_id"];
  }
  ASSERT_FALSE(head_id.empty());
  ASSERT_FALSE(worker_id.empty()) << "no node at " << kWorkerIp << ": " << status.dump();

  auto placement = InNs(head_ns_, {"submit", "--address", address(), "--temp-dir", head_,
                                   IT_MULTINODE_PLUGIN, "placement"},
                        120);
  ASSERT_EQ(placement.exit_code, 0) << placement.all();
  EXPECT_EQ(KeyValue(placement.out, "driver_node"), head_id);
  EXPECT_EQ(KeyValue(placement.out, "special_node"), worker_id);

  // 200 MiB made on the worker host read by the driver, 50 MiB the other way.
  auto objects = InNs(head_ns_, {"submit", "--address", address(), "--temp-dir", head_,
                                 IT_MULTINODE_PLUGIN, "objects"},
                      120);
  ASSERT_EQ(objects.exit_code, 0) << objects.all();
  EXPECT_EQ(KeyValue(objects.out, "remote_to_driver"), "intact");
  EXPECT_EQ(KeyValue(objects.out, "driver_to_remote"), "intact");

  // The state API sees both hosts: the Special task ran on the worker's.
  json nodes = HeadJson({"list", "nodes", "--json", "--temp-dir", head_});
  ASSERT_EQ(nodes.size(), 2u);
  bool ran_there = false;
  for (int i = 0; i < 100 && !ran_there; ++i) {
    for (const auto& t : HeadJson({"list", "tasks", "--json", "--temp-dir", head_})) {
      ran_there |= t["name"] == "WhereAmI" && t["node_id"] == worker_id && t["state"] == "FINISHED";
    }
    if (!ran_there) ::usleep(100 * 1000);
  }
  EXPECT_TRUE(ran_there) << "no FINISHED WhereAmI task on node " << worker_id;
}

TEST_F(NetnsTest, BetweenHostsAWrongTokenIsNotAnsweredAndTheErrorSaysWhy) {
  StartCluster();
  // Sockets between hosts are encrypted with keys from the token: a node with another
  // token cannot complete the handshake, so it gets no answer (not a refusal).
  auto join = InNs(worker_ns_, {"start", "--address", address(), "--token", "not-the-token",
                                "--node-ip-address", kWorkerIp, "--num-cpus", "1", "--temp-dir",
                                dir_.path() + "/intruder"});
  EXPECT_NE(join.exit_code, 0) << join.all();
  EXPECT_NE(join.all().find("encrypted with keys from the cluster token"), std::string::npos)
      << join.all();
  json status = HeadJson({"status", "--json", "--temp-dir", head_});
  EXPECT_EQ(status["nodes"].size(), 2u) << "the intruder did not join: " << status.dump();
  InNs(worker_ns_, {"stop", "--temp-dir", dir_.path() + "/intruder"});
}

}  // namespace
}  // namespace ray::testing
