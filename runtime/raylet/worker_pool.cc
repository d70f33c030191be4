#include "runtime/raylet/worker_pool.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "runtime/base/logging.h"
#include "runtime/base/process.h"
#include "runtime/base/util.h"

namespace ray::raylet {

WorkerPool::WorkerPool(WorkerPoolOptions options, OutputSink sink)
    : options_(std::move(options)), sink_(std::move(sink)) {}

WorkerPool::~WorkerPool() {
  zygote_.reset();  // it exits when its socket closes
  for (auto& [id, p] : workers_) ::kill(p.pid, SIGKILL);
  for (auto& [id, p] : workers_) {
    int status;
    ::waitpid(p.pid, &status, 0);
    Close(p);
  }
}

Result<Child> WorkerPool::Launch(const std::string& hex) {
  std::vector<std::string> flags{"--raylet", options_.raylet_endpoint, "--session-dir",
                                 options_.session_dir, "--node-id", options_.node_id_hex};
  if (!zygote_failed_) {
    if (!zygote_) {
      auto started = Zygote::Start(options_.ray_binary, flags);
      if (started.ok()) zygote_ = std::move(started).value();
    }
    if (zygote_) {
      auto child = zygote_->Fork(hex);
      if (child.ok()) return child;
      RAY_LOG_WARN("{}; starting workers with fork and exec from now on",
                   child.status().message());
    }
    zygote_.reset();
    zygote_failed_ = true;
  }
  SpawnOptions spawn;
  spawn.argv = {options_.ray_binary, "_worker", "--worker-id", hex};
  spawn.argv.insert(spawn.argv.end(), flags.begin(), flags.end());
  spawn.pipe_output = true;
  spawn.parent_death_signal = SIGKILL;
  return Spawn(spawn);
}

Result<std::string> WorkerPool::Start() {
  std::string id = RandomBytes(16);
  std::string hex = ToHex(id);
  RAY_ASSIGN_OR_RETURN(Child child, Launch(hex));
  // The log files are made when the worker first writes (most never do).
  Proc p{child.pid, {child.stdout_fd, child.stderr_fd}, {}, {nullptr, nullptr}};
  workers_.emplace(id, std::move(p));
  return id;
}

void WorkerPool::AddPollItems(std::vector<zmq::pollitem_t>& items) const {
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
  for (auto& [id, p] : workers_) {
    Drain(id, p, 0, false);
    Drain(id, p, 1, false);
  }
}

std::vector<WorkerPool::Exit> WorkerPool::Reap() {
  std::vector<Exit> exits;
  int status;
  pid_t pid;
  while ((pid = ::waitpid(-1, &status, WNOHANG)) > 0) {
    for (auto it = workers_.begin(); it != workers_.end(); ++it) {
      if (it->second.pid != pid) continue;
      Drain(it->first, it->second, 0, true);
      Drain(it->first, it->second, 1, true);
      Close(it->second);
      std::string how = WIFSIGNALED(status) ? "signal " + std::to_string(WTERMSIG(status))
                                            : "exit code " + std::to_string(WEXITSTATUS(status));
      exits.push_back({it->first, pid, how});
      workers_.erase(it);
      break;
    }
  }
  return exits;
}

void WorkerPool::Kill(const std::string& worker_id) {
  auto it = workers_.find(worker_id);
  if (it != workers_.end()) ::kill(it->second.pid, SIGKILL);
}

int WorkerPool::Pid(const std::string& worker_id) const {
  auto it = workers_.find(worker_id);
  return it == workers_.end() ? -1 : it->second.pid;
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
