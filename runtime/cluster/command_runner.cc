#include "runtime/cluster/command_runner.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <map>
#include <cstring>
#include <deque>
#include <filesystem>

#include <fmt/format.h>

#include "runtime/base/util.h"

namespace ray::cluster {

namespace {

constexpr size_t kTailLines = 40;

// Collects output into lines: each goes to the callback, the last few stay.
class LineSink {
 public:
  explicit LineSink(const LineFn& on_line) : on_line_(on_line) {}
  void Add(std::string_view bytes) {
    partial_.append(bytes);
    size_t nl;
    while ((nl = partial_.find('\n')) != std::string::npos) {
      Line(partial_.substr(0, nl));
      partial_.erase(0, nl + 1);
    }
  }
  std::string Finish() {
    if (!partial_.empty()) Line(partial_);
    partial_.clear();
    std::string out;
    for (const auto& l : tail_) out += l + "\n";
    return out;
  }

 private:
  void Line(std::string line) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (on_line_) on_line_(line);
    tail_.push_back(std::move(line));
    if (tail_.size() > kTailLines) tail_.pop_front();
  }
  const LineFn& on_line_;
  std::string partial_;
  std::deque<std::string> tail_;
};

std::string Join(const std::vector<std::string>& argv) {
  std::string s;
  for (const auto& a : argv) s += (s.empty() ? "" : " ") + a;
  return s;
}

// The script a node's bash runs: its environment, then the command.
std::string Script(const Env& env, const std::string& command) {
  std::string s = fmt::format("export PATH=\"$HOME/{}/bin:$PATH\"; ", kRemoteRuntimeDir);
  for (const auto& [k, v] : env) {
    // A value under $HOME expands on the node.
    bool home = v.rfind("$HOME/", 0) == 0;
    s += fmt::format("export {}={}{}; ", k, home ? "\"$HOME\"/" : "",
                     ShellQuote(home ? v.substr(6) : v));
  }
  return s + command;
}

// The directory of ssh's shared connections: /tmp/ray_ssh_<uid>, made here with mode
// 0700 and used only if it is this user's own directory with that mode (another user
// could otherwise plant a socket there and see what goes through it); else one
// under ~/.ray.
std::string ControlDir() {
  std::string dir = fmt::format("/tmp/ray_ssh_{}", ::geteuid());
  ::mkdir(dir.c_str(), 0700);
  struct stat st{};
  if (::lstat(dir.c_str(), &st) == 0 && S_ISDIR(st.st_mode) && st.st_uid == ::geteuid() &&
      (st.st_mode & 0777) == 0700) {
    return dir;
  }
  dir = ExpandUser("~/.ray/ssh");
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  ::chmod(dir.c_str(), 0700);
  return dir;
}

class SshRunner : public CommandRunner {
 public:
  SshRunner(SshTarget t, Env env) : t_(std::move(t)), env_(std::move(env)) {
    env_.emplace("RAY_CLUSTER_TOKEN_FILE", std::string("$HOME/") + kRemoteTokenFile);
  }

  Result<CommandResult> Run(const std::string& command, int timeout_s,
                            const LineFn& on_line) override {
    auto argv = Ssh(false, {});
    argv.push_back(Login() + " " + ShellQuote(Script(env_, command)));
    RAY_ASSIGN_OR_RETURN(CommandResult r, RunProcess(argv, {}, timeout_s, on_line));
    if (r.exit_code == 255) {  // ssh's own failure: the host, not the command
      return Status::Unavailable(fmt::format("cannot reach {} over ssh: {}", Describe(),
                                             LastLine(r.tail)));
    }
    return r;
  }

  Status RsyncUp(const std::string& local, const std::string& remote, int timeout_s) override {
    std::string dir = std::filesystem::path(remote).parent_path().string();
    if (!dir.empty()) {
      RAY_ASSIGN_OR_RETURN(CommandResult mk, Run("mkdir -p " + RemotePath(dir), timeout_s, nullptr));
      if (mk.exit_code != 0) {
        return Status::Internal(fmt::format("mkdir -p {} on {}: {}", dir, Describe(), mk.tail));
      }
    }
    bool is_dir = std::filesystem::is_directory(local);
    return Rsync(is_dir ? local + "/" : local, Host() + ":" + remote + (is_dir ? "/" : ""),
                 timeout_s);
  }

  // rsync passes remote paths to the remote rsync as they are (no shell; ~ expands).
  Status RsyncDown(const std::string& remote, const std::string& local, int timeout_s) override {
    return Rsync(Host() + ":" + remote, local, timeout_s);
  }

  std::vector<std::string> InteractiveArgv(const std::string& command,
                                           const std::vector<int>& ports) const override {
    auto argv = Ssh(true, ports);
    argv.push_back(Login() + " " + ShellQuote(Script(env_, command)));
    return argv;
  }

  std::string Describe() const override { return Host(); }

  // A connection of its own (a forward through the shared one would end with this
  // ssh), that fails rather than runs without the forward.
  std::vector<std::string> ForwardArgv(int local_port, int remote_port) const override {
    std::vector<std::string> argv = {"ssh", "-N", "-o", "ControlMaster=no", "-o",
                                     "ControlPath=none", "-o", "ExitOnForwardFailure=yes", "-L",
                                     fmt::format("127.0.0.1:{}:127.0.0.1:{}", local_port,
                                                 remote_port)};
    auto o = Options();  // ssh takes an option's first value: the ones above stand
    argv.insert(argv.end(), o.begin(), o.end());
    argv.push_back(Host());
    return argv;
  }

 private:
  std::string Host() const { return t_.user + "@" + t_.ip; }
  static std::string Login() { return "bash --login -c"; }
  // ~ must reach the remote shell unquoted to expand there.
  static std::string RemotePath(const std::string& p) {
    if (p.rfind("~/", 0) == 0) return "~/" + ShellQuote(p.substr(2));
    return ShellQuote(p);
  }
  static std::string LastLine(const std::string& tail) {
    std::string t = tail;
    while (!t.empty() && t.back() == '\n') t.pop_back();
    return t.substr(t.rfind('\n') == std::string::npos ? 0 : t.rfind('\n') + 1);
  }

  std::vector<std::string> Options() const {
    // One connection per host, kept 10 s; its socket path hashed short (the limit of
    // a Unix socket path is 107 bytes).
    std::string control = ControlDir() + "/" + ContentHash(t_.cluster_name).substr(0, 8);
    ::mkdir(control.c_str(), 0700);
    std::vector<std::string> o = {"-o", "StrictHostKeyChecking=no",
                                  "-o", "UserKnownHostsFile=/dev/null",
                                  "-o", "LogLevel=ERROR",
                                  "-o", "BatchMode=yes",
                                  "-o", "ConnectTimeout=10",
                                  "-o", "ServerAliveInterval=5",
                                  "-o", "ServerAliveCountMax=3",
                                  "-o", "ControlMaster=auto",
                                  "-o", "ControlPath=" + control + "/%C",
                                  "-o", "ControlPersist=10s"};
    if (!t_.private_key.empty()) {
      o.insert(o.end(), {"-o", "IdentitiesOnly=yes", "-i", t_.private_key});
    }
    return o;
  }

  std::vector<std::string> Ssh(bool tty, const std::vector<int>& ports) const {
    std::vector<std::string> argv = {"ssh"};
    auto o = Options();
    argv.insert(argv.end(), o.begin(), o.end());
    if (tty) argv.push_back("-tt");
    for (int p : ports) {
      argv.insert(argv.end(), {"-L", fmt::format("{}:localhost:{}", p, p)});
    }
    argv.push_back(Host());
    return argv;
  }

  Status Rsync(const std::string& from, const std::string& to, int timeout_s) {
    std::string ssh = "ssh";
    for (const auto& o : Options()) ssh += " " + ShellQuote(o);
    std::vector<std::string> argv = {"rsync", "-a", "--delete", "--copy-unsafe-links", "-e", ssh, from, to};
    RAY_ASSIGN_OR_RETURN(CommandResult r, RunProcess(argv, {}, timeout_s));
    if (r.exit_code != 0) {
      return Status::Unavailable(
          fmt::format("rsync {} -> {} failed (exit {}): {}", from, to, r.exit_code, r.tail));
    }
    return Status::Ok();
  }

  SshTarget t_;
  Env env_;
};

class LocalRunner : public CommandRunner {
 public:
  LocalRunner(std::string home, Env env) : home_(std::move(home)), env_(std::move(env)) {
    env_["HOME"] = home_;
    env_["RAY_TMPDIR"] = home_ + "/tmp";
    env_.emplace("RAY_CLUSTER_TOKEN_FILE", home_ + "/" + kRemoteTokenFile);
    std::error_code ec;
    std::filesystem::create_directories(home_ + "/tmp", ec);
  }

  Result<CommandResult> Run(const std::string& command, int timeout_s,
                            const LineFn& on_line) override {
    return RunProcess({"bash", "-c", Script({}, command)}, env_, timeout_s, on_line);
  }

  Status RsyncUp(const std::string& local, const std::string& remote, int timeout_s) override {
    return Copy(local, Here(remote), timeout_s);
  }
  Status RsyncDown(const std::string& remote, const std::string& local, int timeout_s) override {
    return Copy(Here(remote), local, timeout_s);
  }

  std::vector<std::string> InteractiveArgv(const std::string& command,
                                           const std::vector<int>&) const override {
    std::vector<std::string> argv = {"env"};
    for (const auto& [k, v] : env_) argv.push_back(k + "=" + v);
    argv.insert(argv.end(), {"bash", "-c", Script({}, command)});
    return argv;
  }

  std::string Describe() const override { return "the local node in " + home_; }

 private:
  std::string Here(const std::string& p) const { return ExpandUser(p, home_); }
  Status Copy(const std::string& from, const std::string& to, int timeout_s) {
    std::error_code ec;
    std::filesystem::create_directories(std::filesystem::path(to).parent_path(), ec);
    bool is_dir = std::filesystem::is_directory(from);
    RAY_ASSIGN_OR_RETURN(CommandResult r,
                         RunProcess({"rsync", "-a", "--delete", "--copy-unsafe-links", is_dir ? from + "/" : from, to},
                                    {}, timeout_s));
    if (r.exit_code != 0) {
      return Status::Internal(fmt::format("copying {} to {} failed: {}", from, to, r.tail));
    }
    return Status::Ok();
  }

  std::string home_;
  Env env_;
};

}  // namespace

std::string ShellQuote(const std::string& s) {
  std::string out = "'";
  for (char c : s) {
    if (c == '\'') {
      out += "'\\''";
    } else {
      out += c;
    }
  }
  return out + "'";
}

Result<CommandResult> RunProcess(const std::vector<std::string>& argv, const Env& env,
                                 int timeout_s, const LineFn& on_line) {
  if (argv.empty()) return Status::InvalidArgument("empty command");
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) return Status::ResourceExhausted(std::strerror(errno));
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  // The child's environment, made before fork: after it, only async-signal-safe calls.
  std::map<std::string, std::string> vars;
  for (char** e = environ; *e != nullptr; ++e) {
    std::string_view kv = *e;
    size_t eq = kv.find('=');
    if (eq != std::string_view::npos) vars[std::string(kv.substr(0, eq))] = std::string(kv.substr(eq + 1));
  }
  for (const auto& [k, v] : env) vars[k] = v;
  std::vector<std::string> env_strings;
  for (const auto& [k, v] : vars) env_strings.push_back(k + "=" + v);
  std::vector<char*> envp;
  for (auto& e : env_strings) envp.push_back(e.data());
  envp.push_back(nullptr);
  std::string exec_failed = "cannot run " + argv[0] + "\n";
  pid_t parent_pid = ::getpid();
  pid_t pid = ::fork();
  if (pid < 0) {
    ::close(fds[0]);
    ::close(fds[1]);
    return Status::ResourceExhausted(std::string("fork: ") + std::strerror(errno));
  }
  if (pid == 0) {
    ::setpgid(0, 0);  // its own group: a deadline kills everything it started
    // Dies with its caller (an autoscaler killed mid-setup leaves no ssh behind).
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent_pid) ::_exit(1);
    ::dup2(fds[1], 1);
    ::dup2(fds[1], 2);
    int devnull = ::open("/dev/null", O_RDONLY);
    if (devnull >= 0) ::dup2(devnull, 0);
    sigset_t none;
    sigemptyset(&none);
    ::sigprocmask(SIG_SETMASK, &none, nullptr);
    ::signal(SIGPIPE, SIG_DFL);
    ::execvpe(args[0], args.data(), envp.data());
    (void)!::write(2, exec_failed.data(), exec_failed.size());
    ::_exit(127);
  }
  ::close(fds[1]);
  LineSink sink(on_line);
  int64_t deadline = MonoMillis() + int64_t{timeout_s} * 1000;
  int64_t exited_at = 0;
  int status = 0;
  bool reaped = false, eof = false, timed_out = false;
  char buf[8192];
  while (!(reaped && eof)) {
    int64_t now = MonoMillis();
    if (now >= deadline) {
      timed_out = true;
      break;
    }
    // After it exits, whatever it left holding the pipe gets 2 s to finish.
    if (reaped && now - exited_at > 2000) break;
    int wait_ms = static_cast<int>(std::min<int64_t>(100, deadline - now));
    pollfd p{fds[0], POLLIN, 0};
    if (!eof && ::poll(&p, 1, wait_ms) > 0) {
      ssize_t n = ::read(fds[0], buf, sizeof(buf));
      if (n > 0) sink.Add(std::string_view(buf, static_cast<size_t>(n)));
      if (n == 0) eof = true;
    } else if (eof) {
      ::usleep(static_cast<useconds_t>(std::min(wait_ms, 20)) * 1000);
    }
    if (!reaped && ::waitpid(pid, &status, WNOHANG) == pid) {
      reaped = true;
      exited_at = MonoMillis();
    }
  }
  ::close(fds[0]);
  std::string tail = sink.Finish();
  if (timed_out || !reaped) {
    ::kill(-pid, SIGKILL);  // its group: whatever it started
    if (!reaped) ::waitpid(pid, &status, 0);
    if (timed_out) {
      return Status::DeadlineExceeded(
          fmt::format("`{}` did not finish within {} s; its last output:\n{}", Join(argv),
                      timeout_s, tail));
    }
  }
  CommandResult r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  r.tail = std::move(tail);
  return r;
}

std::unique_ptr<CommandRunner> MakeSshRunner(const SshTarget& target, Env env) {
  return std::make_unique<SshRunner>(target, std::move(env));
}

std::unique_ptr<CommandRunner> MakeLocalRunner(const std::string& home, Env env) {
  return std::make_unique<LocalRunner>(home, std::move(env));
}

}  // namespace ray::cluster
