#include "runtime/gcs/gcs_watch.h"

#include <chrono>
#include <utility>

#include "runtime/base/clock.h"
#include "runtime/gcs/gcs_client.h"

namespace ray::gcs {

GcsWatch::GcsWatch(std::string endpoint, std::string token, GcsWatchOptions options)
    : endpoint_(std::move(endpoint)), token_(std::move(token)), options_(options) {
  thread_ = std::thread([this] { Probe(); });
}

GcsWatch::~GcsWatch() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  thread_.join();
}

void GcsWatch::MarkDown() {
  if (!up_.exchange(false)) return;
  down_since_ms_ = MonoMillis();
  cv_.notify_all();
}

void GcsWatch::Probe() {
  GcsClient client(endpoint_, token_, options_.probe_timeout_ms);  // no watch: it really asks
  std::unique_lock<std::mutex> lock(mu_);
  while (!stop_) {
    if (up_.load()) {
      cv_.wait(lock, [&] { return stop_ || !up_.load(); });
      continue;
    }
    lock.unlock();
    // Any answer (even a refusal) means the GCS serves again.
    Status st = client.Ping();
    lock.lock();
    if (st.code() != StatusCode::kUnavailable) {
      up_ = true;
      ++reconnects_;
      continue;
    }
    cv_.wait_for(lock, std::chrono::milliseconds(options_.probe_interval_ms),
                 [&] { return stop_; });
  }
}

}  // namespace ray::gcs
