#pragma once
// Running commands on a cluster's node: over ssh (real hosts), or on this machine
// in a directory standing for the node (fake_multinode). The launcher's
// NodeUpdater, `ray exec/attach/submit/rsync-*` and the autoscaler go through this.
//
// Every run is bounded by a deadline; output streams to a callback line by line and
// its tail is kept for error messages. Commands run in bash (a login bash over ssh)
// with the node's environment exported first: RAY_HEAD_IP, RAY_CLUSTER_TOKEN_FILE, and PATH
// beginning with the shipped ray (~/.ray/runtime/bin).

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "runtime/base/status.h"

namespace ray::cluster {

using Env = std::map<std::string, std::string>;
using LineFn = std::function<void(const std::string& line)>;

struct CommandResult {
  int exit_code = -1;
  std::string tail;  // the last lines of its output (stdout and stderr together)
};

// Where ray goes on a node, relative to its home, and the token file.
inline constexpr const char* kRemoteRuntimeDir = ".ray/runtime";
inline constexpr const char* kRemoteTokenFile = ".ray/cluster_token";

class CommandRunner {
 public:
  virtual ~CommandRunner() = default;
  // Runs `command` with bash on the node. DeadlineExceeded after `timeout_s`
  // (the command is killed); Unavailable when the node cannot be reached.
  virtual Result<CommandResult> Run(const std::string& command, int timeout_s,
                                    const LineFn& on_line = nullptr) = 0;
  // Copies a local file or directory (its contents, with --delete) to `remote`
  // (~ is the node's home); the remote parent directory is made first.
  virtual Status RsyncUp(const std::string& local, const std::string& remote, int timeout_s) = 0;
  virtual Status RsyncDown(const std::string& remote, const std::string& local, int timeout_s) = 0;
  // argv that runs `command` on the node attached to this terminal (a tty),
  // forwarding `ports` to the same local ports: for exec with a terminal and attach.
  virtual std::vector<std::string> InteractiveArgv(const std::string& command,
                                                   const std::vector<int>& ports) const = 0;
  // argv that forwards 127.0.0.1:`local_port` here to port `remote_port` on the
  // node's loopback until it is stopped (`ray dashboard`); empty when the node is
  // this machine and needs no forward.
  virtual std::vector<std::string> ForwardArgv(int local_port, int remote_port) const {
    (void)local_port, (void)remote_port;
    return {};
  }
  // "root@10.0.0.2", "the local node at /home/u/.ray/...": for messages.
  virtual std::string Describe() const = 0;
};

struct SshTarget {
  std::string ip;
  std::string user;
  std::string private_key;  // "" : ssh's default identities
  std::string cluster_name;  // keys the shared ssh connection's socket
};

// ssh and rsync over ssh, sharing one connection per host (ControlMaster, with a
// short, hashed ControlPath). Host keys are not checked: launched hosts are new.
std::unique_ptr<CommandRunner> MakeSshRunner(const SshTarget& target, Env env);
// bash on this machine with HOME=`home` and RAY_TMPDIR=`home`/tmp: the fake
// node's "host".
std::unique_ptr<CommandRunner> MakeLocalRunner(const std::string& home, Env env);

// Runs argv (argv[0] looked up on PATH) with `env` added, output merged and
// streamed; bounded. Used by the runners; exposed for the launcher's local steps.
Result<CommandResult> RunProcess(const std::vector<std::string>& argv, const Env& env,
                                 int timeout_s, const LineFn& on_line = nullptr);

// `s` quoted for a POSIX shell.
std::string ShellQuote(const std::string& s);

}  // namespace ray::cluster
