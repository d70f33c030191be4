#include "runtime/raylet/worker_pool.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>

#include "runtime/base/logging.h"
#include "runtime/base/process.h"
#include "runtime/base/util.h"

namespace ray::raylet {

namespace {
// How long the zygote may take to answer before the raylet gives up on it.
constexpr int kForkTimeoutMs = 5000;
}  // namespace

WorkerPool::WorkerPool(WorkerPoolOptions options, OutputSink sink)
    : options_(std::move(options)),
      clock_(options_.clock ? *options_.clock : Clock::System()),
      sink_(std::move(sink)) {}

WorkerPool::~WorkerPool() {
  stopping_ = true;  // the workers the zygote owes are not started again
  CollectPids(kForkTimeoutMs);
  zygote_.reset();
  for (auto& [id, p] : workers_) {
    if (p.pid > 0) ::kill(p.pid, SIGKILL);
  }
  for (auto& [id, p] : workers_) {
    int status;
    if (p.pid > 0) ::waitpid(p.pid, &status, 0);
    Close(p);
  }
}

std::vector<std::string> WorkerPool::WorkerFlags() const {
  return {"--raylet", options_.raylet_endpoint, "--session-dir", options_.session_dir,
          "--node-id", options_.node_id_hex};
}

Result<Child> WorkerPool::Launch(const std::string& id) {
  if (!zygote_ && !zygote_failed_) {
    auto started = Zygote::Start(options_.ray_binary, WorkerFlags());
    if (started.ok()) {
      zygote_ = std::move(started).value();
    } else {
      GiveUpZygote(started.status().message());
    }
  }
  if (zygote_) {
    auto child = zygote_->Fork(ToHex(id));
    if (child.ok()) {
      forking_.push_back({id, clock_.MonoMillis()});
      return child;
    }
    GiveUpZygote(child.status().message());
  }
  return Spawn(id);
}

Result<Child> WorkerPool::Spawn(const std::string& id) {
  SpawnOptions spawn;
  spawn.argv = {options_.ray_binary, "_worker", "--worker-id", ToHex(id)};
  for (auto& flag : WorkerFlags()) spawn.argv.push_back(std::move(flag));
  spawn.pipe_output = true;
  spawn.parent_death_signal = SIGKILL;
  return ray::Spawn(spawn);
}

void WorkerPool::CollectPids(int wait_ms) {
  while (!forking_.empty() && zygote_) {
    int64_t due = forking_.front().asked_ms + kForkTimeoutMs;
    auto pid =
        zygote_->NextPid(static_cast<int>(std::clamp<int64_t>(due - clock_.MonoMillis(), 0, wait_ms)));
    if (!pid.ok()) return GiveUpZygote(pid.status().message());
    if (*pid == 0) {
      if (clock_.MonoMillis() < due) return;  // not yet
      return GiveUpZygote("the zygote did not answer in time");
    }
    TakeAnswer(*pid);
  }
}

void WorkerPool::TakeAnswer(int pid) {
  std::string id = std::move(forking_.front().id);
  forking_.pop_front();
  auto it = workers_.find(id);
  if (it == workers_.end()) return;
  if (pid < 0) return Respawn(it, "the zygote could not fork it");
  it->second.pid = pid;
  if (it->second.kill_on_pid) ::kill(pid, SIGKILL);
}

void WorkerPool::GiveUpZygote(const std::string& why) {
  if (!zygote_failed_) RAY_LOG_WARN("{}; starting workers with fork and exec from now on", why);
  zygote_failed_ = true;
  if (zygote_) {
    // Killed first, then read to its end: the workers it answered for run, the
    // others start again. (One it forked as it died, and could not name, lives on as
    // a stray; it dies with the raylet.)
    zygote_->Kill();
    while (!forking_.empty()) {
      auto pid = zygote_->NextPid(1000);
      if (!pid.ok() || *pid == 0) break;
      TakeAnswer(*pid);
    }
    zygote_.reset();
  }
  while (!forking_.empty()) {
    auto it = workers_.find(forking_.front().id);
    forking_.pop_front();
    if (it != workers_.end()) Respawn(it, "the zygote did not start it");
  }
}

void WorkerPool::Respawn(std::unordered_map<std::string, Proc>::iterator it,
                         const std::string& why) {
  Close(it->second);
  bool kill = it->second.kill_on_pid;
  auto child = stopping_ || kill ? Result<Child>(Status::Unavailable(why)) : Spawn(it->first);
  if (child.ok()) {
    it->second = Proc{child->pid, {child->stdout_fd, child->stderr_fd}, {}, {nullptr, nullptr}};
    return;
  }
  failed_.push_back({it->first, -1, "not started: " + child.status().message()});
  workers_.erase(it);
}

Result<std::string> WorkerPool::Start() {
  std::string id = RandomBytes(16);
  RAY_ASSIGN_OR_RETURN(Child child, Launch(id));
  // The log files are made when the worker first writes (most never do).
  workers_.emplace(id, Proc{child.pid, {child.stdout_fd, child.stderr_fd}, {}, {nullptr, nullptr}});
  return id;
}

void WorkerPool::AddPollItems(std::vector<zmq::pollitem_t>& items) const {
  if (!forking_.empty() && zygote_) items.push_back({nullptr, zygote_->fd(), ZMQ_POLLIN, 0});
  for (const auto& [id, p] : workers_) {
    for (int fd : p.fds) {
      if (fd >= 0) items.push_back({nullptr, fd, ZMQ_POLLIN, 0});
    }
  }
}

void WorkerPool::Drain(const std::string& id, Proc& p, int which, bool flush_partial) {
  char buf[65536];
  while (p.fds[which] >= 0) {
    ssize_t n = ::read(p.fds[which], buf, sizeof(buf));
    if (n > 0) {
      if (!p.log[which]) {
        std::string path = options_.session_dir + "/logs/worker-" + ToHex(id) +
                           (which == 0 ? ".out" : ".err");
        p.log[which] = std::fopen(path.c_str(), "a");
      }
      if (p.log[which]) {
        std::fwrite(buf, 1, static_cast<size_t>(n), p.log[which]);
        std::fflush(p.log[which]);
      }
      p.partial[which].append(buf, static_cast<size_t>(n));
      continue;
    }
    if (n == 0 || (errno != EAGAIN && errno != EINTR)) {
      ::close(p.fds[which]);
      p.fds[which] = -1;
      flush_partial = true;
    }
    break;
  }
  std::string& partial = p.partial[which];
  size_t end = flush_partial ? partial.size() : partial.rfind('\n');
  if (end != std::string::npos && end > 0) {
    size_t take = flush_partial ? end : end + 1;
    sink_(id, p.pid, std::string_view(partial).substr(0, take), which == 1);
    partial.erase(0, take);
  }
}

void WorkerPool::ReadOutput() {
  CollectPids(0);
  for (auto& [id, p] : workers_) {
    Drain(id, p, 0, false);
    Drain(id, p, 1, false);
  }
}

std::vector<WorkerPool::Exit> WorkerPool::Reap() {
  std::vector<Exit> exits = std::move(failed_);
  failed_.clear();
  int status;
  pid_t pid;
  auto find = [&](pid_t pid) {
    return std::find_if(workers_.begin(), workers_.end(),
                        [&](const auto& w) { return w.second.pid == pid; });
  };
  while ((pid = ::waitpid(-1, &status, WNOHANG)) > 0) {
    auto it = find(pid);
    if (it == workers_.end() && !forking_.empty()) {
      CollectPids(kForkTimeoutMs);  // it exited before its pid was read
      it = find(pid);
    }
    if (it == workers_.end()) continue;
    Drain(it->first, it->second, 0, true);
    Drain(it->first, it->second, 1, true);
    Close(it->second);
    std::string how = WIFSIGNALED(status) ? "signal " + std::to_string(WTERMSIG(status))
                                          : "exit code " + std::to_string(WEXITSTATUS(status));
    exits.push_back({it->first, pid, how});
    workers_.erase(it);
  }
  return exits;
}

void WorkerPool::Kill(const std::string& worker_id) {
  auto it = workers_.find(worker_id);
  if (it == workers_.end()) return;
  if (it->second.pid > 0) ::kill(it->second.pid, SIGKILL);
  it->second.kill_on_pid = it->second.pid == 0;  // killed once the zygote says its pid
}

void WorkerPool::Close(Proc& p) {
  for (int i = 0; i < 2; ++i) {
    if (p.fds[i] >= 0) ::close(p.fds[i]);
    p.fds[i] = -1;
    if (p.log[i]) std::fclose(p.log[i]);
    p.log[i] = nullptr;
  }
}

}  // namespace ray::raylet
