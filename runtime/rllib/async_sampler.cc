#include "runtime/rllib/async_sampler.h"

#include <exception>
#include <string>

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

void AsyncSampler::SetWeights(std::vector<float> weights) {
  std::lock_guard<std::mutex> lock(mu_);
  pending_weights_ = std::move(weights);
}

void AsyncSampler::SetGlobalTimestep(int64_t global_timestep) {
  std::lock_guard<std::mutex> lock(mu_);
  pending_timestep_ = global_timestep;
}

Result<SampleResult> AsyncSampler::SampleWith(std::optional<std::vector<float>> weights,
                                              std::optional<int64_t> timestep) {
  std::lock_guard<std::mutex> hold(worker_mu_);
  if (weights) RAY_RETURN_IF_ERROR(worker_->SetWeights(*weights));
  try {
    if (timestep) worker_->policy().OnGlobalVarUpdate(*timestep);
  } catch (const std::exception& e) {
    return Status::Internal(std::string("rollout worker: policy: OnGlobalVarUpdate: ") + e.what());
  }
  return worker_->Sample();
}

void AsyncSampler::Run() {
  while (true) {
    std::optional<std::vector<float>> weights;
    std::optional<int64_t> timestep;
    {
      std::unique_lock<std::mutex> lock(mu_);
      changed_.wait(lock, [&] { return stop_ || (waiting_ == 0 && queue_.size() < kQueueSize); });
      if (stop_) return;
      weights.swap(pending_weights_);
      timestep.swap(pending_timestep_);
    }
    Result<SampleResult> sample = SampleWith(std::move(weights), timestep);
    std::lock_guard<std::mutex> lock(mu_);
    if (!sample.ok()) {
      error_ = sample.status();
      changed_.notify_all();
      return;
    }
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
