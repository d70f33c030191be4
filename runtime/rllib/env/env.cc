#include "runtime/rllib/env/env.h"

namespace ray::rllib {

void Env::SeedRng(std::optional<uint64_t> seed) {
  if (seed.has_value()) {
    rng_.Seed(*seed);
  } else if (!rng_seeded_) {
    rng_.Seed(Rng::EntropySeed());
  }
  rng_seeded_ = true;
}

}  // namespace ray::rllib
