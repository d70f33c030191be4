// The launcher's test hosts (fake_hosts.h) are what `ray up` expects of real ones:
// reached over ssh with a key, each with only its own address and its own /tmp,
// /dev/shm and home, reaching each other, keeping daemons started over ssh; and
// they leave nothing behind. Needs root; skipped, saying why, without it.

#include "tests/launcher/fake_hosts.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <thread>

namespace ray::testing {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

constexpr int kHosts = 3;
constexpr const char* kSshOptions =
    "-o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -o BatchMode=yes "
    "-o ConnectTimeout=5 -o LogLevel=ERROR";

long MillisSince(Clock::time_point start) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start).count();
}

bool Contains(const std::string& text, const std::string& needle) {
  return text.find(needle) != std::string::npos;
}

class FakeHostsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto start = Clock::now();
    hosts_ = std::make_unique<FakeHosts>(kHosts);
    if (!hosts_->skip_reason().empty()) GTEST_SKIP() << hosts_->skip_reason();
    ASSERT_TRUE(hosts_->error().empty()) << hosts_->error();
    std::cout << "[ fake hosts ] " << kHosts << " hosts up in " << MillisSince(start)
              << " ms, host 0 at " << hosts_->Ip(0) << "\n";
  }

  void TearDown() override { Destroy(); }

  void Destroy() {
    if (!hosts_) return;
    auto start = Clock::now();
    hosts_.reset();
    std::cout << "[ fake hosts ] torn down in " << MillisSince(start) << " ms\n";
  }

  std::string scratch() const { return scratch_.path(); }

  TempDir scratch_;
  std::unique_ptr<FakeHosts> hosts_;
};

TEST_F(FakeHostsTest, EachHostIsReachedOverSshAndHasOnlyItsOwnAddress) {
  for (int i = 0; i < kHosts; ++i) {
    RunResult r = hosts_->Ssh(i, "hostname; ip -o addr");
    ASSERT_EQ(r.exit_code, 0) << "host " << i << ": " << r.all();
    EXPECT_TRUE(Contains(r.out, hosts_->Namespace(i))) << r.out;
    EXPECT_TRUE(Contains(r.out, hosts_->Ip(i) + "/24")) << r.out;
    EXPECT_FALSE(Contains(r.out, ".254/24")) << "the bridge's address is the root's: " << r.out;
    for (int j = 0; j < kHosts; ++j) {
      if (j == i) continue;
      EXPECT_FALSE(Contains(r.out, hosts_->Ip(j) + "/")) << r.out;
    }
    // The same addresses seen directly. An IPv6 link-local address is flagged
    // "tentative" until duplicate address detection ends, a moment after the link comes
    // up, so one of the two reads may show the flag and the other not: it is dropped.
    auto addresses = [](std::string out) {
      for (size_t at; (at = out.find(" tentative")) != std::string::npos;) out.erase(at, 10);
      return out;
    };
    EXPECT_EQ(addresses(hosts_->RunOn(i, {"ip", "-o", "addr"}).out),
              addresses(r.out.substr(r.out.find('\n') + 1)));
  }
}

TEST_F(FakeHostsTest, TmpShmAndHomeArePrivateToTheirHost) {
  std::string name = "rayh-marker-" + std::to_string(::getpid());
  std::vector<std::string> paths{"/tmp/" + name, "/dev/shm/" + name, "/root/" + name};
  RunResult write = hosts_->Ssh(0, "for p in " + paths[0] + " " + paths[1] + " ~/" + name +
                                       "; do echo written-over-ssh > $p || exit 1; done");
  ASSERT_EQ(write.exit_code, 0) << write.all();
  for (const auto& p : paths) {
    EXPECT_EQ(hosts_->RunOn(0, {"cat", p}).out, "written-over-ssh\n") << p;
    EXPECT_EQ(hosts_->Ssh(0, "cat " + p).out, "written-over-ssh\n") << p;
    RunResult other = hosts_->Ssh(1, "test -e " + p);
    EXPECT_EQ(other.exit_code, 1) << p << " is on host 1 too: " << other.all();
    EXPECT_EQ(hosts_->RunOn(1, {"test", "-e", p}).exit_code, 1) << p;
    EXPECT_FALSE(fs::exists(p)) << p << " is in the root namespace";
  }
}

TEST_F(FakeHostsTest, AHostLogsInToAnotherWithTheKeyAndOnlyWithIt) {
  std::string to_host1 = std::string("ssh -i ~/.ssh/id_ed25519 ") + kSshOptions + " root@" +
                         hosts_->Ip(1) + " 'hostname; ip -o addr'";
  RunResult without = hosts_->Ssh(0, to_host1);
  EXPECT_NE(without.exit_code, 0) << "host 0 logged in with no key: " << without.all();

  RunResult copy =
      RunCommand({"scp", "-i", hosts_->PrivateKey(), "-o", "StrictHostKeyChecking=no", "-o",
                  "UserKnownHostsFile=/dev/null", "-o", "BatchMode=yes", "-o", "LogLevel=ERROR",
                  hosts_->PrivateKey(), "root@" + hosts_->Ip(0) + ":.ssh/id_ed25519"},
                 scratch(), 30);
  ASSERT_EQ(copy.exit_code, 0) << copy.all();
  RunResult with = hosts_->Ssh(0, "chmod 600 ~/.ssh/id_ed25519 && " + to_host1);
  ASSERT_EQ(with.exit_code, 0) << with.all();
  EXPECT_TRUE(Contains(with.out, hosts_->Namespace(1))) << with.out;
  EXPECT_TRUE(Contains(with.out, hosts_->Ip(1) + "/24")) << with.out;
  EXPECT_FALSE(Contains(with.out, hosts_->Ip(0) + "/")) << with.out;
}

TEST_F(FakeHostsTest, RsyncCopiesADirectoryToAHost) {
  fs::create_directories(scratch() + "/tree/sub");
  std::ofstream(scratch() + "/tree/sub/file") << "synced\n";
  RunResult r =
      RunCommand({"rsync", "-a", "-e", "ssh -i " + hosts_->PrivateKey() + " " + kSshOptions,
                  scratch() + "/tree/", "root@" + hosts_->Ip(2) + ":/tmp/tree/"},
                 scratch(), 30);
  ASSERT_EQ(r.exit_code, 0) << r.all();
  EXPECT_EQ(hosts_->RunOn(2, {"cat", "/tmp/tree/sub/file"}).out, "synced\n");
  EXPECT_NE(hosts_->RunOn(1, {"cat", "/tmp/tree/sub/file"}).exit_code, 0);
}

TEST_F(FakeHostsTest, ManySshSessionsAtOnce) {
  std::string ssh = "ssh -i " + hosts_->PrivateKey() + " " + kSshOptions + " root@" + hosts_->Ip(0);
  RunResult r = RunCommand(
      {"bash", "-c",
       "for k in $(seq 40); do " + ssh + " 'sleep 0.5; echo ok' & done | grep -c ok; wait"},
      scratch(), 60);
  EXPECT_EQ(r.out, "40\n") << r.all();
}

TEST_F(FakeHostsTest, ADaemonStartedOverSshOutlivesTheSessionAndNotTheHosts) {
  // The daemon's command line names the config dir, so it is attributable.
  std::string marker = hosts_->ConfigDir() + "/daemon";
  RunResult start = hosts_->Ssh(0,
                                "nohup setsid sh -c 'while sleep 1; do :; done' " + marker +
                                    " > /dev/null 2>&1 < /dev/null &",
                                10);
  ASSERT_EQ(start.exit_code, 0) << start.all();
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  EXPECT_EQ(hosts_->RunOn(0, {"pgrep", "-f", marker}).exit_code, 0) << "gone with its session";
  EXPECT_EQ(hosts_->RunOn(1, {"pgrep", "-f", marker}).exit_code, 1) << "host 1 sees host 0's";
  ASSERT_FALSE(ProcessesMentioning(marker).empty());

  Destroy();
  EXPECT_EQ(AwaitNoProcessesMentioning(marker, 1000), std::vector<int>{});
}

TEST_F(FakeHostsTest, TeardownLeavesNothing) {
  std::string dir = hosts_->ConfigDir(), bridge_ip = hosts_->Ip(0);
  bridge_ip.replace(bridge_ip.rfind('.'), std::string::npos, ".254/24");
  std::vector<std::string> namespaces;
  for (int i = 0; i < kHosts; ++i) namespaces.push_back(hosts_->Namespace(i));
  ASSERT_FALSE(ProcessesMentioning(dir).empty()) << "no sshd runs with a config in " << dir;
  ASSERT_TRUE(Contains(RunCommand({"ip", "-o", "addr"}, scratch()).out, bridge_ip));
  ASSERT_TRUE(Contains(RunCommand({"ip", "netns", "list"}, scratch()).out, namespaces[0]));

  Destroy();
  std::string netns = RunCommand({"ip", "netns", "list"}, scratch()).out;
  for (const auto& ns : namespaces) EXPECT_FALSE(Contains(netns, ns)) << netns;
  EXPECT_EQ(ProcessesMentioning(dir), std::vector<int>{});
  EXPECT_FALSE(Contains(RunCommand({"ip", "-o", "addr"}, scratch()).out, bridge_ip));
  EXPECT_FALSE(Contains(ReadText("/proc/self/mountinfo"), namespaces[0]));
  EXPECT_FALSE(fs::exists(dir));
}

}  // namespace
}  // namespace ray::testing
