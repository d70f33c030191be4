#include "runtime/worker/call_pool.h"

namespace ray::worker {

CallPool::CallPool(int threads, Run run) : run_(std::move(run)) {
  threads_.reserve(threads);
  for (int i = 0; i < threads; ++i) threads_.emplace_back([this] { Loop(); });
}

CallPool::~CallPool() {
  {
    std::lock_guard<std::mutex> g(mu_);
    stop_ = true;
    queue_.clear();
  }
  cv_.notify_all();
  for (auto& t : threads_) t.join();
}

void CallPool::Post(IncomingTask call) {
  {
    std::lock_guard<std::mutex> g(mu_);
    queue_.push_back(std::move(call));
  }
  cv_.notify_one();
}

void CallPool::Loop() {
  while (true) {
    IncomingTask call;
    {
      std::unique_lock<std::mutex> g(mu_);
      cv_.wait(g, [&] { return stop_ || !queue_.empty(); });
      if (stop_) return;
      call = std::move(queue_.front());
      queue_.pop_front();
    }
    run_(call);
  }
}

}  // namespace ray::worker
