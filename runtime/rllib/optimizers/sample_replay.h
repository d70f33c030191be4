#pragma once
// IMPALA's experience replay, as RLlib 0.7's aggregator does it (replay_proportion,
// replay_buffer_num_slots): the last `num_slots` sampled fragments are kept in a
// ring; after each new fragment has been kept, while a uniform draw in [0, 1) is
// below f (f starts at `proportion` and drops by 1 after each replay), one kept
// fragment chosen uniformly is replayed: on average `proportion` replayed fragments
// follow each new one. Replay starts once more fragments are kept than one train
// batch needs (ceil(train_batch_size / sample_batch_size)). Pure code; not
// thread-safe.

#include <cmath>
#include <cstdint>
#include <optional>
#include <random>
#include <stdexcept>
#include <vector>

#include <ray/rllib/sample_batch.h>

namespace ray::rllib {

class SampleReplay {
 public:
  // proportion >= 0; num_slots >= 0 (0: nothing is kept, so nothing replays).
  SampleReplay(double proportion, int64_t num_slots, int64_t train_batch_size, int64_t sample_batch_size,
               std::optional<uint64_t> seed)
      : proportion_(proportion),
        num_slots_(num_slots),
        fragments_needed_(FragmentsPerTrainBatch(train_batch_size, sample_batch_size)),
        rng_(seed ? *seed : std::random_device{}()) {
    if (proportion < 0) throw std::invalid_argument("replay_proportion must be >= 0");
    if (num_slots < 0) throw std::invalid_argument("replay_buffer_num_slots must be >= 0");
  }

  // How many kept fragments replay needs before it starts, minus one.
  static int64_t FragmentsPerTrainBatch(int64_t train_batch_size, int64_t sample_batch_size) {
    if (train_batch_size < 1 || sample_batch_size < 1) {
      throw std::invalid_argument("train_batch_size and sample_batch_size must be >= 1");
    }
    return (train_batch_size + sample_batch_size - 1) / sample_batch_size;
  }

  bool enabled() const { return proportion_ > 0; }

  // Keeps `fragment` (a new sample) and returns the fragments to replay after it.
  std::vector<SampleBatch> AddAndDraw(const SampleBatch& fragment) {
    if (num_slots_ > 0) {
      if (static_cast<int64_t>(slots_.size()) < num_slots_) {
        slots_.push_back(fragment);
      } else {
        slots_[next_] = fragment;
        next_ = (next_ + 1) % num_slots_;
      }
    }
    std::vector<SampleBatch> out;
    if (static_cast<int64_t>(slots_.size()) <= fragments_needed_) return out;
    std::uniform_real_distribution<double> draw(0.0, 1.0);
    std::uniform_int_distribution<size_t> pick(0, slots_.size() - 1);
    for (double f = proportion_; draw(rng_) < f; f -= 1) out.push_back(slots_[pick(rng_)]);
    return out;
  }

  size_t num_kept() const { return slots_.size(); }

 private:
  double proportion_;
  int64_t num_slots_;
  int64_t fragments_needed_;
  std::mt19937_64 rng_;
  std::vector<SampleBatch> slots_;
  int64_t next_ = 0;  // the slot the next fragment replaces once the ring is full
};

}  // namespace ray::rllib
