#pragma once
// GcsWatch: whether the GCS answers, known without waiting for it. A GcsClient that
// has a watch (GcsClient::set_watch) fails at once with Unavailable while the watch
// says the GCS is down, and reports a call that got no answer to it; the watch then
// pings the GCS from a thread of its own (a short timeout, every probe_interval_ms)
// until it answers again. So a daemon's loop waits for a dead GCS once (one call's
// timeout), not on every call while it is down.
//
// Thread-safe: Up(), MarkDown() and reconnects() may be called from any thread. The
// destructor stops the probing thread (within one probe's timeout).

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>

namespace ray::gcs {

struct GcsWatchOptions {
  int probe_timeout_ms = 200;   // one ping's wait for an answer
  int probe_interval_ms = 100;  // between pings that got no answer
};

class GcsWatch {
 public:
  GcsWatch(std::string endpoint, std::string token, GcsWatchOptions options = {});
  ~GcsWatch();
  GcsWatch(const GcsWatch&) = delete;
  GcsWatch& operator=(const GcsWatch&) = delete;

  // False from a MarkDown() until a ping is answered.
  bool Up() const { return up_.load(); }
  // A call got no answer: start probing (no-op while already down).
  void MarkDown();
  // How many times the GCS came back after being down: the owner compares it with
  // the count it last saw to send what it kept meanwhile.
  uint64_t reconnects() const { return reconnects_.load(); }
  // Monotonic ms when it last went down (0: never).
  int64_t down_since_ms() const { return down_since_ms_.load(); }

 private:
  void Probe();

  std::string endpoint_;
  std::string token_;
  GcsWatchOptions options_;
  std::atomic<bool> up_{true};
  std::atomic<uint64_t> reconnects_{0};
  std::atomic<int64_t> down_since_ms_{0};
  std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;  // guarded by mu_
  std::thread thread_;
};

}  // namespace ray::gcs
