#include "runtime/rllib/async_sampler.h"

namespace ray::rllib {

AsyncSampler::AsyncSampler(std::unique_ptr<RolloutWorker> worker)
    : worker_(std::move(worker)), thread_([this] { Run(); }) {}

AsyncSampler::~AsyncSampler() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  changed_.notify_all();
  thread_.join();
}

void AsyncSampler::Run() {
  while (true) {
    Result<SampleResult> sample = With([](RolloutWorker& w) { return w.Sample(); });
    std::unique_lock<std::mutex> lock(mu_);
    if (!sample.ok()) {
      error_ = sample.status();
      changed_.notify_all();
      return;
    }
    changed_.wait(lock, [&] { return stop_ || queue_.size() < kQueueSize; });
    if (stop_) return;
    queue_.push_back(std::move(sample).value());
    changed_.notify_all();
  }
}

Result<SampleResult> AsyncSampler::Next(std::chrono::milliseconds deadline) {
  std::unique_lock<std::mutex> lock(mu_);
  if (!changed_.wait_for(lock, deadline, [&] { return !queue_.empty() || !error_.ok(); })) {
    return Status::DeadlineExceeded("sample_async: the sampler thread made no sample in " +
                                    std::to_string(deadline.count()) + " ms");
  }
  if (queue_.empty()) return Status(error_.code(), "sample_async: the sampler thread ended: " + error_.message());
  SampleResult out = std::move(queue_.front());
  queue_.pop_front();
  changed_.notify_all();
  return out;
}

}  // namespace ray::rllib
