// Tune's figures, measured with the real `tune run` on a local cluster:
//   - overhead: 1,000 trivial trials (one step each), wall time of the whole command
//     (cluster start and stop included) and of the trial runner alone, with the
//     results (3,000 files) on disk and in memory (/dev/shm): creating that many
//     files on ext4 can cost more than everything else;
//   - search efficiency: FIFO grid search against ASHA over the same 49 configs of
//     the quadratic example (known optimum: loss 1.0 at x = 3, y = -1, 100
//     iterations), as iterations spent and the best loss found.
//
//   build/tests/bench/tune_bench [--cpus N]

#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

struct Run {
  double wall_s = 0;
  double runner_s = 0;  // "Tune: N trials finished in X s"
  json state;
};

Run Tune(const std::string& args, const std::string& results, const std::string& name,
         const std::string& cpus) {
  std::string log = results + "/" + name + ".log";
  std::string cmd = std::string(RAY_BINARY) + " tune run " + args + " --name " + name +
                    " --local-dir " + results + " --num-cpus " + cpus + " --verbose 1 >" + log +
                    " 2>&1";
  auto begin = std::chrono::steady_clock::now();
  int status = std::system(cmd.c_str());
  Run r;
  r.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    std::fprintf(stderr, "failed: %s (see %s)\n", cmd.c_str(), log.c_str());
    std::exit(1);
  }
  std::ifstream in(log);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("Tune: ", 0) == 0 && line.find(" finished in ") != std::string::npos) {
      r.runner_s = std::atof(line.c_str() + line.find(" in ") + 4);
    }
  }
  std::ifstream state(results + "/" + name + "/experiment_state.json");
  r.state = json::parse(state);
  return r;
}

struct Search {
  int64_t iterations = 0;
  double best = 1e300;
};

Search Summarise(const json& state) {
  Search s;
  for (const auto& t : state["trials"]) {
    s.iterations += t["last_result"]["training_iteration"].get<int64_t>();
    s.best = std::min(s.best, t["last_result"]["loss"].get<double>());
  }
  return s;
}

}  // namespace

int main(int argc, char** argv) {
  std::string cpus = argc > 2 && std::string(argv[1]) == "--cpus" ? argv[2] : "2";
  std::string results = fs::temp_directory_path() / ("tune_bench_" + std::to_string(::getpid()));
  fs::create_directories(results);

  std::printf("Tune overhead, %s CPUs: 1,000 trivial trials\n", cpus.c_str());
  std::printf("  %-30s %14s %14s\n", "results in", "whole command", "trial runner");
  std::string in_memory = "/dev/shm/tune_bench_" + std::to_string(::getpid());
  for (const std::string& where : {results, in_memory}) {
    fs::create_directories(where);
    Run trivial = Tune(std::string(TUNE_BENCH_PLUGIN) + " --num-samples 1000", where, "trivial", cpus);
    std::printf("  %-30s %12.2f s %12.2f s\n", where.c_str(), trivial.wall_s, trivial.runner_s);
  }
  fs::remove_all(in_memory);
  std::printf("  (the whole command includes starting and stopping the cluster)\n\n");

  const std::string examples = std::string(EXAMPLES_DIR) + "/tune_trainables.so -f " + SHARE_DIR;
  Search grid = Summarise(Tune(examples + "/grid.yaml", results, "grid", cpus).state);
  Search asha = Summarise(Tune(examples + "/asha.yaml", results, "asha", cpus).state);
  const double optimum = 1.0;
  std::printf("Search over 49 configs of the quadratic (optimum loss %.1f):\n", optimum);
  std::printf("  %-22s %10s %12s %14s\n", "", "iterations", "best loss", "off optimum");
  for (const auto& [label, s] : {std::pair{"FIFO grid search", grid}, std::pair{"ASHA", asha}}) {
    std::printf("  %-22s %10lld %12.4f %13.2f%%\n", label, static_cast<long long>(s.iterations),
                s.best, 100 * (s.best - optimum) / optimum);
  }
  std::printf("  ASHA used %.1f%% of grid search's iterations\n",
              100.0 * asha.iterations / grid.iterations);
  fs::remove_all(results);
  return 0;
}
