#pragma once
// What the continuous-control policies (DDPG/TD3, SAC) share, as pure torch functions:
// the MLPs of their actors and critics, target-network updates, the tanh-squashed
// Gaussian of SAC, the clipped double-Q target and TD3's target policy smoothing,
// mapping between [-1, 1] and a Box's bounds, and flat weights / checkpoints over a
// list of named modules. Includes torch: learner-side sources only.

#include <torch/torch.h>

#include <string>
#include <utility>
#include <vector>

namespace ray::rllib {

// in -> [Linear(h) + activation] for h in hiddens -> Linear(out) (no activation).
// activation: "relu" | "tanh" | "linear"; std::invalid_argument otherwise.
torch::nn::Sequential Mlp(int in, const std::vector<int>& hiddens, const std::string& activation, int out);

// (Q_1(obs, a), Q_2(obs, a)) [B] each, the critics reading the concatenation
// [obs, a]; Q_2 undefined when `q2` is empty (no twin).
std::pair<torch::Tensor, torch::Tensor> TwinQValues(torch::nn::Sequential& q1, torch::nn::Sequential& q2,
                                                    const torch::Tensor& obs, const torch::Tensor& a);

// target <- tau * source + (1 - tau) * target, parameter by parameter (tau 1: a copy).
// The lists must match in length and shapes (std::invalid_argument).
void SoftUpdate(const std::vector<torch::Tensor>& target, const std::vector<torch::Tensor>& source, double tau);

// log pi(a) of a = tanh(u), u ~ N(mean, exp(log_std)), per row summed over the
// action dimensions: log N(u) - sum log(1 - tanh(u)^2), the correction computed
// stably as 2 (log 2 - u - softplus(-2u)). All [B, d]; returns [B].
torch::Tensor SquashedGaussianLogp(const torch::Tensor& mean, const torch::Tensor& log_std, const torch::Tensor& u);

// A reparameterised sample (or, deterministic, tanh(mean)) and its log-prob:
// (action in (-1, 1) [B, d], logp [B]).
std::pair<torch::Tensor, torch::Tensor> SquashedGaussianSample(const torch::Tensor& mean,
                                                               const torch::Tensor& log_std, bool deterministic);

// The Bellman target r + discount * (1 - done) * q_tp1 with q_tp1 = min(q1, q2)
// (clipped double Q; q2 undefined: q1). All [B]; no grad flows through it.
torch::Tensor TwinQTarget(const torch::Tensor& rewards, const torch::Tensor& dones, double discount,
                          const torch::Tensor& q1_tp1, const torch::Tensor& q2_tp1 = {});

// TD3's target policy smoothing: clip(a + clip(N(0, noise^2), -noise_clip, noise_clip),
// low, high) per dimension. low/high [d].
torch::Tensor SmoothTargetAction(const torch::Tensor& actions, double noise, double noise_clip,
                                 const torch::Tensor& low, const torch::Tensor& high);

// [-1, 1] <-> [low, high], linearly per dimension.
torch::Tensor Unsquash(const torch::Tensor& unit, const torch::Tensor& low, const torch::Tensor& high);
torch::Tensor Squash(const torch::Tensor& actions, const torch::Tensor& low, const torch::Tensor& high);

// Huber loss per element (threshold delta).
torch::Tensor HuberLoss(const torch::Tensor& x, double delta);

// Sum of squares / 2 of every weight matrix (not the biases) of the modules: tf's
// l2_loss, RLlib's l2_reg term.
torch::Tensor L2Loss(const std::vector<torch::Tensor>& params);

// The tensors' values flattened in order (undefined tensors: zeros of `like`'s sizes).
std::vector<float> FlattenTensors(const std::vector<torch::Tensor>& tensors, const std::vector<torch::Tensor>& like);

// Named modules and optimisers a policy checkpoints and flattens as one unit.
struct ModuleSet {
  std::vector<std::pair<std::string, torch::nn::Module*>> modules;      // flattened in this order
  std::vector<std::pair<std::string, torch::optim::Optimizer*>> optimizers;
  std::vector<std::pair<std::string, torch::Tensor>> extra_params;      // e.g. SAC's log_alpha

  std::vector<torch::Tensor> Parameters() const;
  int64_t NumWeights() const;
  // "name:d0xd1,..." of every parameter; equal layouts mean compatible weights.
  std::string Layout() const;
  std::vector<float> Flatten() const;
  // std::invalid_argument naming `what` when the size is wrong.
  void Assign(const std::vector<float>& flat, const char* what) const;
  // Sets every parameter's .grad from a flat gradient (Flatten's order).
  void SetGradients(const std::vector<float>& flat, const char* what) const;
  // One torch archive with every module, optimiser, extra param, `counters` and the
  // layout; Restore checks the layout (std::invalid_argument) and reads the counters
  // back. `who` names the policy in errors (std::runtime_error).
  void Save(const std::string& path, const std::vector<std::pair<std::string, int64_t>>& counters,
            const std::string& who) const;
  void Restore(const std::string& path, const std::vector<std::pair<std::string, int64_t*>>& counters,
               const std::string& who) const;
};

}  // namespace ray::rllib
