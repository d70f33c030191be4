#pragma once
// The raylet's worker processes: started on demand as `ray _worker`, their stdout
// and stderr read through pipes (written to logs/worker-<id>.out|err, made on the
// first write, and handed to a sink for drivers), reaped when they exit. Workers die
// with the raylet.

#include <cstdio>
#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include <zmq.hpp>

#include "runtime/base/clock.h"
#include "runtime/base/process.h"
#include "runtime/base/status.h"
#include "runtime/raylet/zygote.h"

namespace ray::raylet {

struct WorkerPoolOptions {
  std::string ray_binary;       // path of `ray`
  std::string raylet_endpoint;  // ipc:// endpoint workers connect to
  std::string session_dir;
  std::string node_id_hex;
  // What the waits for forked workers' pids read; null: the system clock (not owned).
  const Clock* clock = nullptr;
};

class WorkerPool {
 public:
  // (worker id, pid, text, is_stderr): text is whole lines.
  using OutputSink = std::function<void(const std::string&, int, std::string_view, bool)>;

  WorkerPool(WorkerPoolOptions options, OutputSink sink);
  ~WorkerPool();  // kills every worker

  // Starts a worker; returns its id (16 bytes), which it uses as its socket identity.
  Result<std::string> Start();
  // Fds to poll (pipes, and the zygote's answers), and the reading of whatever they
  // have.
  void AddPollItems(std::vector<zmq::pollitem_t>& items) const;
  void ReadOutput();
  struct Exit {
    std::string worker_id;
    int pid;
    std::string how;  // "exit code 3", "signal 9"
  };
  // Workers that exited since the last call.
  std::vector<Exit> Reap();
  void Kill(const std::string& worker_id);
  size_t size() const { return workers_.size(); }

 private:
  struct Proc {
    int pid;  // 0 while the zygote has not said
    int fds[2];
    std::string partial[2];
    FILE* log[2];
    bool kill_on_pid = false;  // Kill()ed before its pid was known
  };
  // A worker process: forked by the zygote (see zygote.h; its pid comes later), or
  // started with fork and exec if the zygote fails.
  Result<Child> Launch(const std::string& id);
  Result<Child> Spawn(const std::string& id);
  std::vector<std::string> WorkerFlags() const;
  // Reads the zygote's answers, waiting up to wait_ms for the oldest one due.
  void CollectPids(int wait_ms);
  // The answer to the oldest request: its pid, or -1 (it could not fork).
  void TakeAnswer(int pid);
  // Logs why, once, and kills the zygote; the workers it answered for run, the others
  // start with fork and exec, as does every worker from now on.
  void GiveUpZygote(const std::string& why);
  // Starts the worker again with fork and exec (or, when stopping or killed, reports
  // it as an exit).
  void Respawn(std::unordered_map<std::string, Proc>::iterator it, const std::string& why);
  void Drain(const std::string& id, Proc& p, int which, bool flush_partial);
  void Close(Proc& p);

  WorkerPoolOptions options_;
  const Clock& clock_;
  OutputSink sink_;
  std::unordered_map<std::string, Proc> workers_;
  std::unique_ptr<Zygote> zygote_;
  bool zygote_failed_ = false;
  bool stopping_ = false;  // in the destructor
  struct Forking {
    std::string id;  // raw
    int64_t asked_ms;
  };
  std::deque<Forking> forking_;  // the zygote's answers still due, oldest first
  std::vector<Exit> failed_;     // workers that could not start, for Reap
};

}  // namespace ray::raylet
