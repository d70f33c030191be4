#include "runtime/rllib/replay/replay_buffer.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace ray::rllib {

ReplayBuffer::ReplayBuffer(int64_t capacity, uint64_t seed) : capacity_(capacity), rng_(seed) {
  if (capacity <= 0) throw std::invalid_argument("replay buffer: capacity (buffer_size) must be > 0");
}

void ReplayBuffer::Add(const SampleBatch& batch) {
  batch.Validate();
  const int64_t n = batch.size();
  if (n == 0) return;
  if (batch.new_obs.empty()) throw std::invalid_argument("replay buffer: the batch has no new_obs column");
  if (obs_dim_ == 0) {
    obs_dim_ = batch.obs_dim;
    action_dim_ = batch.action_dim;
    obs_.assign(capacity_ * obs_dim_, 0.f);
    new_obs_.assign(capacity_ * obs_dim_, 0.f);
    actions_.assign(capacity_ * action_dim_, 0.f);
    rewards_.assign(capacity_, 0.f);
    dones_.assign(capacity_, 0);
  } else if (batch.obs_dim != obs_dim_ || batch.action_dim != action_dim_) {
    throw std::invalid_argument("replay buffer: the batch's obs/action widths differ from the stored rows'");
  }
  for (int64_t r = 0; r < n; ++r) {
    const int64_t s = next_;
    std::copy_n(batch.obs.begin() + r * obs_dim_, obs_dim_, obs_.begin() + s * obs_dim_);
    std::copy_n(batch.new_obs.begin() + r * obs_dim_, obs_dim_, new_obs_.begin() + s * obs_dim_);
    std::copy_n(batch.actions.begin() + r * action_dim_, action_dim_, actions_.begin() + s * action_dim_);
    rewards_[s] = batch.rewards[r];
    dones_[s] = batch.terminateds[r];
    next_ = (next_ + 1) % capacity_;
    size_ = std::min(size_ + 1, capacity_);
    ++num_added_;
    OnAdd(s);
  }
}

SampleBatch ReplayBuffer::Gather(const std::vector<int64_t>& slots) const {
  SampleBatch b;
  b.obs_dim = obs_dim_;
  b.action_dim = action_dim_;
  for (int64_t s : slots) {
    b.obs.insert(b.obs.end(), obs_.begin() + s * obs_dim_, obs_.begin() + (s + 1) * obs_dim_);
    b.new_obs.insert(b.new_obs.end(), new_obs_.begin() + s * obs_dim_, new_obs_.begin() + (s + 1) * obs_dim_);
    b.actions.insert(b.actions.end(), actions_.begin() + s * action_dim_,
                     actions_.begin() + (s + 1) * action_dim_);
    b.rewards.push_back(rewards_[s]);
    b.terminateds.push_back(dones_[s]);
    b.truncateds.push_back(0);
    b.action_logp.push_back(0.f);
    b.eps_id.push_back(0);
  }
  return b;
}

namespace {
void CheckSample(int64_t n, int64_t size) {
  if (size == 0) throw std::invalid_argument("replay buffer: cannot sample from an empty buffer");
  if (n <= 0) throw std::invalid_argument("replay buffer: the sample size must be > 0");
}
}  // namespace

ReplaySample ReplayBuffer::Sample(int64_t n, double) {
  CheckSample(n, size_);
  std::uniform_int_distribution<int64_t> pick(0, size_ - 1);
  ReplaySample out;
  for (int64_t i = 0; i < n; ++i) out.indexes.push_back(pick(rng_));
  out.batch = Gather(out.indexes);
  out.batch.weights.assign(n, 1.f);
  return out;
}

PrioritizedReplayBuffer::PrioritizedReplayBuffer(int64_t capacity, double alpha, uint64_t seed)
    : ReplayBuffer(capacity, seed), alpha_(alpha), sum_(capacity), min_(capacity) {
  if (alpha < 0) throw std::invalid_argument("config key 'prioritized_replay_alpha' must be >= 0");
}

void PrioritizedReplayBuffer::OnAdd(int64_t slot) {
  const double p = std::pow(max_priority_, alpha_);
  sum_.Set(slot, p);
  min_.Set(slot, p);
}

ReplaySample PrioritizedReplayBuffer::Sample(int64_t n, double beta) {
  CheckSample(n, size());
  if (!(beta > 0)) throw std::invalid_argument("prioritized replay: beta must be > 0");
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  const double total = sum_.Reduce();
  const double N = static_cast<double>(size());
  const double max_weight = std::pow(min_.Reduce() / total * N, -beta);
  ReplaySample out;
  out.indexes.reserve(n);
  std::vector<float> weights;
  weights.reserve(n);
  for (int64_t i = 0; i < n; ++i) {
    const int64_t slot = sum_.FindPrefixSumIndex(unit(rng()) * total);
    out.indexes.push_back(slot);
    weights.push_back(static_cast<float>(std::pow(sum_.Get(slot) / total * N, -beta) / max_weight));
  }
  out.batch = Gather(out.indexes);
  out.batch.weights = std::move(weights);
  return out;
}

void PrioritizedReplayBuffer::AddWithPriorities(const SampleBatch& batch) {
  if (batch.weights.empty()) return Add(batch);
  const int64_t first = next_slot();
  Add(batch);  // validates the batch, weights included
  std::vector<int64_t> slots;
  std::vector<double> priorities(batch.weights.begin(), batch.weights.end());
  for (int64_t r = 0; r < batch.size(); ++r) slots.push_back((first + r) % capacity());
  UpdatePriorities(slots, priorities);
}

void PrioritizedReplayBuffer::UpdatePriorities(const std::vector<int64_t>& indexes,
                                               const std::vector<double>& priorities) {
  if (indexes.size() != priorities.size()) {
    throw std::invalid_argument("prioritized replay: " + std::to_string(indexes.size()) + " indexes but " +
                                std::to_string(priorities.size()) + " priorities");
  }
  for (size_t k = 0; k < indexes.size(); ++k) {
    const int64_t slot = indexes[k];
    const double p = priorities[k];
    if (slot < 0 || slot >= size()) {
      throw std::invalid_argument("prioritized replay: slot " + std::to_string(slot) + " is not stored");
    }
    if (!(p > 0) || !std::isfinite(p)) {
      throw std::invalid_argument("prioritized replay: priority " + std::to_string(p) + " of slot " +
                                  std::to_string(slot) + " must be finite and > 0");
    }
    const double pa = std::pow(p, alpha_);
    sum_.Set(slot, pa);
    min_.Set(slot, pa);
    max_priority_ = std::max(max_priority_, p);
  }
}

}  // namespace ray::rllib
