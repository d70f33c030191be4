#pragma once
// RestartBackoff: how long a supervisor waits before starting a daemon again after
// it exited. A daemon that had run for at least `stable_ms` is restarted after
// `initial_ms`; each exit sooner than that doubles the wait, up to `max_ms`, so a
// daemon that cannot start (a broken database, a port taken) does not spin. Pure
// policy: the caller passes the times. Not thread-safe.

#include <cstdint>

namespace ray::node {

struct RestartBackoffOptions {
  int64_t initial_ms = 100;   // wait after the exit of a daemon that ran stably (> 0)
  int64_t max_ms = 5000;      // the longest wait
  int64_t stable_ms = 10000;  // a run this long resets the wait to initial_ms
};

class RestartBackoff {
 public:
  explicit RestartBackoff(RestartBackoffOptions options = {}) : options_(options) {}

  // The daemon started at `start_ms` exited at `exit_ms`: how long to wait before
  // the next start.
  int64_t OnExit(int64_t start_ms, int64_t exit_ms);
  // Restarts decided so far.
  int64_t restarts() const { return restarts_; }

 private:
  RestartBackoffOptions options_;
  int64_t next_ms_ = -1;  // the wait after the next quick exit; -1: none yet
  int64_t restarts_ = 0;
};

}  // namespace ray::node
