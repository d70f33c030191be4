#include "runtime/api/client_lock.h"

#include <sys/eventfd.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>

#include "runtime/base/logging.h"

namespace ray::core {

ClientLock::ClientLock() : wake_fd_(::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC)) {
  if (wake_fd_ < 0) {
    RAY_LOG_ERROR("cannot make an eventfd for the client lock (out of file descriptors?)");
    std::abort();
  }
}

ClientLock::~ClientLock() { ::close(wake_fd_); }

void ClientLock::lock() {
  std::unique_lock<std::mutex> g(mu_);
  if (owner_ == std::this_thread::get_id()) {
    ++depth_;
    return;
  }
  Acquire(g, 1);
}

void ClientLock::Acquire(std::unique_lock<std::mutex>& g, int depth) {
  if (owner_ != std::thread::id()) {
    ++waiting_;
    if (!wake_pending_) {
      wake_pending_ = true;
      uint64_t one = 1;
      (void)!::write(wake_fd_, &one, sizeof(one));
    }
    cv_.wait(g, [&] { return owner_ == std::thread::id(); });
    --waiting_;
  }
  owner_ = std::this_thread::get_id();
  depth_ = depth;
}

void ClientLock::unlock() {
  std::lock_guard<std::mutex> g(mu_);
  if (--depth_ > 0) return;
  owner_ = std::thread::id();
  cv_.notify_all();
}

void ClientLock::LetWaitersIn() {
  uint64_t count;
  (void)!::read(wake_fd_, &count, sizeof(count));
  std::unique_lock<std::mutex> g(mu_);
  wake_pending_ = false;
  if (waiting_ == 0) return;
  int depth = depth_;
  owner_ = std::thread::id();
  cv_.notify_all();
  cv_.wait(g, [&] { return waiting_ == 0 && owner_ == std::thread::id(); });
  owner_ = std::this_thread::get_id();
  depth_ = depth;
}

bool ClientLock::TryTakePump() {
  std::lock_guard<std::mutex> g(mu_);
  if (pumper_ == std::this_thread::get_id()) {
    ++pump_depth_;
    return true;
  }
  if (pumper_ != std::thread::id()) return false;
  pumper_ = std::this_thread::get_id();
  pump_depth_ = 1;
  return true;
}

void ClientLock::ReleasePump() {
  std::lock_guard<std::mutex> g(mu_);
  if (--pump_depth_ > 0) return;
  pumper_ = std::thread::id();
  cv_.notify_all();
}

void ClientLock::NotifyHandled() {
  std::lock_guard<std::mutex> g(mu_);
  ++handled_;
  cv_.notify_all();
}

void ClientLock::AwaitPump(int timeout_ms) {
  std::unique_lock<std::mutex> g(mu_);
  uint64_t seen = handled_;
  int depth = depth_;
  owner_ = std::thread::id();
  depth_ = 0;
  cv_.notify_all();
  auto looked = [&] { return handled_ != seen || pumper_ == std::thread::id(); };
  if (timeout_ms < 0) {
    cv_.wait(g, looked);
  } else {
    cv_.wait_for(g, std::chrono::milliseconds(timeout_ms), looked);
  }
  Acquire(g, depth);
}

}  // namespace ray::core
