#include "runtime/node/restart_backoff.h"

#include <algorithm>

namespace ray::node {

int64_t RestartBackoff::OnExit(int64_t start_ms, int64_t exit_ms) {
  ++restarts_;
  bool stable = exit_ms - start_ms >= options_.stable_ms;
  if (stable || next_ms_ < 0) {
    next_ms_ = options_.initial_ms;
  } else {
    next_ms_ = std::min(options_.max_ms, std::max<int64_t>(1, next_ms_) * 2);
  }
  return std::min(next_ms_, options_.max_ms);
}

}  // namespace ray::node
