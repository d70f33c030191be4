// ForwardDashboard (launcher.h): `ray dashboard`'s ssh port forward to the head.

#include <sys/wait.h>

#include <chrono>
#include <csignal>
#include <thread>

#include <fmt/format.h>

#include "runtime/base/clock.h"
#include "runtime/base/net.h"
#include "runtime/base/process.h"
#include "runtime/cluster/launcher.h"

namespace ray::cluster {

namespace {

constexpr int kForwardDeadlineMs = 20000;  // ssh connects and listens by then

std::string DescribeExit(int status) {
  return WIFEXITED(status) ? fmt::format("exit code {}", WEXITSTATUS(status)) : "a signal";
}

}  // namespace

Status ForwardDashboard(const LaunchTarget& target, int local_port, int remote_port,
                        const Console& console, const std::atomic<bool>& stop) {
  RAY_ASSIGN_OR_RETURN(DashboardForward fwd, DashboardForwardOf(target, local_port, remote_port));
  if (fwd.argv.empty()) {
    console.print(fmt::format("The head ({}) is this machine; its dashboard:\n  "
                              "http://127.0.0.1:{}/?token={}",
                              fwd.head, remote_port, fwd.token));
    return Status::Ok();
  }
  // Else the forward would seem up at once: whatever listens there would answer.
  if (!LoopbackPortFree(local_port)) {
    return Status::Unavailable(fmt::format(
        "127.0.0.1:{} is taken here: pick another local port with -p", local_port));
  }
  SpawnOptions spawn;
  spawn.argv = {"/usr/bin/env"};  // ssh from PATH
  spawn.argv.insert(spawn.argv.end(), fwd.argv.begin(), fwd.argv.end());
  spawn.parent_death_signal = SIGTERM;
  RAY_ASSIGN_OR_RETURN(Child child, Spawn(spawn));
  const int pid = child.pid;
  int status = 0;
  auto exited = [&] { return ::waitpid(pid, &status, WNOHANG) == pid; };
  for (int64_t deadline = MonoMillis() + kForwardDeadlineMs; !LoopbackPortAnswers(local_port);) {
    if (exited()) {
      return Status::Unavailable(fmt::format(
          "ssh to {} exited ({}) before forwarding 127.0.0.1:{} to its port {} (ssh's own "
          "message is above)",
          fwd.head, DescribeExit(status), local_port, remote_port));
    }
    if (stop.load()) {
      TerminateProcess(pid, 2000);
      return Status::Ok();
    }
    if (MonoMillis() > deadline) {
      TerminateProcess(pid, 2000);
      return Status::DeadlineExceeded(fmt::format("the forward to {} did not come up within {} s",
                                                  fwd.head, kForwardDeadlineMs / 1000));
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  console.print(fmt::format(
      "Forwarding 127.0.0.1:{} to the dashboard on {} (port {}); Ctrl-C stops it.\n"
      "Dashboard:\n  http://127.0.0.1:{}/?token={}",
      local_port, fwd.head, remote_port, local_port, fwd.token));
  while (!exited()) {
    if (stop.load()) {
      TerminateProcess(pid, 2000);
      return Status::Ok();
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return Status::Unavailable(
      fmt::format("the ssh forward to {} ended ({})", fwd.head, DescribeExit(status)));
}

}  // namespace ray::cluster
