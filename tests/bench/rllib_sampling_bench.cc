// PPO sampling throughput with batched inference, measured through the real
// `rllib train`: env steps per second of sampling (each iteration's
// timesteps_this_iter over its info/sample_time_ms, the median of the iterations
// after the first) for 1 and 2 rollout workers on CartPole-v1.
//
//   build/tests/bench/rllib_sampling_bench [--envs N]   (envs per worker, default 16)

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

// Median env steps/s of sampling over iterations 2..n of one training run.
double SamplingRate(int workers, int envs, const std::string& dir) {
  std::string name = "sampling_" + std::to_string(workers);
  json config = {{"num_workers", workers},       {"num_envs_per_worker", envs},
                 {"sample_batch_size", 256},      {"train_batch_size", 16384 * workers},
                 {"sgd_minibatch_size", 16384},   {"num_sgd_iter", 1},
                 {"model", {{"fcnet_hiddens", {64, 64}}}}};
  std::string cmd = std::string(RAY_BINARY) + " rllib train --run PPO --env CartPole-v1" +
                    " --experiment-name " + name + " --local-dir " + dir + " --config '" +
                    config.dump() + "' --stop '{\"training_iteration\": 6}' --num-cpus " +
                    std::to_string(workers + 1) + " > " + dir + "/" + name + ".log 2>&1";
  int status = std::system(cmd.c_str());
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    std::fprintf(stderr, "failed: %s\n", cmd.c_str());
    std::exit(1);
  }
  std::vector<double> rates;
  for (const auto& trial : fs::directory_iterator(dir + "/" + name)) {
    if (!trial.is_directory()) continue;
    std::ifstream in(trial.path() / "result.json");
    for (std::string line; std::getline(in, line);) {
      json r = json::parse(line);
      if (r["training_iteration"] == 1) continue;  // workers and torch warming up
      rates.push_back(r["timesteps_this_iter"].get<double>() /
                      (r["info"]["sample_time_ms"].get<double>() / 1000));
    }
  }
  std::sort(rates.begin(), rates.end());
  return rates.empty() ? 0 : rates[rates.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  int envs = argc > 2 && std::string(argv[1]) == "--envs" ? std::atoi(argv[2]) : 16;
  std::string dir = fs::temp_directory_path() / ("rllib_sampling_bench_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::printf("PPO sampling on CartPole-v1, %d envs per worker, batched inference\n", envs);
  std::printf("  %-8s %16s\n", "workers", "env steps/s");
  for (int workers : {1, 2}) {
    std::printf("  %-8d %16.0f\n", workers, SamplingRate(workers, envs, dir));
    std::fflush(stdout);
  }
  fs::remove_all(dir);
  return 0;
}
