#include "runtime/node/daemon_supervisor.h"

#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <thread>

#include <fmt/format.h>

#include "runtime/base/logging.h"
#include "runtime/base/util.h"

namespace ray::node {

namespace {

constexpr int kPollMs = 20;

std::string DescribeExit(int status) {
  if (WIFEXITED(status)) return fmt::format("exit code {}", WEXITSTATUS(status));
  if (WIFSIGNALED(status)) return fmt::format("signal {}", WTERMSIG(status));
  return "status " + std::to_string(status);
}

class Supervisor {
 public:
  Supervisor(const DaemonSupervisorOptions& o, const std::atomic<bool>& stop)
      : o_(o),
        stop_(stop),
        backoff_(o.backoff),
        ready_file_(o.session_dir + "/" + o.name + ".ready") {}

  Status Run() {
    ::unlink(ready_file_.c_str());
    RAY_RETURN_IF_ERROR(Start());
    while (!stop_.load()) {
      std::this_thread::sleep_for(std::chrono::milliseconds(kPollMs));
      if (ready_.empty()) {
        auto ready = ReadFile(ready_file_);
        if (ready.ok() && !ready->empty()) ready_ = *ready;
      }
      int status = 0;
      pid_t r = ::waitpid(pid_, &status, WNOHANG);
      if (r != pid_) continue;
      int64_t exited = MonoMillis();
      if (ready_.empty()) {
        return Status::Unavailable(fmt::format("{} (pid {}) exited before it served ({}); see {}",
                                               o_.title, pid_, DescribeExit(status),
                                               o_.session_dir + "/logs/" + o_.name + ".err"));
      }
      int64_t wait_ms = backoff_.OnExit(started_ms_, exited);
      RAY_LOG_WARN("{} (pid {}) exited ({}); starting it again on {} in {} ms (restart {})",
                   o_.title, pid_, DescribeExit(status), ready_, wait_ms, backoff_.restarts());
      pid_ = -1;
      // A failed spawn (fork) counts as a quick exit: tried again after a longer wait.
      while (!stop_.load()) {
        for (int64_t deadline = MonoMillis() + wait_ms; MonoMillis() < deadline && !stop_.load();) {
          std::this_thread::sleep_for(std::chrono::milliseconds(kPollMs));
        }
        if (stop_.load()) break;
        Status st = Start();
        if (st.ok()) break;
        RAY_LOG_ERROR("cannot start {} again: {}", o_.title, st.message());
        wait_ms = backoff_.OnExit(MonoMillis(), MonoMillis());
      }
    }
    if (pid_ > 0) TerminateProcess(pid_, 2500);
    RAY_LOG_INFO("{} supervisor stopped", o_.name);
    return Status::Ok();
  }

 private:
  Status Start() {
    SpawnOptions spawn;
    spawn.argv = o_.argv(starts_, ready_);
    spawn.stdout_path = o_.session_dir + "/logs/" + o_.name + ".out";
    spawn.stderr_path = o_.session_dir + "/logs/" + o_.name + ".err";
    spawn.parent_death_signal = SIGTERM;
    RAY_ASSIGN_OR_RETURN(Child child, Spawn(spawn));
    pid_ = child.pid;
    started_ms_ = MonoMillis();
    ++starts_;
    (void)WriteFile(o_.session_dir + "/" + o_.name + ".pid", std::to_string(pid_) + "\n", 0644);
    if (starts_ > 1) RAY_LOG_INFO("{} started again as pid {}", o_.title, pid_);
    return Status::Ok();
  }

  const DaemonSupervisorOptions& o_;
  const std::atomic<bool>& stop_;
  RestartBackoff backoff_;
  std::string ready_file_;
  std::string ready_;  // what the first start wrote; "" until it serves
  int pid_ = -1;
  int64_t started_ms_ = 0;
  int starts_ = 0;
};

}  // namespace

Status RunDaemonSupervisor(const DaemonSupervisorOptions& options, const std::atomic<bool>& stop) {
  return Supervisor(options, stop).Run();
}

}  // namespace ray::node
