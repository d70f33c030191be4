#include "algorithms/dqn/dqn_policy.h"

#include <cmath>
#include <random>
#include <stdexcept>

#include "runtime/rllib/policy/torch_policy_impl.h"
#include "runtime/rllib/replay/n_step.h"

namespace ray::rllib {
namespace {

torch::nn::Sequential Layers(int in, const std::vector<int>& sizes, const std::string& activation) {
  torch::nn::Sequential seq;
  for (int size : sizes) {
    seq->push_back(torch::nn::Linear(in, size));
    if (activation == "tanh") seq->push_back(torch::nn::Tanh());
    else if (activation == "relu") seq->push_back(torch::nn::ReLU());
    in = size;
  }
  return seq;
}

int LastWidth(int in, const std::vector<int>& sizes) { return sizes.empty() ? in : sizes.back(); }

// A linear layer with factorised Gaussian noise on its weights (Fortunato et al.
// 2017; RLlib 0.7's noisy_layer): y = x (W + sigma_W . f(e_in) f(e_out)) + b +
// sigma_b . f(e_out), f(e) = sign(e) sqrt|e|, fresh noise e ~ N(0, 1) on every forward
// with `noise`. W: Xavier, b: 0, sigma_W ~ U(+-1/sqrt(in)), sigma_b = sigma0/sqrt(in).
class NoisyLinearImpl : public torch::nn::Module {
 public:
  NoisyLinearImpl(int in, int out, double sigma0) {
    const double bound = 1.0 / std::sqrt(static_cast<double>(in));
    w_ = register_parameter("w", torch::empty({out, in}));
    b_ = register_parameter("b", torch::zeros({out}));
    sigma_w_ = register_parameter("sigma_w", torch::empty({out, in}));
    sigma_b_ = register_parameter("sigma_b", torch::full({out}, sigma0 * bound));
    torch::NoGradGuard no_grad;
    torch::nn::init::xavier_uniform_(w_);
    sigma_w_.uniform_(-bound, bound);
  }
  torch::Tensor forward(const torch::Tensor& x, bool noise) {
    if (!noise) return torch::nn::functional::linear(x, w_, b_);
    auto f = [](const torch::Tensor& e) { return e.sign() * e.abs().sqrt(); };
    torch::Tensor e_in = f(torch::randn({w_.size(1)})), e_out = f(torch::randn({w_.size(0)}));
    return torch::nn::functional::linear(x, w_ + sigma_w_ * torch::outer(e_out, e_in),
                                         b_ + sigma_b_ * e_out);
  }

 private:
  torch::Tensor w_, b_, sigma_w_, sigma_b_;
};
TORCH_MODULE(NoisyLinear);

// A noisy head: `hiddens` relu layers of noisy units, then a noisy output of `out`.
class NoisyHeadImpl : public torch::nn::Module {
 public:
  NoisyHeadImpl(int in, std::vector<int> sizes, int out, double sigma0) {
    sizes.push_back(out);
    for (size_t i = 0; i < sizes.size(); ++i) {
      layers_.push_back(register_module(std::to_string(i), NoisyLinear(in, sizes[i], sigma0)));
      in = sizes[i];
    }
  }
  torch::Tensor forward(torch::Tensor x, bool noise) {
    for (size_t i = 0; i < layers_.size(); ++i) {
      x = layers_[i]->forward(x, noise);
      if (i + 1 < layers_.size()) x = torch::relu(x);
    }
    return x;
  }

 private:
  std::vector<NoisyLinear> layers_;
};
TORCH_MODULE(NoisyHead);

// A head of the Q network: `hiddens` relu layers, then a linear output of `out`
// units; plain or noisy (config.noisy).
struct Head {
  torch::nn::Sequential plain{nullptr};
  NoisyHead noisy{nullptr};

  Head() = default;
  Head(torch::nn::Module& owner, const std::string& name, int in, int out, const DQNConfig& c) {
    if (c.noisy) {
      noisy = owner.register_module(name, NoisyHead(in, c.hiddens, out, c.sigma0));
      return;
    }
    plain = owner.register_module(name, Layers(in, c.hiddens, "relu"));
    plain->push_back(torch::nn::Linear(LastWidth(in, c.hiddens), out));
  }
  torch::Tensor operator()(const torch::Tensor& x, bool noise) {
    return plain ? plain->forward(x) : noisy->forward(x, noise);
  }
};

// Trunk (the model config) -> advantage head [-> state-value head] -> Q values, or
// with num_atoms > 1 the logits of each action's return distribution over the atoms.
class QNetworkImpl : public torch::nn::Module {
 public:
  QNetworkImpl(int obs_dim, int num_actions, const DQNConfig& c)
      : dueling_(c.dueling), actions_(num_actions), atoms_(c.num_atoms) {
    const auto& m = c.model;
    trunk_ = register_module("trunk", Layers(obs_dim, m.fcnet_hiddens, m.fcnet_activation));
    const int features = LastWidth(obs_dim, m.fcnet_hiddens);
    adv_ = Head(*this, "advantage", features, num_actions * atoms_, c);
    if (dueling_) value_ = Head(*this, "value", features, atoms_, c);
    support_ = torch::linspace(c.v_min, c.v_max, atoms_);
  }
  // [rows, actions] Q values (num_atoms 1), or [rows, actions, atoms] logits. Dueling
  // adds the state value to the centred advantages (per atom with num_atoms > 1).
  torch::Tensor forward(torch::Tensor obs, bool noise) {
    torch::Tensor x = trunk_->size() ? trunk_->forward(obs) : obs;
    torch::Tensor a = adv_(x, noise);
    if (atoms_ > 1) a = a.view({-1, actions_, atoms_});
    if (!dueling_) return a;
    torch::Tensor v = value_(x, noise);
    if (atoms_ > 1) v = v.unsqueeze(1);
    return v + a - a.mean(1, /*keepdim=*/true);
  }
  // Q values from forward's output: the expected return under each distribution.
  torch::Tensor Q(const torch::Tensor& out) const {
    return atoms_ > 1 ? (torch::softmax(out, -1) * support_).sum(-1) : out;
  }

 private:
  bool dueling_;
  int actions_, atoms_;
  torch::nn::Sequential trunk_{nullptr};
  Head adv_, value_;
  torch::Tensor support_;  // the atoms' returns: v_min .. v_max
};
TORCH_MODULE(QNetwork);

// ProjectOntoSupport on tensors: rewards and dones [rows], probs [rows, atoms].
torch::Tensor Project(const torch::Tensor& rewards, const torch::Tensor& dones, const torch::Tensor& probs,
                      double discount, double v_min, double v_max) {
  const int64_t atoms = probs.size(1);
  const double dz = (v_max - v_min) / static_cast<double>(atoms - 1);
  auto z = torch::linspace(v_min, v_max, atoms).unsqueeze(0);
  auto r_tau = (rewards.unsqueeze(1) + discount * (1 - dones).unsqueeze(1) * z).clamp(v_min, v_max);
  auto b = ((r_tau - v_min) / dz).clamp(0, static_cast<double>(atoms - 1));
  auto lb = b.floor(), ub = b.ceil();
  // Where b is a whole number lb == ub: its mass goes to that atom whole.
  auto whole = (ub - lb < 0.5).to(torch::kFloat32);
  auto m = torch::zeros_like(probs);
  m.scatter_add_(1, lb.to(torch::kLong), probs * (ub - b + whole));
  m.scatter_add_(1, ub.to(torch::kLong), probs * (b - lb));
  return m;
}

std::vector<float> Flatten(const std::vector<torch::Tensor>& tensors) {
  std::vector<float> flat;
  for (const auto& t : tensors) {
    auto v = ToVector(t.detach());
    flat.insert(flat.end(), v.begin(), v.end());
  }
  return flat;
}

torch::Tensor Huber(const torch::Tensor& x, double delta = 1.0) {
  auto a = x.abs();
  return torch::where(a < delta, 0.5 * x.pow(2), delta * (a - 0.5 * delta));
}

}  // namespace

struct DQNPolicy::Nets {
  QNetwork online{nullptr}, target{nullptr};
  std::unique_ptr<torch::optim::Adam> optimizer;
  std::mt19937_64 rng;

  int64_t NumWeights() const {
    int64_t n = 0;
    for (const auto& p : online->parameters()) n += p.numel();
    return n;
  }
  void CheckSize(size_t got, const char* what) const {
    if (static_cast<int64_t>(got) != NumWeights()) {
      throw std::invalid_argument(std::string(what) + ": got " + std::to_string(got) +
                                  " values, the layout has " + std::to_string(NumWeights()));
    }
  }
  std::string Layout() const {
    std::string out;
    for (const auto& item : online->named_parameters()) {
      out += (out.empty() ? "" : ",") + item.key() + ":";
      const auto sizes = item.value().sizes();
      for (size_t i = 0; i < sizes.size(); ++i) out += (i ? "x" : "") + std::to_string(sizes[i]);
    }
    return out;
  }
};

Result<std::unique_ptr<DQNPolicy>> DQNPolicy::Create(const PolicySpec& spec, const DQNConfig& config) {
  RAY_RETURN_IF_ERROR(config.Validate());
  if (!spec.discrete) {
    return Status::InvalidArgument("DQN needs a Discrete action space (this env's actions are a Box)");
  }
  if (spec.obs_dim <= 0 || spec.num_actions <= 0) {
    return Status::InvalidArgument("DQN: obs_dim and num_actions must be > 0");
  }
  return std::unique_ptr<DQNPolicy>(new DQNPolicy(spec, config));
}

DQNPolicy::DQNPolicy(const PolicySpec& spec, const DQNConfig& config)
    : spec_(spec), config_(config), nets_(std::make_unique<Nets>()) {
  if (config.seed) {
    torch::manual_seed(static_cast<uint64_t>(*config.seed));
    nets_->rng.seed(static_cast<uint64_t>(*config.seed));
  } else {
    nets_->rng.seed(std::random_device{}());
  }
  nets_->online = QNetwork(spec.obs_dim, spec.num_actions, config);
  nets_->target = QNetwork(spec.obs_dim, spec.num_actions, config);
  nets_->optimizer = std::make_unique<torch::optim::Adam>(
      nets_->online->parameters(), torch::optim::AdamOptions(config.lr).eps(config.adam_epsilon));
  UpdateTarget();
}

DQNPolicy::~DQNPolicy() = default;

void DQNPolicy::UpdateTarget() {
  torch::NoGradGuard no_grad;
  auto src = nets_->online->parameters();
  auto dst = nets_->target->parameters();
  for (size_t i = 0; i < src.size(); ++i) dst[i].copy_(src[i]);
}

std::vector<float> DQNPolicy::QValues(const std::vector<float>& obs, bool target) const {
  return Q(obs, target, /*noise=*/false);
}

std::vector<float> DQNPolicy::Q(const std::vector<float>& obs, bool target, bool noise) const {
  if (obs.empty() || obs.size() % spec_.obs_dim != 0) {
    throw std::invalid_argument("DQN: " + std::to_string(obs.size()) +
                                " floats is not a positive multiple of obs_dim " + std::to_string(spec_.obs_dim));
  }
  torch::NoGradGuard no_grad;
  auto input = ToTensor(obs, static_cast<int64_t>(obs.size()) / spec_.obs_dim, spec_.obs_dim);
  QNetwork& net = target ? nets_->target : nets_->online;
  return ToVector(net->Q(net->forward(input, noise)));
}

ActionBatch DQNPolicy::ComputeActions(const std::vector<float>& obs, bool explore) {
  ActionBatch out;
  out.action_dist_inputs = Q(obs, /*target=*/false, /*noise=*/explore && config_.noisy);
  const int n = spec_.num_actions;
  const int64_t rows = static_cast<int64_t>(obs.size()) / spec_.obs_dim;
  out.dist_dim = n;
  const double eps = explore ? epsilon() : 0.0;
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  std::uniform_int_distribution<int> random_action(0, n - 1);
  for (int64_t r = 0; r < rows; ++r) {
    const float* q = &out.action_dist_inputs[r * n];
    int a = static_cast<int>(std::max_element(q, q + n) - q);
    if (eps > 0 && unit(nets_->rng) < eps) a = random_action(nets_->rng);
    out.actions.push_back(static_cast<float>(a));
  }
  out.action_logp.assign(rows, 0.f);
  return out;
}

void DQNPolicy::Postprocess(SampleBatch* traj, const std::vector<float>& next_obs) {
  PostprocessNStep(traj, next_obs, config_.gamma, config_.replay.n_step, "DQN");
}

namespace {

struct QLoss {
  torch::Tensor loss, td, q_selected;
};

}  // namespace

std::vector<float> ProjectOntoSupport(const std::vector<float>& rewards, const std::vector<float>& dones,
                                      const std::vector<float>& probs, double discount, double v_min,
                                      double v_max) {
  const auto rows = static_cast<int64_t>(rewards.size());
  if (rows == 0 || dones.size() != rewards.size() || probs.size() % rewards.size() != 0 ||
      probs.size() / rewards.size() < 2) {
    throw std::invalid_argument("ProjectOntoSupport: rewards, dones and probs do not fit 2 or more atoms a row");
  }
  const auto atoms = static_cast<int64_t>(probs.size()) / rows;
  return ToVector(Project(ToTensor(rewards, rows, 1).squeeze(1), ToTensor(dones, rows, 1).squeeze(1),
                          ToTensor(probs, rows, atoms), discount, v_min, v_max));
}

// The loss of RLlib's QLoss on a replayed batch, with grad: the Huber loss of the TD
// error (num_atoms 1), or the cross-entropy between the projected target distribution
// and the taken action's (num_atoms > 1; it is also the "TD error" the priorities use).
static QLoss ComputeLoss(const SampleBatch& b, const PolicySpec& spec, const DQNConfig& c, QNetwork& online,
                         QNetwork& target) {
  b.Validate();
  if (b.size() == 0 || b.new_obs.empty()) {
    throw std::invalid_argument("DQN: the batch is empty or has no new_obs (not postprocessed by DQN)");
  }
  if (b.obs_dim != spec.obs_dim) {
    throw std::invalid_argument("DQN: batch obs width " + std::to_string(b.obs_dim) + " is not the policy's " +
                                std::to_string(spec.obs_dim));
  }
  const int64_t n = b.size();
  auto obs = ToTensor(b.obs, n, spec.obs_dim);
  auto new_obs = ToTensor(b.new_obs, n, spec.obs_dim);
  auto actions = ToTensor(b.actions, n, 1).to(torch::kLong);
  if (actions.min().item<int64_t>() < 0 || actions.max().item<int64_t>() >= spec.num_actions) {
    throw std::invalid_argument("DQN: an action in the batch is outside [0, num_actions)");
  }
  auto rewards = ToTensor(b.rewards, n, 1).squeeze(1);
  std::vector<float> done(b.terminateds.begin(), b.terminateds.end());
  auto dones = ToTensor(done, n, 1).squeeze(1);
  auto weights = b.weights.empty() ? torch::ones({n}) : ToTensor(b.weights, n, 1).squeeze(1);

  const double discount = std::pow(c.gamma, c.replay.n_step);
  const bool noise = c.noisy;
  QLoss out;
  torch::Tensor out_t = online->forward(obs, noise);
  torch::Tensor out_tp1, best;
  {
    torch::NoGradGuard no_grad;
    out_tp1 = target->forward(new_obs, noise);
    best = (c.double_q ? online->Q(online->forward(new_obs, noise)) : target->Q(out_tp1)).argmax(1, true);
  }
  if (c.num_atoms == 1) {
    out.q_selected = out_t.gather(1, actions).squeeze(1);
    auto target_value = rewards + discount * (1 - dones) * out_tp1.gather(1, best).squeeze(1);
    out.td = out.q_selected - target_value;
    out.loss = (weights * Huber(out.td)).mean();
    return out;
  }
  const int64_t atoms = c.num_atoms;
  auto of = [&](const torch::Tensor& t, const torch::Tensor& a) {  // [rows, atoms] of action a
    return t.gather(1, a.view({n, 1, 1}).expand({n, 1, atoms})).squeeze(1);
  };
  torch::Tensor logits = of(out_t, actions);
  torch::Tensor m;
  {
    torch::NoGradGuard no_grad;
    m = Project(rewards, dones, torch::softmax(of(out_tp1, best), -1), discount, c.v_min, c.v_max);
  }
  out.q_selected = (torch::softmax(logits, -1) * torch::linspace(c.v_min, c.v_max, atoms)).sum(-1);
  out.td = -(m * torch::log_softmax(logits, -1)).sum(-1);
  out.loss = (weights * out.td).mean();
  return out;
}

static LearnerStats Stats(const QLoss& l) {
  auto q = l.q_selected.detach();
  return {{"total_loss", l.loss.item<double>()},  {"mean_q", q.mean().item<double>()},
          {"min_q", q.min().item<double>()},       {"max_q", q.max().item<double>()},
          {"mean_td_error", l.td.detach().mean().item<double>()}};
}

LearnerStats DQNPolicy::LearnOnBatch(const SampleBatch& batch) {
  const double lr = config_.LrAt(timestep_);
  for (auto& group : nets_->optimizer->param_groups()) {
    static_cast<torch::optim::AdamOptions&>(group.options()).lr(lr);
  }
  QLoss l = ComputeLoss(batch, spec_, config_, nets_->online, nets_->target);
  nets_->optimizer->zero_grad();
  l.loss.backward();
  if (config_.grad_clip) torch::nn::utils::clip_grad_norm_(nets_->online->parameters(), *config_.grad_clip);
  nets_->optimizer->step();
  last_td_ = ToVector(l.td.detach());
  LearnerStats stats = Stats(l);
  stats["cur_lr"] = lr;
  return stats;
}

std::vector<float> DQNPolicy::ComputeTDErrors(const SampleBatch& batch) {
  torch::NoGradGuard no_grad;
  return ToVector(ComputeLoss(batch, spec_, config_, nets_->online, nets_->target).td);
}

Gradients DQNPolicy::ComputeGradients(const SampleBatch& batch) {
  QLoss l = ComputeLoss(batch, spec_, config_, nets_->online, nets_->target);
  nets_->optimizer->zero_grad();
  l.loss.backward();
  if (config_.grad_clip) torch::nn::utils::clip_grad_norm_(nets_->online->parameters(), *config_.grad_clip);
  Gradients out;
  out.num_rows = batch.size();
  for (const auto& p : nets_->online->parameters()) {
    auto g = p.grad().defined() ? ToVector(p.grad()) : std::vector<float>(p.numel(), 0.f);
    out.grads.insert(out.grads.end(), g.begin(), g.end());
  }
  nets_->optimizer->zero_grad();
  last_td_ = ToVector(l.td.detach());
  out.info = Stats(l);
  return out;
}

void DQNPolicy::ApplyGradients(const std::vector<float>& grads) {
  nets_->CheckSize(grads.size(), "ApplyGradients");
  int64_t offset = 0;
  for (auto& p : nets_->online->parameters()) {
    p.mutable_grad() = ToTensor(std::vector<float>(grads.begin() + offset, grads.begin() + offset + p.numel()),
                                1, p.numel()).view(p.sizes());
    offset += p.numel();
  }
  nets_->optimizer->step();
  nets_->optimizer->zero_grad();
}

std::vector<float> DQNPolicy::GetWeights() const { return Flatten(nets_->online->parameters()); }

void DQNPolicy::SetWeights(const std::vector<float>& weights) {
  nets_->CheckSize(weights.size(), "SetWeights");
  torch::NoGradGuard no_grad;
  int64_t offset = 0;
  for (auto& p : nets_->online->parameters()) {
    p.copy_(torch::from_blob(const_cast<float*>(weights.data() + offset), p.sizes(), torch::kFloat32));
    offset += p.numel();
  }
}

void DQNPolicy::SaveState(const std::string& path) const {
  try {
    torch::serialize::OutputArchive archive, online, target, optim;
    nets_->online->save(online);
    nets_->target->save(target);
    nets_->optimizer->save(optim);
    archive.write("model", online);
    archive.write("target_model", target);
    archive.write("optimizer", optim);
    archive.write("timesteps_trained", c10::IValue(timestep_));
    archive.write("layout", c10::IValue(nets_->Layout()));
    archive.save_to(path);
  } catch (const std::exception& e) {
    throw std::runtime_error("saving the DQN policy to " + path + ": " + e.what());
  }
}

void DQNPolicy::RestoreState(const std::string& path) {
  torch::serialize::InputArchive archive;
  try {
    archive.load_from(path);
  } catch (const std::exception& e) {
    throw std::runtime_error("restoring the DQN policy from " + path + ": " + e.what());
  }
  c10::IValue layout;
  if (!archive.try_read("layout", layout) || !layout.isString() || layout.toStringRef() != nets_->Layout()) {
    throw std::invalid_argument("restoring the DQN policy from " + path +
                                ": the checkpoint's layout differs from this policy's");
  }
  try {
    torch::serialize::InputArchive online, target, optim;
    archive.read("model", online);
    archive.read("target_model", target);
    archive.read("optimizer", optim);
    nets_->online->load(online);
    nets_->target->load(target);
    nets_->optimizer->load(optim);
    c10::IValue t;
    archive.read("timesteps_trained", t);
    timestep_ = t.toInt();
  } catch (const std::exception& e) {
    throw std::runtime_error("restoring the DQN policy from " + path + ": " + e.what());
  }
}

}  // namespace ray::rllib
