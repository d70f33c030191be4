#pragma once
// What the cluster benchmarks of tests/bench share: running the real `ray` binary, a
// head node of their own, the processes of a node, and the table they print (each
// figure beside its goal).
//
// Failures throw std::runtime_error naming the log to read; a bench's main catches
// it, so that the HeadNode on its stack is stopped on the way out.

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "runtime/base/process.h"
#include "tests/test_util/proc_memory.h"

namespace ray::bench {

using test_util::StatusKib;

[[noreturn]] inline void Fail(const std::string& what) { throw std::runtime_error(what); }

struct Ran {
  int exit_code = -1;  // 128 + signal if killed
  double seconds = 0;  // from launch to exit
};

// Runs `ray <args...>` to completion, stdout and stderr appended to `log`.
inline Ran RunRay(const std::vector<std::string>& args, const std::string& log) {
  SpawnOptions spawn;
  spawn.argv = {RAY_BINARY};
  spawn.argv.insert(spawn.argv.end(), args.begin(), args.end());
  spawn.stdout_path = spawn.stderr_path = log;
  const auto begin = std::chrono::steady_clock::now();
  auto child = Spawn(spawn);
  if (!child.ok()) Fail("cannot run " + std::string(RAY_BINARY) + ": " + child.status().message());
  int status = 0;
  while (::waitpid(child->pid, &status, 0) < 0 && errno == EINTR) {
  }
  Ran r;
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return r;
}

// The value of the last "key=value" line of `text`, or "".
inline std::string KeyValue(const std::string& text, const std::string& key) {
  std::istringstream in(text);
  std::string value;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind(key + "=", 0) == 0) value = line.substr(key.size() + 1);
  }
  return value;
}

// Children of `parent` whose command line contains `mark` (" _worker": a node's
// workers are `ray _worker ...` processes started by its raylet).
inline std::vector<pid_t> ChildrenOf(pid_t parent, const std::string& mark) {
  std::vector<pid_t> out;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator("/proc", ec)) {
    const std::string name = entry.path().filename();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream stat(entry.path() / "stat");
    std::string line;
    std::getline(stat, line);
    // "pid (comm) state ppid ...": comm may hold spaces, so read after the last ')'.
    std::istringstream after(line.substr(line.rfind(')') + 1));
    std::string state;
    pid_t ppid = 0;
    if (!(after >> state >> ppid) || ppid != parent) continue;
    std::ifstream cmdline(entry.path() / "cmdline");
    std::string args((std::istreambuf_iterator<char>(cmdline)), std::istreambuf_iterator<char>());
    std::replace(args.begin(), args.end(), '\0', ' ');
    if (args.find(mark) != std::string::npos) out.push_back(std::stoi(name));
  }
  return out;
}

inline double Median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

// A head node (`ray start --head --port 0`) under a fresh temp dir, so that clusters
// others run on this machine are neither used nor stopped. Its commands' output goes
// to <dir>/commands.log. Destruction stops it (`ray stop`) and removes the dir.
class HeadNode {
 public:
  // `flags` are added to `ray start` (e.g. {"--num-cpus", "4"}).
  explicit HeadNode(const std::vector<std::string>& flags = {}) {
    char dir[] = "/tmp/ray-bench-XXXXXX";
    if (::mkdtemp(dir) == nullptr) Fail("cannot create a temp dir under /tmp");
    dir_ = dir;
    log_ = dir_ + "/commands.log";
    std::vector<std::string> args{"start", "--head", "--port", "0", "--temp-dir", TempDir()};
    args.insert(args.end(), flags.begin(), flags.end());
    start_ = RunRay(args, log_);
    if (start_.exit_code != 0) Fail("`ray start --head` failed, see " + log_);
    std::ifstream record(TempDir() + "/session_latest/node.json");
    auto node = nlohmann::json::parse(record, nullptr, /*allow_exceptions=*/false);
    if (node.is_discarded()) Fail("no readable node.json under " + TempDir());
    raylet_pid_ = node.value("raylet_pid", 0);
    gcs_pid_ = node.value("gcs_pid", 0);  // the GCS's supervisor; the server runs as:
    std::ifstream server(TempDir() + "/session_latest/gcs.pid");
    if (pid_t pid = 0; server >> pid) gcs_pid_ = pid;
  }
  ~HeadNode() {
    Stop();
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }
  HeadNode(const HeadNode&) = delete;
  HeadNode& operator=(const HeadNode&) = delete;

  // How long `ray start --head` took: when it returns, the GCS and the raylet serve.
  double start_seconds() const { return start_.seconds; }
  pid_t raylet_pid() const { return raylet_pid_; }
  pid_t gcs_pid() const { return gcs_pid_; }

  struct Job {
    Ran ran;
    std::string output;  // stdout and stderr of `ray submit`
  };
  // Runs `plugin` as a job (`ray submit`); throws unless it exits 0.
  Job Submit(const std::string& plugin, const std::vector<std::string>& args) {
    std::string log = dir_ + "/job-" + std::to_string(++jobs_) + ".log";
    std::vector<std::string> submit{"submit", "--temp-dir", TempDir(), plugin};
    submit.insert(submit.end(), args.begin(), args.end());
    Job job{RunRay(submit, log), ""};
    std::ifstream in(log);
    job.output.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    if (job.ran.exit_code != 0) {
      Fail("the job exited with " + std::to_string(job.ran.exit_code) + ":\n" + job.output);
    }
    return job;
  }

  // `ray stop`: returns once the raylet (and with it its workers) and the GCS are gone.
  void Stop() {
    if (stopped_) return;
    stopped_ = true;
    RunRay({"stop", "--temp-dir", TempDir()}, log_);
  }

 private:
  std::string TempDir() const { return dir_ + "/cluster"; }

  std::string dir_, log_;
  Ran start_;
  pid_t raylet_pid_ = 0, gcs_pid_ = 0;
  int jobs_ = 0;
  bool stopped_ = false;
};

// Polls the workers of the raylet `raylet_pid` until at least `count` exist and none
// changed its resident size for a second: started, registered and waiting. Returns
// their pids; throws after `timeout_s`.
inline std::vector<pid_t> AwaitIdleWorkers(pid_t raylet_pid, size_t count, double timeout_s = 30) {
  constexpr auto kPoll = std::chrono::milliseconds(200);
  constexpr int kStablePolls = 5;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
  std::vector<pid_t> last;
  std::vector<int64_t> last_rss;
  int stable = 0;
  while (std::chrono::steady_clock::now() < deadline) {
    std::vector<pid_t> workers = ChildrenOf(raylet_pid, " _worker ");
    std::sort(workers.begin(), workers.end());
    std::vector<int64_t> rss;
    for (pid_t w : workers) rss.push_back(StatusKib(w, "VmRSS").value_or(-1));
    stable = workers.size() >= count && workers == last && rss == last_rss ? stable + 1 : 0;
    if (stable == kStablePolls) return workers;
    last = std::move(workers);
    last_rss = std::move(rss);
    std::this_thread::sleep_for(kPoll);
  }
  Fail(fmt::format("the raylet (pid {}) did not settle with {} idle workers within {} s",
                   raylet_pid, count, timeout_s));
}

// Sizes for the table: "123.4 MiB".
inline std::string Mib(double kib) { return fmt::format("{:.1f} MiB", kib / 1024); }

// The table every bench prints: a figure measured here beside its goal.
inline void PrintHeader(const std::string& title) {
  std::printf("%s\n  %-42s %22s %11s\n", title.c_str(), "", "here", "goal");
}
// `met`: whether the figure meets the goal; nullopt for figures without a goal.
inline void PrintRow(const std::string& metric, const std::string& here, const std::string& goal = "",
                     std::optional<bool> met = std::nullopt) {
  std::printf("  %-42s %22s %11s  %s\n", metric.c_str(), here.c_str(), goal.c_str(),
              !met ? "" : *met ? "met" : "NOT MET");
  std::fflush(stdout);
}

// main() of a bench with one optional count flag (`--runs N`, default `count`):
// usage on bad arguments (exit 2), the error of a failed run (exit 1).
inline int MainWithCount(int argc, char** argv, const std::string& flag, int count,
                         void (*run)(int)) {
  if (argc == 3 && argv[1] == flag) {
    count = std::atoi(argv[2]);
  } else if (argc != 1) {
    count = 0;
  }
  if (count <= 0) {
    std::fprintf(stderr, "usage: %s [%s N]\n", argv[0], flag.c_str());
    return 2;
  }
  try {
    run(count);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: %s\n", argv[0], e.what());
    return 1;
  }
  return 0;
}

}  // namespace ray::bench
