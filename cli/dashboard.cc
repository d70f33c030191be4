// `ray dashboard CLUSTER.yaml`: the dashboard of a launched cluster's head, forwarded
// over ssh to a port on this machine's loopback, until Ctrl-C.

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <thread>

#include <fmt/format.h>

#include "cli/cluster_common.h"
#include "cli/commands.h"
#include "cli/common.h"
#include "runtime/base/clock.h"
#include "runtime/base/process.h"

namespace ray::cli {

namespace {

std::atomic<bool> g_interrupted{false};

sockaddr_in Loopback(int port) {
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  return addr;
}

// Whether something accepts connections on 127.0.0.1:port (`bind_it` false), or
// whether the port can be bound now, as ssh binds it (`bind_it` true).
bool Probe(int port, bool bind_it) {
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return false;
  int one = 1;
  ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
  sockaddr_in addr = Loopback(port);
  auto* sa = reinterpret_cast<sockaddr*>(&addr);
  bool ok = (bind_it ? ::bind(fd, sa, sizeof(addr)) : ::connect(fd, sa, sizeof(addr))) == 0;
  ::close(fd);
  return ok;
}
bool Accepts(int port) { return Probe(port, false); }
bool Free(int port) { return Probe(port, true); }

struct DashboardFlags {
  cluster::LaunchTarget target;
  int port = 8265;
  int remote_port = 8265;
};

void Run(const DashboardFlags& f) {
  auto fwd = cluster::DashboardForwardOf(f.target, f.port, f.remote_port);
  if (!fwd.ok()) Fail("dashboard", fwd.status());
  if (fwd->argv.empty()) {
    std::printf("The head (%s) is this machine; its dashboard:\n  http://127.0.0.1:%d/?token=%s\n",
                fwd->head.c_str(), f.remote_port, fwd->token.c_str());
    return;
  }
  // Else the forward would seem up at once: whatever listens there would answer.
  if (!Free(f.port)) {
    Fail("dashboard", Status::Unavailable(fmt::format(
                          "127.0.0.1:{} is taken here: pick another local port with -p",
                          f.port)));
  }
  std::signal(SIGINT, [](int) { g_interrupted = true; });
  std::signal(SIGTERM, [](int) { g_interrupted = true; });
  SpawnOptions spawn;
  spawn.argv = fwd->argv;
  spawn.argv[0] = "/usr/bin/env";  // ssh from PATH
  spawn.argv.insert(spawn.argv.begin() + 1, "ssh");
  spawn.parent_death_signal = SIGTERM;
  auto child = Spawn(spawn);
  if (!child.ok()) Fail("dashboard", child.status());
  int pid = child->pid;
  auto exited = [pid](int* status) { return ::waitpid(pid, status, WNOHANG) == pid; };
  int status = 0;
  // The forward is up once the local port accepts; ssh exits if it cannot make it.
  constexpr int kForwardDeadlineMs = 20000;
  for (int64_t deadline = MonoMillis() + kForwardDeadlineMs;;) {
    if (exited(&status)) {
      Fail("dashboard", Status::Unavailable(fmt::format(
                            "ssh to {} exited ({}) before forwarding 127.0.0.1:{} to its port {} "
                            "(ssh's own message is above)",
                            fwd->head, WIFEXITED(status) ? WEXITSTATUS(status) : -1, f.port,
                            f.remote_port)));
    }
    if (Accepts(f.port)) break;
    if (g_interrupted || MonoMillis() > deadline) {
      TerminateProcess(pid, 2000);
      if (g_interrupted) return;
      Fail("dashboard", Status::DeadlineExceeded(fmt::format(
                            "the forward to {} did not come up within {} s", fwd->head,
                            kForwardDeadlineMs / 1000)));
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  std::printf("Forwarding 127.0.0.1:%d to the dashboard on %s (port %d); Ctrl-C stops it.\n"
              "Dashboard:\n  http://127.0.0.1:%d/?token=%s\n",
              f.port, fwd->head.c_str(), f.remote_port, f.port, fwd->token.c_str());
  std::fflush(stdout);
  while (!exited(&status)) {
    if (g_interrupted) {
      TerminateProcess(pid, 2000);
      return;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  Fail("dashboard", Status::Unavailable(fmt::format("the ssh forward to {} ended ({})", fwd->head,
                                                    WIFEXITED(status) ? "exit code " + std::to_string(WEXITSTATUS(status))
                                                                      : "a signal")));
}

}  // namespace

void AddDashboard(CLI::App& app) {
  auto f = std::make_shared<DashboardFlags>();
  auto* cmd = app.add_subcommand(
      "dashboard", "Forward a launched cluster's dashboard to a local port (until Ctrl-C)");
  AddLaunchTarget(cmd, f->target);
  cmd->add_option("-p,--port", f->port, "the local port (default 8265)")
      ->check(CLI::Range(1, 65535));
  cmd->add_option("--remote-port", f->remote_port, "the dashboard's port on the head (default 8265)")
      ->check(CLI::Range(1, 65535));
  cmd->callback([f] { Run(*f); });
}

}  // namespace ray::cli
