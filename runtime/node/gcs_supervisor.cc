#include "runtime/node/gcs_supervisor.h"

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
  Supervisor(const GcsSupervisorOptions& o, const std::atomic<bool>& stop)
      : o_(o), stop_(stop), backoff_(o.backoff), ready_file_(o.session_dir + "/gcs.ready") {}

  Status Run() {
    ::unlink(ready_file_.c_str());
    RAY_RETURN_IF_ERROR(Start(o_.listen));
    while (!stop_.load()) {
      std::this_thread::sleep_for(std::chrono::milliseconds(kPollMs));
      if (endpoint_.empty()) {
        auto ready = ReadFile(ready_file_);
        if (ready.ok() && !ready->empty()) endpoint_ = *ready;
      }
      int status = 0;
      pid_t r = ::waitpid(pid_, &status, WNOHANG);
      if (r != pid_) continue;
      int64_t exited = MonoMillis();
      if (endpoint_.empty()) {
        return Status::Unavailable(
            fmt::format("the GCS (pid {}) exited before it served ({}); see {}/logs/gcs.err", pid_,
                        DescribeExit(status), o_.session_dir));
      }
      int64_t wait_ms = backoff_.OnExit(started_ms_, exited);
      RAY_LOG_WARN("the GCS (pid {}) exited ({}); starting it again on {} in {} ms (restart {})",
                   pid_, DescribeExit(status), endpoint_, wait_ms, backoff_.restarts());
      pid_ = -1;
      // A failed spawn (fork) counts as a quick exit: tried again after a longer wait.
      while (!stop_.load()) {
        for (int64_t deadline = MonoMillis() + wait_ms; MonoMillis() < deadline && !stop_.load();) {
          std::this_thread::sleep_for(std::chrono::milliseconds(kPollMs));
        }
        if (stop_.load()) break;
        Status st = Start(endpoint_);
        if (st.ok()) break;
        RAY_LOG_ERROR("cannot start the GCS again: {}", st.message());
        wait_ms = backoff_.OnExit(MonoMillis(), MonoMillis());
      }
    }
    if (pid_ > 0) TerminateProcess(pid_, 2500);
    RAY_LOG_INFO("GCS supervisor stopped");
    return Status::Ok();
  }

 private:
  Status Start(const std::string& listen) {
    SpawnOptions spawn;
    spawn.argv = {SelfExecutable(), "_gcs", "--session-dir", o_.session_dir, "--listen", listen,
                  "--heartbeat-timeout-ms", std::to_string(o_.heartbeat_timeout_ms)};
    if (!o_.recover_from.empty() && starts_ == 0) {
      spawn.argv.insert(spawn.argv.end(), {"--recover-from", o_.recover_from});
    }
    spawn.stdout_path = o_.session_dir + "/logs/gcs.out";
    spawn.stderr_path = o_.session_dir + "/logs/gcs.err";
    spawn.parent_death_signal = SIGTERM;
    RAY_ASSIGN_OR_RETURN(Child child, Spawn(spawn));
    pid_ = child.pid;
    started_ms_ = MonoMillis();
    ++starts_;
    (void)WriteFile(o_.session_dir + "/gcs.pid", std::to_string(pid_) + "\n", 0644);
    if (starts_ > 1) RAY_LOG_INFO("GCS started again as pid {}", pid_);
    return Status::Ok();
  }

  const GcsSupervisorOptions& o_;
  const std::atomic<bool>& stop_;
  RestartBackoff backoff_;
  std::string ready_file_;
  std::string endpoint_;  // what the first start bound; "" until it serves
  int pid_ = -1;
  int64_t started_ms_ = 0;
  int starts_ = 0;
};

}  // namespace

Status RunGcsSupervisor(const GcsSupervisorOptions& options, const std::atomic<bool>& stop) {
  return Supervisor(options, stop).Run();
}

}  // namespace ray::node
