#include "runtime/base/process.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <thread>

#include "runtime/base/fs.h"

#include "runtime/base/util.h"

namespace ray {

Result<Child> Spawn(const SpawnOptions& options) {
  if (options.argv.empty()) return Status::InvalidArgument("empty argv");
  int out_pipe[2] = {-1, -1}, err_pipe[2] = {-1, -1};
  if (options.pipe_output && (::pipe2(out_pipe, O_CLOEXEC) != 0 || ::pipe2(err_pipe, O_CLOEXEC) != 0)) {
    std::string err = std::strerror(errno);
    for (int fd : {out_pipe[0], out_pipe[1]}) {
      if (fd >= 0) ::close(fd);
    }
    return Status::ResourceExhausted("pipe: " + err);
  }
  std::vector<std::string> env_strings;
  for (const auto& [k, v] : options.env) env_strings.push_back(k + "=" + v);
  std::vector<char*> argv;
  for (const auto& a : options.argv) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  pid_t parent = ::getpid();

  pid_t pid = ::fork();
  if (pid < 0) {
    std::string err = std::strerror(errno);
    for (int fd : {out_pipe[0], out_pipe[1], err_pipe[0], err_pipe[1]}) {
      if (fd >= 0) ::close(fd);
    }
    return Status::ResourceExhausted("fork: " + err);
  }
  if (pid == 0) {
    if (options.new_session) ::setsid();
    if (options.parent_death_signal != 0) {
      ::prctl(PR_SET_PDEATHSIG, options.parent_death_signal);
      if (::getppid() != parent) ::_exit(1);
    }
    auto redirect = [](const std::string& path, int fd) {
      int f = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
      if (f >= 0) {
        ::dup2(f, fd);
        ::close(f);
      }
    };
    if (options.pipe_output) {
      ::dup2(out_pipe[1], 1);
      ::dup2(err_pipe[1], 2);
    } else {
      if (!options.stdout_path.empty()) redirect(options.stdout_path, 1);
      if (!options.stderr_path.empty()) redirect(options.stderr_path, 2);
    }
    int devnull = ::open("/dev/null", O_RDONLY | O_CLOEXEC);  // only the dup survives exec
    if (devnull >= 0) ::dup2(devnull, 0);
    for (const auto& e : env_strings) ::putenv(const_cast<char*>(e.c_str()));
    // Reset signal state inherited from the parent.
    sigset_t none;
    sigemptyset(&none);
    ::sigprocmask(SIG_SETMASK, &none, nullptr);
    ::signal(SIGPIPE, SIG_DFL);
    ::execv(argv[0], argv.data());
    std::fprintf(stderr, "cannot exec %s: %s\n", argv[0], std::strerror(errno));
    ::_exit(127);
  }
  Child child;
  child.pid = pid;
  if (options.pipe_output) {
    ::close(out_pipe[1]);
    ::close(err_pipe[1]);
    child.stdout_fd = out_pipe[0];
    child.stderr_fd = err_pipe[0];
    ::fcntl(child.stdout_fd, F_SETFL, O_NONBLOCK);
    ::fcntl(child.stderr_fd, F_SETFL, O_NONBLOCK);
  }
  return child;
}

bool TerminateProcess(int pid, int grace_ms) {
  if (pid <= 0) return true;
  // Our child is gone once waitpid reaps it (asking ProcessAlive instead could see
  // it die between the two checks and leave a zombie); another process is gone once
  // it is no longer alive.
  auto gone = [pid] {
    int status;
    pid_t r = ::waitpid(pid, &status, WNOHANG);
    if (r == pid) return true;
    if (r < 0 && errno == ECHILD) return !ProcessAlive(pid);
    return false;
  };
  ::kill(pid, SIGTERM);
  for (int waited = 0; waited < grace_ms; waited += 10) {
    if (gone()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ::kill(pid, SIGKILL);
  for (int waited = 0; waited < 2000; waited += 10) {
    if (gone()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return false;
}

bool ProcessAlive(int pid) {
  if (pid <= 0) return false;
  if (::kill(pid, 0) != 0 && errno == ESRCH) return false;
  // A zombie is not alive for our purposes.
  auto stat = ReadFile("/proc/" + std::to_string(pid) + "/stat");
  if (!stat.ok()) return false;
  auto close_paren = stat->rfind(')');
  return close_paren == std::string::npos || close_paren + 2 >= stat->size() ||
         (*stat)[close_paren + 2] != 'Z';
}

std::string ProcessCmdline(int pid) {
  auto cmd = ReadFile("/proc/" + std::to_string(pid) + "/cmdline");
  if (!cmd.ok()) return "";
  std::string s = std::move(cmd).value();
  for (char& c : s) {
    if (c == '\0') c = ' ';
  }
  return s;
}

}  // namespace ray
