#pragma once
// Starting child processes (output to files, or to pipes the parent reads), and
// looking at processes.

#include <map>
#include <string>
#include <vector>

#include "runtime/base/status.h"

namespace ray {

struct SpawnOptions {
  std::vector<std::string> argv;  // argv[0] is the executable path
  std::string stdout_path;        // append; empty: inherit (unless pipe_output)
  std::string stderr_path;
  bool pipe_output = false;       // stdout/stderr to pipes returned in Child
  bool new_session = false;       // setsid(): survives the parent's terminal
  // Signal sent to the child when the parent dies (PR_SET_PDEATHSIG); 0: none.
  // Daemons that clean up on SIGTERM take SIGTERM; workers SIGKILL.
  int parent_death_signal = 0;
  std::map<std::string, std::string> env;  // added to the inherited environment
};

struct Child {
  int pid = -1;
  int stdout_fd = -1;  // non-blocking, when pipe_output
  int stderr_fd = -1;
};

Result<Child> Spawn(const SpawnOptions& options);

// Sends SIGTERM, waits up to grace_ms for exit, then SIGKILL. Reaps it if it is our
// child. True if the process is gone.
bool TerminateProcess(int pid, int grace_ms = 2000);

// Whether the process exists and is not a zombie.
bool ProcessAlive(int pid);
// The process's command line with NULs turned into spaces ("" if gone).
std::string ProcessCmdline(int pid);

}  // namespace ray
