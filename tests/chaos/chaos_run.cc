#include "tests/chaos/chaos_run.h"

#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <chrono>
#include <filesystem>
#include <random>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "runtime/base/process.h"
#include "tests/integration/ray_harness.h"

namespace ray::testing {
namespace {

using Clock = std::chrono::steady_clock;

long Value(const std::string& out, const std::string& key) {
  std::string v = KeyValue(out, key);
  return v.empty() ? -1 : std::atol(v.c_str());
}

// Lines containing `needle` in every raylet log under `dir`.
int CountInRayletLogs(const std::string& dir, const std::string& needle) {
  int n = 0;
  for (const auto& e : std::filesystem::recursive_directory_iterator(dir)) {
    if (e.path().filename() == "raylet.err") n += CountLines(ReadText(e.path()), needle);
  }
  return n;
}

// The pids of `node_dir`'s processes whose command line has `role` (e.g. " _worker ").
std::vector<int> Role(const std::string& node_dir, const std::string& role) {
  std::vector<int> out;
  for (int pid : ProcessesMentioning(node_dir)) {
    if (ProcessCmdline(pid).find(role) != std::string::npos) out.push_back(pid);
  }
  return out;
}

}  // namespace

ChaosReport RunChaos(const ChaosOptions& o, const std::string& dir) {
  ChaosReport r;
  std::string head = dir + "/head", job_dir = dir + "/job";
  ::mkdir(job_dir.c_str(), 0700);
  RunRay({"start", "--head", "--port", "0", "--num-cpus", "1", "--temp-dir", head,
          "--heartbeat-timeout-ms", "2000"},
         dir);
  auto status = RunRay({"status", "--json", "--temp-dir", head}, dir);
  std::string address = nlohmann::json::parse(status.out, nullptr, false).value("address", "");
  std::string token = ReadText(head + "/session_latest/token");
  std::vector<std::string> nodes;
  auto join = [&] {
    std::string node = dir + "/node" + std::to_string(nodes.size());
    RunRay({"start", "--address", address, "--token", token, "--num-cpus", "2", "--temp-dir", node},
           dir);
    nodes.push_back(node);
  };
  join();
  join();
  std::vector<std::string> all = {head, nodes[0], nodes[1]};

  auto start = Clock::now();
  int job = SpawnRay({"submit", "--address", address, "--temp-dir", head, CHAOS_PLUGIN,
                      std::to_string(o.seconds), std::to_string(o.max_object)},
                     job_dir);
  std::mt19937 rng(o.seed);
  auto elapsed_ms = [&] {
    return std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start).count();
  };
  int64_t next_fault = o.fault_interval_ms;
  bool node_done = !o.kill_node, gcs_done = !o.kill_gcs;
  int status_code = 0;
  int64_t bound_ms = (o.seconds + o.bound_s) * 1000LL;
  while (::waitpid(job, &status_code, WNOHANG) == 0) {
    if (elapsed_ms() > bound_ms) {
      ::kill(job, SIGKILL);
      ::waitpid(job, &status_code, 0);
      break;
    }
    int64_t now = elapsed_ms();
    if (now < o.seconds * 1000LL && now >= next_fault) {
      next_fault = now + o.fault_interval_ms;
      if (!gcs_done && now >= o.seconds * 1000LL / 3) {
        for (int pid : Role(head, " _gcs ")) r.gcs_killed += ::kill(pid, SIGKILL) == 0;
        gcs_done = true;
      } else if (!node_done && now >= o.seconds * 1000LL / 2) {
        for (int pid : ProcessesMentioning(nodes[0])) ::kill(pid, SIGKILL);
        ++r.nodes_killed;
        std::erase(all, nodes[0]);
        join();  // a new node in its place
        all.push_back(nodes.back());
        node_done = true;
      } else {
        std::vector<int> workers;
        for (const auto& d : all) {
          for (int pid : Role(d, " _worker ")) workers.push_back(pid);
        }
        if (!workers.empty()) {
          int victim = workers[rng() % workers.size()];
          r.workers_killed += ::kill(victim, SIGKILL) == 0;
        }
      }
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  r.elapsed_ms = elapsed_ms();
  r.ended = r.elapsed_ms <= bound_ms && WIFEXITED(status_code);
  r.exit_code = WIFEXITED(status_code) ? WEXITSTATUS(status_code) : -1;
  r.out = SpawnedOutput(job_dir, ".out");
  r.err = SpawnedOutput(job_dir, ".err");
  r.rounds = Value(r.out, "rounds");
  r.checked = Value(r.out, "checked");
  r.wrong = Value(r.out, "wrong");
  r.task_errors = Value(r.out, "task_errors");
  r.actor_errors = Value(r.out, "actor_errors");
  r.retries = CountInRayletLogs(dir, "retrying (");
  r.reconstructions = CountInRayletLogs(dir, "again to make it");
  for (const auto& n : nodes) RunRay({"stop", "--temp-dir", n}, dir);
  RunRay({"stop", "--temp-dir", head}, dir);
  return r;
}

}  // namespace ray::testing
