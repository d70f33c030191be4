#pragma once
// A GCS server on a thread of the test: RunGcsServer with its tables in a real SQLite
// file under `dir`, ZeroMQ on loopback. Started again on its endpoint after a Stop, it
// is a GCS that died and came back (same port, same tables).

#include <atomic>
#include <chrono>
#include <filesystem>
#include <string>
#include <thread>

#include "runtime/base/clock.h"
#include "runtime/base/fs.h"
#include "runtime/base/status.h"
#include "runtime/gcs/gcs_server.h"

namespace ray::test_util {

class GcsThread {
 public:
  GcsThread(std::string dir, std::string token) : dir_(std::move(dir)), token_(std::move(token)) {}
  ~GcsThread() { (void)Stop(); }
  GcsThread(const GcsThread&) = delete;
  GcsThread& operator=(const GcsThread&) = delete;

  // Starts it on `listen` (port '*': a free one), and waits up to 10 s until it serves.
  // A node silent for `heartbeat_timeout_ms` is marked dead.
  Status Start(const std::string& listen = "tcp://127.0.0.1:*",
               int64_t heartbeat_timeout_ms = 10000) {
    if (server_.joinable()) return Status::FailedPrecondition("the GCS thread runs already");
    const std::string ready = dir_ + "/gcs.ready";
    std::filesystem::remove(ready);
    gcs::GcsOptions options;
    options.session_dir = dir_ + "/session";
    options.listen = listen;
    options.token = token_;
    options.ready_file = ready;
    options.heartbeat_timeout_ms = heartbeat_timeout_ms;
    stop_ = false;
    exited_ = false;
    server_ = std::thread([this, options] {
      status_ = gcs::RunGcsServer(options, stop_);
      exited_ = true;
    });
    const int64_t deadline = MonoMillis() + 10000;
    while (!std::filesystem::exists(ready) && !exited_ && MonoMillis() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    if (exited_) return Status::Unavailable("the GCS exited: " + status_.ToString());
    auto endpoint = ReadFile(ready);
    if (!endpoint.ok()) return Status::Unavailable("the GCS did not start within 10 s");
    endpoint_ = *endpoint;
    return Status::Ok();
  }

  // Stops it (if it runs); its status.
  Status Stop() {
    if (!server_.joinable()) return Status::Ok();
    stop_ = true;
    server_.join();
    return status_;
  }

  // Where it listens (it keeps listening there when started again on it).
  const std::string& endpoint() const { return endpoint_; }

 private:
  const std::string dir_;
  const std::string token_;
  std::atomic<bool> stop_{false};
  std::atomic<bool> exited_{false};
  Status status_ = Status::Ok();
  std::thread server_;
  std::string endpoint_;
};

}  // namespace ray::test_util
