#pragma once
// A fork server for workers. Starting a worker with fork and exec costs milliseconds
// of CPU: the kernel maps the `ray` binary and its libraries, and the dynamic linker
// relocates them. The zygote is a `ray _zygote` process the raylet starts once; it
// has paid that already, and forks each new worker from itself on request.
//
// A request is the worker's id (hex) with the write ends of its stdout and stderr
// pipes (SCM_RIGHTS) over a unix socket pair; the answer is the worker's pid, read
// when it comes (the raylet does not wait for it). The
// zygote forks the worker as a child of its own parent (clone with CLONE_PARENT), so
// the raylet reaps and kills it like a worker it started itself, and the worker dies
// with the raylet (PR_SET_PDEATHSIG).

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "runtime/base/process.h"
#include "runtime/base/status.h"

namespace ray::raylet {

// Zygote side: serves requests on `fd` until the socket closes (nullopt; the raylet
// kills the zygote when it is done with it). In a forked worker it returns that
// worker's id (hex): the caller then runs the worker.
std::optional<std::string> ServeZygote(int fd);

// Raylet side.
class Zygote {
 public:
  // Starts `binary _zygote --fd N <worker_args>`.
  static Result<std::unique_ptr<Zygote>> Start(const std::string& binary,
                                               const std::vector<std::string>& worker_args);
  ~Zygote();  // ends the zygote

  // Asks for a new worker with this id. Returns the (non-blocking) reading ends of
  // its stdout and stderr; its pid is 0 until NextPid gives it.
  Result<Child> Fork(const std::string& worker_id_hex);
  // The socket to poll for answers.
  int fd() const { return fd_; }
  // The pid of the oldest fork not answered yet (answers come in the order of the
  // requests), waiting up to timeout_ms for it: 0 if none came, -1 if the zygote could
  // not fork that one, an error if the zygote is gone.
  Result<int> NextPid(int timeout_ms);
  // Kills the zygote; the answers it sent can still be read.
  void Kill();

 private:
  Zygote(int fd, int pid) : fd_(fd), pid_(pid) {}
  int fd_;
  int pid_;
};

}  // namespace ray::raylet
