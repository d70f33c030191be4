#include "runtime/rllib/optimizers/sync_replay_optimizer.h"

#include <cmath>
#include <stdexcept>
#include <string>

namespace ray::rllib {

SyncReplayOptimizer::SyncReplayOptimizer(Sampler sampler, Policy* learner, Options options)
    : sampler_(std::move(sampler)), learner_(learner), options_(options) {
  replay_policy_ = dynamic_cast<ReplayPolicy*>(learner);
  if (!replay_policy_) throw std::invalid_argument("SyncReplayOptimizer: the policy has no target network/TD errors");
  auto bad = [](const std::string& m) { throw std::invalid_argument("config key " + m); };
  if (options.learning_starts < 0) bad("'learning_starts' must be >= 0");
  if (options.buffer_size <= 0) bad("'buffer_size' must be > 0");
  if (options.train_batch_size <= 0) bad("'train_batch_size' must be > 0");
  if (options.target_network_update_freq < 0) bad("'target_network_update_freq' must be >= 0");
  if (options.prioritized_replay) {
    if (!(options.prioritized_replay_beta > 0) || !(options.final_prioritized_replay_beta > 0)) {
      bad("'prioritized_replay_beta' and 'final_prioritized_replay_beta' must be > 0");
    }
    if (!(options.prioritized_replay_eps > 0)) bad("'prioritized_replay_eps' must be > 0");
    auto p = std::make_unique<PrioritizedReplayBuffer>(options.buffer_size, options.prioritized_replay_alpha,
                                                       options.seed);
    prioritized_ = p.get();
    buffer_ = std::move(p);
  } else {
    buffer_ = std::make_unique<ReplayBuffer>(options.buffer_size, options.seed);
  }
  beta_ = {options.beta_annealing_timesteps, options.prioritized_replay_beta,
           options.final_prioritized_replay_beta};
  Publish();
}

OptimizerStep SyncReplayOptimizer::Step() {
  OptimizerStep out;
  {
    TimerStat::Scope t(&stats_.timers["sample"]);
    for (SampleResult& r : sampler_(stats_.num_steps_sampled)) {
      buffer_->Add(r.batch);
      out.steps_sampled += r.batch.size();
      out.AddEpisodes(r);
    }
  }
  if (stats_.num_steps_sampled >= options_.learning_starts && buffer_->size() > 0) out.learner = Optimize();
  stats_.num_steps_sampled += out.steps_sampled;
  if (stats_.num_steps_sampled - last_target_update_ts_ > options_.target_network_update_freq) {
    replay_policy_->UpdateTarget();
    last_target_update_ts_ = stats_.num_steps_sampled;
    ++num_target_updates_;
  }
  Publish();
  return out;
}

LearnerStats SyncReplayOptimizer::Optimize() {
  ReplaySample sample;
  {
    TimerStat::Scope t(&stats_.timers["replay"]);
    sample = buffer_->Sample(options_.train_batch_size, beta_.Value(stats_.num_steps_trained));
  }
  LearnerStats info;
  {
    TimerStat::Scope t(&stats_.timers["grad"]);
    learner_->OnGlobalVarUpdate(stats_.num_steps_sampled);
    info = learner_->LearnOnBatch(sample.batch);
    if (prioritized_) {
      std::vector<float> td = replay_policy_->LastTDErrors();
      if (td.size() != sample.indexes.size()) {
        throw std::runtime_error("SyncReplayOptimizer: the policy gave " + std::to_string(td.size()) +
                                 " TD errors for " + std::to_string(sample.indexes.size()) + " rows");
      }
      std::vector<double> priorities(td.size());
      for (size_t k = 0; k < td.size(); ++k) priorities[k] = std::abs(td[k]) + options_.prioritized_replay_eps;
      prioritized_->UpdatePriorities(sample.indexes, priorities);
    }
  }
  stats_.num_steps_trained += sample.batch.size();
  return info;
}

void SyncReplayOptimizer::RestoreCounters(int64_t sampled, int64_t trained) {
  stats_.num_steps_sampled = sampled;
  stats_.num_steps_trained = trained;
  last_target_update_ts_ = sampled;
  Publish();
}

void SyncReplayOptimizer::Publish() {
  auto& v = stats_.values;
  v["learning_starts"] = static_cast<double>(options_.learning_starts);
  v["train_batch_size"] = static_cast<double>(options_.train_batch_size);
  v["sample_batch_size"] = static_cast<double>(options_.sample_batch_size);
  v["target_network_update_freq"] = static_cast<double>(options_.target_network_update_freq);
  v["num_target_updates"] = static_cast<double>(num_target_updates_);
  v["last_target_update_ts"] = static_cast<double>(last_target_update_ts_);
  v["replay_buffer_size"] = static_cast<double>(buffer_->size());
  if (prioritized_) v["prioritized_replay_beta"] = beta_.Value(stats_.num_steps_trained);
}

}  // namespace ray::rllib
