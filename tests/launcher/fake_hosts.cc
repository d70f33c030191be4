#include "tests/launcher/fake_hosts.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <set>
#include <thread>

#include "runtime/base/util.h"

namespace ray::testing {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

constexpr const char* kSshd = "/usr/sbin/sshd";
constexpr const char* kBridgeAlias = "rayhosts-";  // + the owner's pid
constexpr const char* kSshOptions[] = {"StrictHostKeyChecking=no", "UserKnownHostsFile=/dev/null",
                                       "BatchMode=yes", "ConnectTimeout=5", "LogLevel=ERROR"};

// What every host's sshd allows: root with a key only, and the many connections
// and sessions the launcher opens at once.
constexpr const char* kSshdConfig =
    "PermitRootLogin prohibit-password\n"
    "PubkeyAuthentication yes\n"
    "PasswordAuthentication no\n"
    "KbdInteractiveAuthentication no\n"
    "UsePAM no\n"
    "StrictModes no\n"
    "MaxStartups 200\n"
    "MaxSessions 200\n"
    "PrintMotd no\n"
    "Subsystem sftp internal-sftp\n";

// Run in a host's new namespaces with $1 the client's public key, $2 the hostname, $3
// the sshd config and $4 sshd: the private mounts, then sshd as the host's pid 1.
constexpr const char* kHostInit =
    "set -e\n"
    "mount -t tmpfs -o mode=1777 tmpfs /tmp\n"
    "mount -t tmpfs -o mode=1777 tmpfs /dev/shm\n"
    "mount -t tmpfs -o mode=0700 tmpfs /root\n"
    "mkdir -m 0700 /root/.ssh\n"
    "install -m 0600 \"$1\" /root/.ssh/authorized_keys\n"
    "hostname \"$2\"\n"
    "exec \"$4\" -D -e -f \"$3\"\n";

std::atomic<int> next_serial{0};

bool OnPath(const std::string& tool) {
  const char* path = std::getenv("PATH");
  for (const auto& d : Split(path ? path : "/usr/sbin:/usr/bin:/sbin:/bin", ':')) {
    if (!d.empty() && ::access((d + "/" + tool).c_str(), X_OK) == 0) return true;
  }
  return false;
}

std::string Join(const std::vector<std::string>& argv) {
  std::string s;
  for (const auto& a : argv) s += (s.empty() ? "" : " ") + a;
  return s;
}

// Runs `argv` (bounded); "" on success, else the command and what it printed.
std::string Try(const std::string& scratch, std::vector<std::string> argv, int timeout_s = 10) {
  std::string cmd = Join(argv);
  RunResult r = RunCommand(std::move(argv), scratch, timeout_s);
  if (r.exit_code == 0) return "";
  return "`" + cmd + "` exited " + std::to_string(r.exit_code) + ": " + r.all();
}

bool LinkExists(const std::string& name) { return fs::exists("/sys/class/net/" + name); }

// Pids of the processes in network namespace `ns`, as `ip netns pids` finds them.
std::vector<int> NetnsPids(const std::string& ns) {
  struct stat want;
  std::vector<int> out;
  if (::stat(("/run/netns/" + ns).c_str(), &want) != 0) return out;
  DIR* proc = ::opendir("/proc");
  if (proc == nullptr) return out;
  while (dirent* e = ::readdir(proc)) {
    int pid = std::atoi(e->d_name);
    struct stat st;
    if (pid > 0 && ::stat(("/proc/" + std::string(e->d_name) + "/ns/net").c_str(), &st) == 0 &&
        st.st_dev == want.st_dev && st.st_ino == want.st_ino) {
      out.push_back(pid);
    }
  }
  ::closedir(proc);
  return out;
}

// The first child of `pid`, or -1.
int FirstChild(int pid) {
  std::string p = std::to_string(pid);
  int child = std::atoi(ReadText("/proc/" + p + "/task/" + p + "/children").c_str());
  return child > 0 ? child : -1;
}

bool CanConnect(const std::string& ip, int port) {
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) return false;
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(port);
  ::inet_pton(AF_INET, ip.c_str(), &addr.sin_addr);
  int rc = ::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr));
  if (rc != 0 && errno == EINPROGRESS) {
    pollfd p{fd, POLLOUT, 0};
    socklen_t len = sizeof(rc);
    if (::poll(&p, 1, 200) == 1) ::getsockopt(fd, SOL_SOCKET, SO_ERROR, &rc, &len);
  }
  ::close(fd);
  return rc == 0;
}

// Whether `pid_text` starts with the pid of a process that is gone.
bool OwnerGone(const char* pid_text) {
  int pid = std::atoi(pid_text);
  return pid > 0 && !ProcessAlive(pid);
}

// Deletes the namespaces, bridges and config dirs of FakeHosts whose process died
// without tearing down (killed by a ctest timeout, say). Their hosts' processes died
// with them (PR_SET_PDEATHSIG); any left are killed.
void SweepLeftovers(const std::string& scratch) {
  std::error_code ec;
  for (const auto& e : fs::directory_iterator("/run/netns", ec)) {
    std::string name = e.path().filename();
    if (name.rfind("rayh-", 0) != 0 || !OwnerGone(name.c_str() + 5)) continue;
    for (int pid : NetnsPids(name)) ::kill(pid, SIGKILL);
    (void)Try(scratch, {"ip", "netns", "del", name});
  }
  for (const auto& e : fs::directory_iterator("/sys/class/net", ec)) {
    std::string name = e.path().filename();
    std::string alias = ReadText(e.path() / "ifalias");
    if (name.rfind("rhb-", 0) != 0 || alias.rfind(kBridgeAlias, 0) != 0) continue;
    if (OwnerGone(alias.c_str() + std::strlen(kBridgeAlias))) {
      (void)Try(scratch, {"ip", "link", "del", name});
    }
  }
  for (const auto& e : fs::directory_iterator("/var/tmp", ec)) {
    std::string name = e.path().filename();
    if (name.rfind("rayhosts-", 0) == 0 && OwnerGone(name.c_str() + 9)) {
      fs::remove_all(e.path(), ec);
    }
  }
}

}  // namespace

FakeHosts::FakeHosts(int n, int timeout_s) { SetUp(n, timeout_s); }

FakeHosts::~FakeHosts() { TearDown(); }

void FakeHosts::SetUp(int n, int timeout_s) {
  if (::geteuid() != 0) {
    skip_reason_ = "fake hosts need root (network namespaces, a bridge, sshd)";
    return;
  }
  std::string missing;
  for (const char* tool : {"ip", "unshare", "nsenter", "ssh", "ssh-keygen", "timeout"}) {
    if (!OnPath(tool)) missing += std::string(" ") + tool;
  }
  if (::access(kSshd, X_OK) != 0) missing += std::string(" ") + kSshd;
  if (!missing.empty()) {
    skip_reason_ = "fake hosts need" + missing +
                   " (scripts/setup.sh installs iproute2, openssh-server, openssh-client)";
    return;
  }
  if (n < 1 || n > 99) {
    error_ = "FakeHosts(" + std::to_string(n) + "): between 1 and 99 hosts";
    return;
  }
  std::string tmpl = "/var/tmp/rayhosts-" + std::to_string(::getpid()) + "-XXXXXX";
  if (::mkdtemp(tmpl.data()) == nullptr) {
    error_ = "making " + tmpl + ": " + std::strerror(errno);
    return;
  }
  dir_ = tmpl;
  key_ = dir_ + "/id_ed25519";
  SweepLeftovers(dir_);

  int serial = next_serial++;
  std::string tag = "rayh-" + std::to_string(::getpid()) + "-" + std::to_string(serial);
  hosts_.resize(n);
  for (int i = 0; i < n; ++i) {
    Host& h = hosts_[i];
    h.ns = tag + "-" + std::to_string(i);
    h.dir = dir_ + "/host" + std::to_string(i);
    RunResult r = RunCommand({"ip", "netns", "add", h.ns}, dir_, 10);
    if (r.exit_code != 0) {
      (i == 0 ? skip_reason_ : error_) = "cannot create network namespace " + h.ns + ": " + r.all();
      return;
    }
    h.ns_made = true;
  }
  if (!MakeBridge(::getpid() + 4099 * serial)) return;

  std::error_code ec;
  fs::create_directories("/run/sshd", ec);  // sshd's privilege separation dir
  if (std::string e = Try(dir_, {"ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C",
                                 "rayhosts-client", "-f", key_});
      !e.empty()) {
    error_ = "making the client key: " + e;
    return;
  }
  for (int i = 0; i < n; ++i) {
    Host& h = hosts_[i];
    h.ip = subnet_ + "." + std::to_string(i + 1);
    h.veth = "rhv" + bridge_.substr(3) + "-" + std::to_string(i);
    for (const auto& cmd : std::vector<std::vector<std::string>>{
             {"ip", "link", "add", h.veth, "type", "veth", "peer", "name", "eth0", "netns", h.ns},
             {"ip", "link", "set", h.veth, "master", bridge_, "up"},
             {"ip", "-n", h.ns, "addr", "add", h.ip + "/24", "dev", "eth0"},
             {"ip", "-n", h.ns, "link", "set", "eth0", "up"},
             {"ip", "-n", h.ns, "link", "set", "lo", "up"},
             {"ip", "-n", h.ns, "route", "add", "default", "via", subnet_ + ".254"}}) {
      if (std::string e = Try(dir_, cmd); !e.empty()) {
        error_ = "connecting host " + std::to_string(i) + " to the bridge: " + e;
        return;
      }
    }
    if (!StartSshd(h, i)) return;
  }
  AwaitSshds(timeout_s);
}

bool FakeHosts::MakeBridge(int seed) {
  RunResult addrs = RunCommand({"ip", "-o", "addr"}, dir_, 10);
  RunResult routes = RunCommand({"ip", "route", "show", "table", "all"}, dir_, 10);
  std::string used = addrs.out + routes.out;
  // Subnets 10.64.0.0 to 10.191.255.0, from the one `seed` picks; the bridge's name
  // claims the subnet, so of two processes racing for one, one gets "File exists".
  for (int k = 0; k < 64; ++k) {
    int c = (seed + k) % 32768;
    std::string a = std::to_string(64 + c / 256), b = std::to_string(c % 256);
    std::string subnet = "10." + a + "." + b;
    if (used.find(subnet + ".") != std::string::npos) continue;
    std::string name = "rhb-" + a + "-" + b;
    RunResult r =
        RunCommand({"ip", "link", "add", name, "type", "bridge", "forward_delay", "0"}, dir_, 10);
    if (r.exit_code != 0 && r.err.find("File exists") != std::string::npos) continue;
    if (r.exit_code != 0) {
      skip_reason_ = "cannot create a bridge here: " + r.all();
      return false;
    }
    bridge_ = name;
    subnet_ = subnet;
    for (const auto& cmd : std::vector<std::vector<std::string>>{
             {"ip", "link", "set", name, "alias", kBridgeAlias + std::to_string(::getpid())},
             {"ip", "addr", "add", subnet + ".254/24", "dev", name},
             {"ip", "link", "set", name, "up"}}) {
      if (std::string e = Try(dir_, cmd); !e.empty()) {
        error_ = "setting up bridge " + name + ": " + e;
        return false;
      }
    }
    return true;
  }
  error_ = "no free 10.x.y.0/24 for the bridge in 64 tries; `ip -o addr`:\n" + addrs.out;
  return false;
}

bool FakeHosts::StartSshd(Host& h, int i) {
  std::string host_key = h.dir + "/ssh_host_ed25519_key", config = h.dir + "/sshd_config";
  std::error_code ec;
  fs::create_directories(h.dir, ec);
  if (std::string e =
          Try(dir_, {"ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", h.ns, "-f", host_key});
      !e.empty()) {
    error_ = "making host " + std::to_string(i) + "'s host key: " + e;
    return false;
  }
  std::string text = "ListenAddress " + h.ip + ":22\nHostKey " + host_key + "\nPidFile " + h.dir +
                     "/sshd.pid\n" + kSshdConfig;
  if (Status s = WriteFile(config, text, 0600); !s.ok()) {
    error_ = "writing " + config + ": " + s.ToString();
    return false;
  }
  // Namespaces that unshare makes: mount (private), pid, UTS; the network is the
  // host's namespace already.
  std::vector<std::string> argv{"ip", "netns", "exec", h.ns, "unshare", "--mount", "--pid"};
  argv.insert(argv.end(),
              {"--uts", "--fork", "--mount-proc", "--kill-child", "--propagation=private"});
  argv.insert(argv.end(), {"sh", "-c", kHostInit, "host-init", key_ + ".pub", h.ns, config, kSshd});
  std::string log = h.dir + "/sshd.log";
  pid_t parent = ::getpid();
  pid_t pid = ::fork();
  if (pid == 0) {
    // The host dies with the test process, even if it never tears down.
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) ::_exit(1);
    int out = ::open(log.c_str(), O_CREAT | O_WRONLY | O_APPEND, 0644);
    int in = ::open("/dev/null", O_RDONLY);
    if (out < 0 || in < 0) ::_exit(126);
    ::dup2(in, 0);
    ::dup2(out, 1);
    ::dup2(out, 2);
    std::vector<char*> cargv;
    for (auto& a : argv) cargv.push_back(a.data());
    cargv.push_back(nullptr);
    ::execvp(cargv[0], cargv.data());
    ::_exit(127);
  }
  if (pid < 0) {
    error_ = "fork for host " + std::to_string(i) + "'s sshd: " + std::strerror(errno);
    return false;
  }
  h.launcher = pid;
  return true;
}

bool FakeHosts::AwaitSshds(int timeout_s) {
  auto deadline = Clock::now() + std::chrono::seconds(timeout_s);
  for (int i = 0; i < size(); ++i) {
    Host& h = hosts_[i];
    std::string what = "waiting for sshd on " + h.ip + ":22 (host " + std::to_string(i) + ", " +
                       h.ns + ") to accept connections: ";
    while (true) {
      int status = 0;
      if (::waitpid(h.launcher, &status, WNOHANG) == h.launcher) {
        h.launcher = -1;
        int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
        error_ = what + "it exited with code " + std::to_string(code) + "; its stderr:\n" +
                 ReadText(h.dir + "/sshd.log");
        return false;
      }
      if (h.sshd < 0) h.sshd = FirstChild(h.launcher);
      if (h.sshd > 0 && CanConnect(h.ip, 22)) break;
      if (Clock::now() > deadline) {
        error_ = what + "none after " + std::to_string(timeout_s) + " s; its stderr:\n" +
                 ReadText(h.dir + "/sshd.log");
        return false;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
  }
  return true;
}

std::vector<std::string> FakeHosts::SshArgv(int i) const {
  std::vector<std::string> argv{"ssh", "-i", key_};
  for (const char* option : kSshOptions) argv.insert(argv.end(), {"-o", option});
  argv.push_back(SshUser() + "@" + Ip(i));
  return argv;
}

RunResult FakeHosts::Ssh(int i, const std::string& command, int timeout_s) const {
  std::vector<std::string> argv = SshArgv(i);
  argv.push_back(command);
  return RunCommand(std::move(argv), dir_, timeout_s);
}

RunResult FakeHosts::RunOn(int i, std::vector<std::string> argv, int timeout_s) const {
  if (hosts_.at(i).sshd <= 0) return RunResult{-1, "", "host " + std::to_string(i) + " is not up"};
  std::vector<std::string> full{"nsenter", "--target", std::to_string(hosts_[i].sshd)};
  full.insert(full.end(), {"--net", "--mount", "--pid", "--uts", "--wd=/root", "--"});
  full.insert(full.end(), argv.begin(), argv.end());
  return RunCommand(std::move(full), dir_, timeout_s);
}

RunResult FakeHosts::ShellOn(int i, const std::string& script, int timeout_s) const {
  return RunOn(i, {"sh", "-c", script}, timeout_s);
}

void FakeHosts::TearDown() {
  if (dir_.empty()) return;
  std::vector<std::string> failures;
  // Every process of every host, reaping our own children as they exit.
  auto running = [this] {
    std::set<int> pids;
    for (Host& h : hosts_) {
      if (h.launcher > 0 && ::waitpid(h.launcher, nullptr, WNOHANG) == h.launcher) h.launcher = -1;
      if (h.launcher > 0) pids.insert(h.launcher);
      if (!h.ns_made) continue;
      for (int pid : NetnsPids(h.ns)) pids.insert(pid);
    }
    return pids;
  };
  for (int sig : {SIGTERM, SIGKILL}) {
    for (int pid : running()) ::kill(pid, sig);
    auto deadline = Clock::now() + std::chrono::seconds(3);
    while (!running().empty() && Clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
  }
  if (std::set<int> left = running(); !left.empty()) {
    std::string pids;
    for (int pid : left) {
      pids += " " + std::to_string(pid) + " (" + ProcessCmdline(pid).substr(0, 60) + ")";
    }
    failures.push_back("stopping the hosts' processes: alive 3 s after SIGKILL:" + pids);
  }
  for (Host& h : hosts_) {
    if (!h.veth.empty() && LinkExists(h.veth)) {
      if (std::string e = Try(dir_, {"ip", "link", "del", h.veth}); !e.empty()) {
        failures.push_back("deleting link " + h.veth + ": " + e);
      }
    }
    if (h.ns_made) {
      if (std::string e = Try(dir_, {"ip", "netns", "del", h.ns}); !e.empty()) {
        failures.push_back("deleting namespace " + h.ns + ": " + e);
      }
    }
  }
  if (!bridge_.empty()) {
    if (std::string e = Try(dir_, {"ip", "link", "del", bridge_}); !e.empty()) {
      failures.push_back("deleting bridge " + bridge_ + ": " + e);
    }
  }
  std::error_code ec;
  fs::remove_all(dir_, ec);
  if (ec) failures.push_back("removing " + dir_ + ": " + ec.message());
  for (const auto& f : failures) ADD_FAILURE() << "FakeHosts teardown: " << f;
  dir_.clear();
}

}  // namespace ray::testing
