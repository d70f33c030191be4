#pragma once
// Tune's Client API (Ray's TuneServer): a running experiment answers REST calls.
//
//   GET  /trials        {"trials": [TRIAL, ...]}
//   GET  /trials/ID     {"trial": TRIAL}                    404 for an unknown id
//   PUT  /trials/ID     stops the trial (at its next result) -> {"trial": TRIAL}
//   POST /trials        {"spec": {"config": {...}, "num_samples": N}} adds trials, one per
//                       variant of the config's search space -> {"trial_ids": [...]}
//
// TRIAL is {"id", "trainable_name", "status", "experiment_tag", "config", "logdir",
// "last_result"}. Every call needs the cluster token as "Authorization: Bearer TOKEN";
// the server listens on loopback unless told otherwise. Errors are JSON
// ({"error": "..."}) with 400, 401, 404 or 503.
//
// The HTTP side runs on threads of its own; the experiment's runner, on its own
// thread, publishes the trials and takes the requests that change them
// (Publish, TakeRequests), so the runner's state is never shared.

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "runtime/base/status.h"

namespace httplib {
class Server;
}

namespace ray::tune {

class TuneServer {
 public:
  struct Options {
    std::string host = "127.0.0.1";
    int port = 4321;  // Ray's server_port; 0: any free port
    std::string token;
    // How long a call that changes trials waits for the runner to take it.
    std::chrono::milliseconds answer_within{10000};
  };

  // A change asked of the runner. The runner answers each one: a JSON body (200)
  // or an error (its code picks the HTTP status).
  struct Request {
    enum class Kind { kStopTrial, kAddTrials } kind;
    std::string trial_id;  // kStopTrial
    nlohmann::json spec;   // kAddTrials: {"config", "num_samples"}
    struct Reply;
    std::shared_ptr<Reply> reply;
    void Answer(Result<nlohmann::json> body) const;
  };

  static Result<std::unique_ptr<TuneServer>> Start(const Options& options);
  ~TuneServer();
  TuneServer(const TuneServer&) = delete;
  TuneServer& operator=(const TuneServer&) = delete;

  int port() const { return port_; }
  std::string url() const;

  // The runner's side.
  void Publish(nlohmann::json trials);  // an array of TRIAL
  std::vector<Request> TakeRequests();
  // Between experiments: calls that change trials are refused (503), reads see the
  // last experiment's trials.
  void SetRunning(bool running);

 private:
  explicit TuneServer(Options options);
  void Route();
  Result<nlohmann::json> Ask(Request request);

  Options options_;
  int port_ = 0;
  std::unique_ptr<httplib::Server> http_;
  std::thread thread_;

  std::mutex mu_;
  nlohmann::json trials_ = nlohmann::json::array();
  std::deque<Request> requests_;
  bool running_ = false;
};

}  // namespace ray::tune
