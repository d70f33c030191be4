// `ray up` against real hosts: three network namespaces, each with its own address,
// /tmp, /dev/shm and home, and its own sshd (fake_hosts.h). From the root namespace,
// as a user would: up (head over ssh; the head's autoscaler brings the workers up over
// ssh), exec, submit, rsync, get-head-ip / get-worker-ips, a second up, down; and
// the failures a user meets: a failing setup command, an unreachable host.
// Needs root; skipped, saying why, without it.

#include <gtest/gtest.h>
#include <httplib.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <memory>
#include <set>
#include <sstream>
#include <thread>

#include <nlohmann/json.hpp>

#include "tests/launcher/fake_hosts.h"

namespace ray::testing {
namespace {

namespace fs = std::filesystem;

bool Contains(const std::string& text, const std::string& needle) {
  return text.find(needle) != std::string::npos;
}

class RayUpTest : public ::testing::Test {
 protected:
  void SetUp() override {
    hosts_ = std::make_unique<FakeHosts>(3);
    if (!hosts_->skip_reason().empty()) GTEST_SKIP() << hosts_->skip_reason();
    ASSERT_TRUE(hosts_->error().empty()) << hosts_->error();
    home_ = dir_.path() + "/home";
    fs::create_directories(home_);
  }

  void TearDown() override {
    if (hosts_ && hosts_->skip_reason().empty() && hosts_->error().empty() && up_) {
      Ray({"down", "-y", config_});  // whatever the test left
    }
    hosts_.reset();
  }

  // The YAML of a cluster on the hosts: head on host 0, workers on 1 and 2.
  std::string WriteConfig(const std::string& extra, const std::string& head_ip = "") {
    std::ostringstream y;
    y << "cluster_name: up" << ::getpid() << "\n"
      << "provider:\n  type: local\n  head_ip: " << (head_ip.empty() ? hosts_->Ip(0) : head_ip)
      << "\n  worker_ips: [" << hosts_->Ip(1) << ", " << hosts_->Ip(2) << "]\n"
      << "auth:\n  ssh_user: root\n  ssh_private_key: " << hosts_->PrivateKey() << "\n"
      << "head_start_ray_commands:\n"
      << "  - ray stop\n"
      << "  - AUTOSCALER_UPDATE_INTERVAL_S=1 ray start --head --port=6379 "
         "--node-ip-address=$RAY_HEAD_IP --autoscaling-config=~/ray_bootstrap_config.yaml\n"
      << extra;
    config_ = dir_.path() + "/cluster.yaml";
    std::ofstream(config_) << y.str();
    return config_;
  }

  RunResult Ray(const std::vector<std::string>& args, int timeout_s = 120,
                const std::string& env = "") {
    std::vector<std::string> argv = {"env", "HOME=" + home_, "AUTOSCALER_NODE_START_WAIT_S=20"};
    if (!env.empty()) argv.push_back(env);
    argv.push_back(RAY_BINARY);
    argv.insert(argv.end(), args.begin(), args.end());
    return RunCommand(argv, dir_.path(), timeout_s);
  }

  // Nodes ALIVE in the cluster, as `ray status` on the head says.
  int AliveNodes() {
    auto r = Ray({"exec", config_, "ray status --json"}, 30);
    if (r.exit_code != 0) return -1;
    try {
      auto j = nlohmann::json::parse(r.out.substr(r.out.find('{')));
      int alive = 0;
      for (const auto& n : j["nodes"]) alive += n["state"] == "ALIVE";
      return alive;
    } catch (const std::exception&) {
      return -1;
    }
  }

  // Processes of ray (daemons, workers) on host i.
  std::string RayProcessesOn(int i) {
    return hosts_->ShellOn(i, "ps -eo args | grep -E '^[^ ]*ray _' | grep -v grep || true").out;
  }

  TempDir dir_;
  std::unique_ptr<FakeHosts> hosts_;
  std::string home_, config_;
  bool up_ = false;
};

TEST_F(RayUpTest, UpBringsEveryHostInThenExecSubmitRsyncAndDownLeaveNothing) {
  std::string data = dir_.path() + "/data";
  fs::create_directories(data);
  std::ofstream(data + "/f.txt") << "mounted-contents\n";
  // (The workers also hold "Worker", which pins work to them.)
  WriteConfig("file_mounts:\n  ~/data: " + data +
              "\nsetup_commands:\n  - echo setup-ran >> ~/setup.log\n"
              "worker_start_ray_commands:\n  - ray stop\n"
              "  - ray start --address=$RAY_HEAD_IP:6379 --resources='{\"Worker\":1}'\n");
  auto start = std::chrono::steady_clock::now();
  auto seconds = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  auto up = Ray({"up", "-y", config_}, 240);
  double head_up = seconds();
  up_ = true;
  ASSERT_EQ(up.exit_code, 0) << up.all();
  for (const char* step : {"[1/6] Waiting for SSH", "[2/6] Shipping ray", "[3/6] Processing file mounts",
                           "[5/6] Running setup commands", "[6/6] Starting ray",
                           "Head node up to date, IP address is: "}) {
    EXPECT_TRUE(Contains(up.out, step)) << step << "\n" << up.out;
  }
  std::string token = ReadText(home_ + "/.ray/clusters/up" + std::to_string(::getpid()) + ".token");
  ASSERT_EQ(token.size(), 32u);
  EXPECT_FALSE(Contains(up.all(), token)) << "the token was printed";

  // The head's autoscaler sets the two workers up over ssh (min_workers = 2).
  int alive = 0;
  for (int i = 0; i < 120 && alive != 3; ++i) {
    alive = AliveNodes();
    if (alive != 3) std::this_thread::sleep_for(std::chrono::seconds(1));
  }
  ASSERT_EQ(alive, 3) << "monitor log:\n"
                      << Ray({"exec", config_, "tail -n 60 /tmp/ray/session_latest/logs/monitor.err"}).all();
  std::printf("[ ray up ] head up in %.1f s; head and 2 workers alive after %.1f s\n", head_up,
              seconds());

  auto head_ip = Ray({"get-head-ip", config_});
  EXPECT_EQ(head_ip.out, hosts_->Ip(0) + "\n");
  auto worker_ips = Ray({"get-worker-ips", config_});
  ASSERT_EQ(worker_ips.exit_code, 0) << worker_ips.all();
  EXPECT_TRUE(Contains(worker_ips.out, hosts_->Ip(1)) && Contains(worker_ips.out, hosts_->Ip(2)))
      << worker_ips.out;

  // The mounts and the setup reached every host; ray is on the commands' PATH.
  for (int i = 0; i < 3; ++i) {
    auto r = hosts_->Ssh(i, "cat ~/data/f.txt ~/setup.log; ls ~/.ray/runtime/bin");
    EXPECT_TRUE(Contains(r.out, "mounted-contents") && Contains(r.out, "setup-ran") &&
                Contains(r.out, "ray"))
        << "host " << i << ": " << r.all();
    auto version = hosts_->Ssh(i, "ray --version");  // the user's own ssh command
    EXPECT_TRUE(Contains(version.out, "ray ")) << "host " << i << ": " << version.all();
    // The token in halves, so that this script's own command line does not hold it.
    std::string find = "A=" + token.substr(0, 16) + "; B=" + token.substr(16) +
                       "; ps -eo args | grep \"$A$B\" | grep -v '^grep' | wc -l";
    EXPECT_EQ(hosts_->ShellOn(i, find).out, "0\n") << "the token is on a command line on host " << i;
  }

  auto code = Ray({"exec", config_, "echo out-of-$(hostname); exit 3"});
  EXPECT_EQ(code.exit_code, 3) << code.all();
  EXPECT_TRUE(Contains(code.out, "out-of-" + hosts_->Namespace(0))) << code.all();

  auto job = Ray({"submit", config_, LAUNCHER_PLUGIN, "spread", "6", "1"}, 120);
  ASSERT_EQ(job.exit_code, 0) << job.all();
  EXPECT_TRUE(Contains(job.out, "nodes=2") || Contains(job.out, "nodes=3")) << job.out;

  // Tasks on another host (its own /dev/shm) take a blob put on the head and make one
  // the head reads.
  auto across = Ray({"submit", config_, LAUNCHER_PLUGIN, "across_hosts"}, 120);
  ASSERT_EQ(across.exit_code, 0) << across.all();
  EXPECT_TRUE(Contains(across.out, "across_hosts=ok")) << across.all();
  EXPECT_NE(KeyValue(across.out, "worker_node"), "") << across.out;
  EXPECT_NE(KeyValue(across.out, "worker_node"), KeyValue(across.out, "driver_node")) << across.out;

  std::ofstream(dir_.path() + "/up.txt") << "uploaded\n";
  ASSERT_EQ(Ray({"rsync-up", config_, dir_.path() + "/up.txt", "~/up.txt"}).exit_code, 0);
  auto down_copy = Ray({"rsync_down", config_, "~/up.txt", dir_.path() + "/back.txt"});
  ASSERT_EQ(down_copy.exit_code, 0) << down_copy.all();
  EXPECT_EQ(ReadText(dir_.path() + "/back.txt"), "uploaded\n");

  // Again: nothing changed, so the setup is skipped and ray restarted.
  auto again = Ray({"up", "-y", config_}, 240);
  ASSERT_EQ(again.exit_code, 0) << again.all();
  EXPECT_TRUE(Contains(again.out, "Configuration already up to date")) << again.out;
  EXPECT_TRUE(Contains(again.out, "[6/6] Starting ray")) << again.out;

  auto down = Ray({"down", "-y", config_}, 180);
  EXPECT_EQ(down.exit_code, 0) << down.all();
  up_ = false;
  for (int i = 0; i < 3; ++i) {
    std::string left;
    for (int t = 0; t < 50; ++t) {
      left = RayProcessesOn(i);
      if (left.empty()) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    EXPECT_EQ(left, "") << "ray still runs on host " << i;
  }
}

TEST_F(RayUpTest, AnExternalProviderPluginMakesTheNodesOnTheHeadToo) {
  // The example plugin hands out the hosts of its list; the head's autoscaler loads
  // the copy `ray up` ships to it.
  std::ostringstream y;
  y << "cluster_name: ext" << ::getpid() << "\nmax_workers: 2\n"
    << "provider:\n  type: external\n  module: " << STATIC_HOSTS_PROVIDER << "\n"
    << "  hosts: [" << hosts_->Ip(0) << ", " << hosts_->Ip(1) << ", " << hosts_->Ip(2) << "]\n"
    << "auth:\n  ssh_user: root\n  ssh_private_key: " << hosts_->PrivateKey() << "\n"
    << "available_node_types:\n  head: {resources: {}}\n"
    << "  worker: {resources: {}, min_workers: 2, max_workers: 2}\n"
    << "head_node_type: head\n"
    << "head_start_ray_commands:\n  - ray stop\n"
    << "  - AUTOSCALER_UPDATE_INTERVAL_S=1 ray start --head --port=6379 "
       "--node-ip-address=$RAY_HEAD_IP --autoscaling-config=~/ray_bootstrap_config.yaml\n";
  config_ = dir_.path() + "/external.yaml";
  std::ofstream(config_) << y.str();
  auto up = Ray({"up", "-y", config_}, 240);
  up_ = true;
  ASSERT_EQ(up.exit_code, 0) << up.all();
  int alive = 0;
  for (int i = 0; i < 120 && alive != 3; ++i) {
    alive = AliveNodes();
    if (alive != 3) std::this_thread::sleep_for(std::chrono::seconds(1));
  }
  EXPECT_EQ(alive, 3) << Ray({"exec", config_, "tail -n 40 /tmp/ray/session_latest/logs/monitor.err"}).all();
  auto down = Ray({"down", "-y", config_}, 180);
  EXPECT_EQ(down.exit_code, 0) << down.all();
  up_ = false;
  for (int i = 0; i < 3; ++i) EXPECT_EQ(RayProcessesOn(i), "") << "ray still runs on host " << i;
}

// A port of this machine's loopback that nothing listens on now.
int FreeLoopbackPort() {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof(addr);
  ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr));
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  ::close(fd);
  return ntohs(addr.sin_port);
}

// `ray dashboard`: the head's dashboard (on the head's own loopback) answers on a
// local port through an ssh forward, with the cluster's token; Ctrl-C ends it. Its
// logs page reaches the worker host's logs through that host's raylet (encrypted
// between hosts).
TEST_F(RayUpTest, DashboardForwardsTheHeadsDashboardToALocalPort) {
  WriteConfig("min_workers: 1\nmax_workers: 1\n");
  auto up = Ray({"up", "-y", config_}, 240);
  up_ = true;
  ASSERT_EQ(up.exit_code, 0) << up.all();
  std::string token = ReadText(home_ + "/.ray/clusters/up" + std::to_string(::getpid()) + ".token");
  int port = FreeLoopbackPort();
  ::setenv("HOME", home_.c_str(), 1);  // where `ray up` kept the token
  int pid = SpawnRay({"dashboard", config_, "-p", std::to_string(port)}, dir_.path());
  std::string link = "http://127.0.0.1:" + std::to_string(port) + "/?token=" + token;
  for (int i = 0; i < 200 && !Contains(SpawnedOutput(dir_.path(), ".out"), link); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  ASSERT_TRUE(Contains(SpawnedOutput(dir_.path(), ".out"), link))
      << SpawnedOutput(dir_.path(), ".out") << SpawnedOutput(dir_.path(), ".err");
  httplib::Client c("127.0.0.1", port);
  c.set_read_timeout(10);
  auto refused = c.Get("/api/nodes");
  ASSERT_TRUE(refused);
  EXPECT_EQ(refused->status, 401);
  auto nodes = c.Get("/api/nodes", {{"Authorization", "Bearer " + token}});
  ASSERT_TRUE(nodes);
  ASSERT_EQ(nodes->status, 200) << nodes->body;
  auto j = nlohmann::json::parse(nodes->body);
  ASSERT_GE(j["nodes"].size(), 1u) << nodes->body;
  // The worker's logs, once the autoscaler has it up.
  std::string worker_node, last;
  for (int i = 0; i < 600 && worker_node.empty(); ++i) {
    auto logs = c.Get("/api/logs", {{"Authorization", "Bearer " + token}});
    if (logs) last = logs->body;
    if (logs && logs->status == 200) {
      auto listed = nlohmann::json::parse(logs->body);
      for (const auto& l : listed["logs"]) {
        if (l["node_address"] != hosts_->Ip(0) && l["name"] == "raylet.err") worker_node = l["node_id"];
      }
    }
    if (worker_node.empty()) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  ASSERT_FALSE(worker_node.empty()) << "no worker host's logs through the dashboard: " << last
                                     << c.Get("/api/nodes", {{"Authorization", "Bearer " + token}})->body;
  auto raylet = c.Get("/api/logs?node=" + worker_node + "&name=raylet.err&search=serving",
                      {{"Authorization", "Bearer " + token}});
  ASSERT_TRUE(raylet);
  ASSERT_EQ(raylet->status, 200) << raylet->body;
  EXPECT_EQ(nlohmann::json::parse(raylet->body)["matched"], 1) << raylet->body;
  // A second forward to the same local port fails, saying so.
  auto taken = Ray({"dashboard", config_, "-p", std::to_string(port)}, 60, "HOME=" + home_);
  EXPECT_NE(taken.exit_code, 0);
  EXPECT_TRUE(Contains(taken.err, "127.0.0.1:" + std::to_string(port) + " is taken here"))
      << taken.all();
  ::kill(pid, SIGINT);
  int status = 0;
  for (int i = 0; i < 100 && ::waitpid(pid, &status, WNOHANG) != pid; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
  EXPECT_FALSE(c.Get("/api/nodes", {{"Authorization", "Bearer " + token}})) << "the forward outlived Ctrl-C";
}

TEST_F(RayUpTest, NoRestartKeepsRayRunningRestartOnlySkipsTheSetupTmuxDetaches) {
  WriteConfig("max_workers: 0\nsetup_commands:\n  - echo ran >> ~/setup.log\n");
  ASSERT_EQ(Ray({"up", "-y", config_}, 240).exit_code, 0);
  up_ = true;
  auto gcs_pid = [&] {
    return hosts_->ShellOn(0, "pgrep -f 'ray _gcs' | head -1").out;
  };
  std::string before = gcs_pid();
  ASSERT_FALSE(before.empty());

  // A changed setup command, --no-restart: the setup runs, ray keeps running.
  WriteConfig("max_workers: 0\nsetup_commands:\n  - echo ran-again >> ~/setup.log\n");
  auto no_restart = Ray({"up", "-y", "--no-restart", config_}, 240);
  ASSERT_EQ(no_restart.exit_code, 0) << no_restart.all();
  EXPECT_TRUE(Contains(no_restart.out, "[6/6] Skipped: --no-restart")) << no_restart.out;
  EXPECT_EQ(gcs_pid(), before) << "ray was restarted";
  EXPECT_TRUE(Contains(hosts_->Ssh(0, "cat ~/setup.log").out, "ran-again"));

  // --restart-only: no setup, a new ray.
  auto restart = Ray({"up", "-y", "--restart-only", config_}, 240);
  ASSERT_EQ(restart.exit_code, 0) << restart.all();
  EXPECT_TRUE(Contains(restart.out, "Skipped: --restart-only")) << restart.out;
  EXPECT_NE(gcs_pid(), before) << "ray was not restarted";
  EXPECT_EQ(CountLines(hosts_->Ssh(0, "cat ~/setup.log").out, "ran"), 2);

  // --tmux: the command runs on in a detached session.
  auto tmux = Ray({"exec", "--tmux", config_, "sleep 30"});
  EXPECT_EQ(tmux.exit_code, 0) << tmux.all();
  EXPECT_TRUE(Contains(hosts_->Ssh(0, "tmux ls").out, "1 windows")) << "no tmux session";
  hosts_->Ssh(0, "tmux kill-server");
}

TEST_F(RayUpTest, AFailingSetupCommandStopsWithTheHostTheCommandAndItsOutput) {
  WriteConfig("head_setup_commands:\n  - echo the-reason-it-failed; exit 7\n");
  auto up = Ray({"up", "-y", config_}, 240);
  up_ = true;
  EXPECT_NE(up.exit_code, 0);
  EXPECT_TRUE(Contains(up.err, hosts_->Ip(0))) << up.err;
  EXPECT_TRUE(Contains(up.err, "exit code 7")) << up.err;
  EXPECT_TRUE(Contains(up.err, "the-reason-it-failed")) << up.err;
  EXPECT_EQ(RayProcessesOn(0), "");
  // The head is tagged update-failed, and exec still works on it.
  auto exec = Ray({"exec", config_, "echo still-reachable"});
  EXPECT_EQ(exec.exit_code, 0) << exec.all();
  EXPECT_TRUE(Contains(exec.out, "still-reachable"));
  auto down = Ray({"down", "-y", config_}, 180);
  EXPECT_EQ(down.exit_code, 0) << down.all();
  up_ = false;
}

TEST_F(RayUpTest, AnUnreachableHeadFailsAfterItsDeadlineNamingTheHost) {
  std::string nowhere = hosts_->Ip(0).substr(0, hosts_->Ip(0).rfind('.')) + ".77";
  WriteConfig("", nowhere);
  auto start = std::chrono::steady_clock::now();
  auto up = Ray({"up", "-y", config_}, 120, "AUTOSCALER_NODE_START_WAIT_S=4");
  double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_NE(up.exit_code, 0);
  EXPECT_NE(up.exit_code, 124) << "hung";
  EXPECT_LT(took, 60);
  EXPECT_TRUE(Contains(up.err, "root@" + nowhere)) << up.err;
  EXPECT_TRUE(Contains(up.err, "still not available after 4 s")) << up.err;
  EXPECT_TRUE(Contains(up.out, "not available yet")) << up.out;
}

TEST_F(RayUpTest, AWrongKeyIsRefusedWithSshsReason) {
  std::string key = dir_.path() + "/other_key";
  ASSERT_EQ(RunCommand({"ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", key}, dir_.path()).exit_code, 0);
  WriteConfig("");
  std::string text = ReadText(config_);
  text.replace(text.find(hosts_->PrivateKey()), hosts_->PrivateKey().size(), key);
  std::ofstream(config_) << text;
  auto up = Ray({"up", "-y", config_}, 120, "AUTOSCALER_NODE_START_WAIT_S=3");
  EXPECT_NE(up.exit_code, 0);
  EXPECT_TRUE(Contains(up.err, "Permission denied")) << up.err;
}

}  // namespace
}  // namespace ray::testing
