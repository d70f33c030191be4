#pragma once
// The threads of a concurrent actor (max_concurrency > 1, Ray's threaded actors): up
// to n of its calls run at once, each on one of n threads, taken from one queue in
// the order they were posted. So calls start in the order they arrived, but a call
// may finish (and a later one start) before an earlier one does; the actor's class
// must be thread-safe.
//
// Thread-safe. The destructor runs no call not started yet, and waits for the running
// ones.

#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

#include "runtime/worker/task_receiver.h"

namespace ray::worker {

class CallPool {
 public:
  using Run = std::function<void(IncomingTask& call)>;
  // `run` is called on the pool's threads (at most `threads` at once).
  CallPool(int threads, Run run);
  ~CallPool();
  CallPool(const CallPool&) = delete;
  CallPool& operator=(const CallPool&) = delete;

  void Post(IncomingTask call);

 private:
  void Loop();

  Run run_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<IncomingTask> queue_;
  bool stop_ = false;
  std::vector<std::thread> threads_;
};

}  // namespace ray::worker
