#pragma once
// A fork server for workers. Starting a worker with fork and exec costs milliseconds
// of CPU: the kernel maps the `ray` binary and its libraries, and the dynamic linker
// relocates them. The zygote is a `ray _zygote` process the raylet starts once; it
// has paid that already, and forks each new worker from itself on request.
//
// A request is the worker's id (hex) with the write ends of its stdout and stderr
// pipes (SCM_RIGHTS) over a unix socket pair; the answer is the worker's pid. The
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

// Zygote side: serves requests on `fd` until the raylet closes it (nullopt). In a
// forked worker it returns that worker's id (hex): the caller then runs the worker.
std::optional<std::string> ServeZygote(int fd);

// Raylet side.
class Zygote {
 public:
  // Starts `binary _zygote --fd N <worker_args>`.
  static Result<std::unique_ptr<Zygote>> Start(const std::string& binary,
                                               const std::vector<std::string>& worker_args);
  ~Zygote();  // closes the socket: the zygote exits

  // A new worker with this id: its pid and the (non-blocking) reading ends of its
  // stdout and stderr.
  Result<Child> Fork(const std::string& worker_id_hex);

 private:
  Zygote(int fd, int pid) : fd_(fd), pid_(pid) {}
  int fd_;
  int pid_;
};

}  // namespace ray::raylet
