#include "tests/integration/ray_harness.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "runtime/base/util.h"

namespace ray::testing {

namespace fs = std::filesystem;

TempDir::TempDir() {
  char tmpl[] = "/tmp/ray-it-XXXXXX";
  if (::mkdtemp(tmpl) == nullptr) std::abort();
  path_ = tmpl;
}

TempDir::~TempDir() {
  std::error_code ec;
  fs::remove_all(path_, ec);
}

namespace {

// Runs argv[0] (found on PATH) with stdout and stderr sent to <base>.out / <base>.err.
pid_t Spawn(std::vector<std::string> argv, const std::string& base) {
  std::string out_path = base + ".out", err_path = base + ".err";
  pid_t pid = ::fork();
  if (pid == 0) {
    int out = ::open(out_path.c_str(), O_CREAT | O_TRUNC | O_WRONLY, 0644);
    int err = ::open(err_path.c_str(), O_CREAT | O_TRUNC | O_WRONLY, 0644);
    if (out < 0 || err < 0) ::_exit(126);
    ::dup2(out, 1);
    ::dup2(err, 2);
    std::vector<char*> cargv;
    for (auto& a : argv) cargv.push_back(a.data());
    cargv.push_back(nullptr);
    ::execvp(cargv[0], cargv.data());
    ::_exit(127);
  }
  return pid;
}

std::string NextBase(const std::string& scratch_dir) {
  static int counter = 0;
  return scratch_dir + "/run-" + std::to_string(++counter);
}

}  // namespace

std::string SpawnedOutput(const std::string& scratch_dir, const std::string& suffix) {
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(scratch_dir, ec)) {
    if (e.path().extension() == suffix) return ReadText(e.path());
  }
  return "";
}

int SpawnRay(const std::vector<std::string>& args, const std::string& scratch_dir) {
  std::vector<std::string> argv{RAY_BINARY};
  argv.insert(argv.end(), args.begin(), args.end());
  return Spawn(argv, NextBase(scratch_dir));
}

RunResult RunCommand(std::vector<std::string> argv, const std::string& scratch_dir,
                     int timeout_s) {
  std::string base = NextBase(scratch_dir);
  argv.insert(argv.begin(), {"timeout", "-k", "5", std::to_string(timeout_s)});
  pid_t pid = Spawn(argv, base);
  RunResult r;
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  r.out = ReadText(base + ".out");
  r.err = ReadText(base + ".err");
  return r;
}

RunResult RunRay(const std::vector<std::string>& args, const std::string& scratch_dir,
                 int timeout_s) {
  std::vector<std::string> argv{RAY_BINARY};
  argv.insert(argv.end(), args.begin(), args.end());
  return RunCommand(std::move(argv), scratch_dir, timeout_s);
}

std::string ReadText(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string KeyValue(const std::string& out, const std::string& key) {
  std::istringstream in(out);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(key + "=", 0) == 0) return line.substr(key.size() + 1);
  }
  return "";
}

std::vector<int> ProcessesMentioning(const std::string& text) {
  std::vector<int> out;
  DIR* proc = ::opendir("/proc");
  if (!proc) return out;
  while (dirent* e = ::readdir(proc)) {
    char* end = nullptr;
    long pid = std::strtol(e->d_name, &end, 10);
    if (*end != '\0' || pid <= 0 || pid == ::getpid()) continue;
    std::string cmdline = ProcessCmdline(static_cast<int>(pid));
    if (cmdline.find(text) == std::string::npos) continue;
    // A zombie has no command line; one that still has one is alive.
    out.push_back(static_cast<int>(pid));
  }
  ::closedir(proc);
  return out;
}

std::vector<int> AwaitNoProcessesMentioning(const std::string& text, int timeout_ms) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  while (true) {
    auto pids = ProcessesMentioning(text);
    if (pids.empty() || std::chrono::steady_clock::now() > deadline) return pids;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

std::vector<std::string> Sessions(const std::string& temp_dir) {
  std::vector<std::string> out;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(temp_dir, ec)) {
    if (entry.is_symlink() || !entry.is_directory()) continue;
    if (entry.path().filename().string().rfind("session_", 0) == 0) out.push_back(entry.path());
  }
  return out;
}

std::vector<std::string> SegmentsOfSessions(const std::string& temp_dir) {
  std::vector<std::string> prefixes;
  // A node's segments are "/ray-<tag>-<object id>", its tag starting with the hash of
  // the session dir (runtime/raylet/raylet.cc).
  for (const auto& s : Sessions(temp_dir)) prefixes.push_back("ray-" + ContentHash(s).substr(0, 8));
  std::vector<std::string> out;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator("/dev/shm", ec)) {
    std::string name = entry.path().filename();
    for (const auto& p : prefixes) {
      if (name.rfind(p, 0) == 0) out.push_back(name);
    }
  }
  return out;
}

std::vector<std::string> ObjectSegmentsOfSessions(const std::string& temp_dir) {
  auto out = SegmentsOfSessions(temp_dir);
  std::erase_if(out, [](const std::string& name) { return name.ends_with("-index"); });
  return out;
}

int CountLines(const std::string& text, const std::string& needle) {
  std::istringstream in(text);
  std::string line;
  int n = 0;
  while (std::getline(in, line)) n += line.find(needle) != std::string::npos;
  return n;
}

}  // namespace ray::testing
