#pragma once
// Real hosts on this machine for the cluster launcher's tests (`ray up`), reached
// the way the launcher reaches hosts: ssh and rsync as root with a key.
//
// Host i is:
//  - a network namespace (Namespace(i), "rayh-<pid>-<serial>-<i>") whose eth0 has
//    Ip(i) = 10.A.B.(i+1)/24 and a default route via 10.A.B.254, the address of a
//    Linux bridge in the root namespace joining all hosts. The test (and `ray up`)
//    run in the root namespace and reach every host; hosts reach each other.
//  - mount, pid and UTS namespaces: fresh tmpfs on /tmp, /dev/shm and /root, its
//    own process tree (`ps` shows only the host's processes), hostname
//    Namespace(i). Everything else (/usr, /etc, /var, /run, the build tree) is the
//    machine's, so the `ray` binary is at the same path on every host.
//  - a real OpenSSH sshd on Ip(i):22 (pid 1 of the host) with a host key made here,
//    letting in root with PrivateKey() only (its public half is the host's
//    /root/.ssh/authorized_keys); sftp is served; MaxStartups/MaxSessions 200.
//
// The /24 is one that no address or route of the machine uses and whose bridge
// (named "rhb-A-B") this instance created, so processes running at once never
// share one. sshd configs, host keys, logs and the client key live in ConfigDir()
// (/var/tmp/rayhosts-<pid>-XXXXXX), outside the hosts' /tmp.
//
// Lifetime: the constructor makes everything, or sets skip_reason() (not root, a
// tool missing, no namespaces or bridges here) or error() (a step failed; the
// message names it and shows sshd's stderr where relevant). The destructor kills
// every process of every host (SIGTERM, then SIGKILL), deletes the namespaces,
// links and ConfigDir(); a step that fails is reported with ADD_FAILURE. If the
// test process dies instead, the hosts' processes die with it and the next
// FakeHosts deletes the namespaces, bridge and ConfigDir() left behind. Every wait
// is bounded.
// Not thread-safe; the hosts also die when the thread that made them exits.
//
//   FakeHosts hosts(3);
//   if (!hosts.skip_reason().empty()) GTEST_SKIP() << hosts.skip_reason();
//   ASSERT_TRUE(hosts.error().empty()) << hosts.error();
//   RunResult r = hosts.Ssh(0, "ls /tmp");

#include <string>
#include <vector>

#include "tests/integration/ray_harness.h"

namespace ray::testing {

class FakeHosts {
 public:
  // Makes `n` hosts (1 <= n <= 99); waits at most `timeout_s` for their sshds.
  explicit FakeHosts(int n, int timeout_s = 20);
  ~FakeHosts();
  FakeHosts(const FakeHosts&) = delete;
  FakeHosts& operator=(const FakeHosts&) = delete;

  // Why this machine cannot have fake hosts; "" if it can.
  const std::string& skip_reason() const { return skip_reason_; }
  // The setup step that failed; "" if every host is up.
  const std::string& error() const { return error_; }

  int size() const { return static_cast<int>(hosts_.size()); }
  const std::string& Ip(int i) const { return hosts_.at(i).ip; }
  const std::string& Namespace(int i) const { return hosts_.at(i).ns; }
  std::string SshUser() const { return "root"; }
  // The client's private key, readable in the root namespace.
  const std::string& PrivateKey() const { return key_; }
  const std::string& ConfigDir() const { return dir_; }

  // `ssh` with PrivateKey(), no host key checks, batch mode and a 5 s connect
  // timeout, up to "root@Ip(i)"; append the remote command.
  std::vector<std::string> SshArgv(int i) const;
  // Runs `command` on host i over ssh, killed after `timeout_s`.
  RunResult Ssh(int i, const std::string& command, int timeout_s = 30) const;

  // Runs `argv` inside host i's namespaces (not over ssh), cwd /root, killed after
  // `timeout_s`.
  RunResult RunOn(int i, std::vector<std::string> argv, int timeout_s = 30) const;
  // RunOn(i, {"sh", "-c", script}).
  RunResult ShellOn(int i, const std::string& script, int timeout_s = 30) const;

 private:
  struct Host {
    std::string ns, ip, veth, dir;
    bool ns_made = false;
    int launcher = -1;  // our child: `ip netns exec ... unshare ...`
    int sshd = -1;      // its child, the host's pid 1 (root namespace pid)
  };

  void SetUp(int n, int timeout_s);
  bool MakeBridge(int seed);
  bool StartSshd(Host& h, int i);
  bool AwaitSshds(int timeout_s);
  void TearDown();

  std::vector<Host> hosts_;
  std::string dir_, key_, subnet_, bridge_;  // subnet_: "10.A.B"
  std::string skip_reason_, error_;
};

}  // namespace ray::testing
