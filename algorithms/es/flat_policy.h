#pragma once
// The policy of ES and ARS: a fully connected net evaluated from one flat parameter
// vector, without libtorch (the evolution algorithms never take a gradient; they only
// perturb, evaluate and move the flat vector). RLlib's FullyConnectedNetwork shape:
// hidden layers of `hiddens` sizes with `activation` (tanh, relu or linear), then a
// linear output layer; `hiddens` empty is a linear policy (ARS's LinearPolicy).
// Weights are RLlib's normc initialisation (each output unit's incoming weights a
// Gaussian row scaled to norm 1.0, 0.01 for the output layer; biases 0).
//
// Layout of the flat vector: per layer, its weights row-major [out][in], then its
// biases [out]. Actions: Discrete spaces take the argmax of the outputs (RLlib's
// deterministic action distribution; RLlib 0.7 samples the categorical instead),
// Box spaces take the outputs, optionally with Gaussian action noise, clipped to the
// bounds. The net's input is the observation as RLlib's default preprocessor gives it
// (runtime/rllib/env/preprocessor.h: Discrete one-hot, Tuple and Dict flattened).
//
// Not thread-safe (Compute reuses scratch buffers).

#include <cstdint>
#include <string>
#include <vector>

#include "ray/rllib/action.h"
#include "ray/rllib/rng.h"
#include "ray/rllib/spaces.h"
#include "runtime/base/status.h"

namespace ray::rllib {

class FlatPolicy {
 public:
  // InvalidArgument naming the space or key: an action space neither a Box nor a
  // Discrete, an activation other than tanh/relu/linear, a non-positive layer size.
  static Result<FlatPolicy> Create(const Space& observation_space, const Space& action_space,
                                   const std::vector<int>& hiddens, const std::string& activation);

  int64_t num_params() const { return num_params_; }
  int64_t obs_size() const { return sizes_.front(); }
  // Fresh weights (normc, seeded).
  std::vector<float> InitialWeights(uint64_t seed) const;
  // InvalidArgument unless weights.size() == num_params().
  Status SetWeights(std::vector<float> weights);
  const std::vector<float>& weights() const { return weights_; }

  // The action for one (already preprocessed and filtered) observation of obs_size()
  // floats. With
  // `noise_rng` and a Box action space, adds N(0, action_noise_std) to each output.
  Action Compute(const float* obs, Rng* noise_rng = nullptr, double action_noise_std = 0) const;

 private:
  FlatPolicy(Space action_space, std::vector<int64_t> sizes, int activation);

  Space action_space_;
  std::vector<int64_t> sizes_;  // obs_size, hiddens..., outputs
  int activation_;              // 0 linear, 1 tanh, 2 relu
  int64_t num_params_ = 0;
  std::vector<float> weights_;
  mutable std::vector<float> a_, b_;  // scratch activations
};

}  // namespace ray::rllib
