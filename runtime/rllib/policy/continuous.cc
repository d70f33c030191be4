#include "runtime/rllib/policy/continuous.h"

#include <cmath>
#include <stdexcept>

#include "runtime/rllib/policy/torch_policy_impl.h"

namespace ray::rllib {

torch::nn::Sequential Mlp(int in, const std::vector<int>& hiddens, const std::string& activation, int out) {
  if (activation != "relu" && activation != "tanh" && activation != "linear") {
    throw std::invalid_argument("unknown activation '" + activation + "' (relu, tanh or linear)");
  }
  torch::nn::Sequential seq;
  for (int size : hiddens) {
    seq->push_back(torch::nn::Linear(in, size));
    if (activation == "relu") seq->push_back(torch::nn::ReLU());
    else if (activation == "tanh") seq->push_back(torch::nn::Tanh());
    in = size;
  }
  seq->push_back(torch::nn::Linear(in, out));
  return seq;
}

std::pair<torch::Tensor, torch::Tensor> TwinQValues(torch::nn::Sequential& q1, torch::nn::Sequential& q2,
                                                    const torch::Tensor& obs, const torch::Tensor& a) {
  auto x = torch::cat({obs, a}, 1);
  auto first = q1->forward(x).squeeze(1);
  if (q2.is_empty()) return {first, {}};
  return {first, q2->forward(x).squeeze(1)};
}

void SoftUpdate(const std::vector<torch::Tensor>& target, const std::vector<torch::Tensor>& source, double tau) {
  if (target.size() != source.size()) {
    throw std::invalid_argument("SoftUpdate: " + std::to_string(target.size()) + " target parameters, " +
                                std::to_string(source.size()) + " source parameters");
  }
  torch::NoGradGuard no_grad;
  for (size_t i = 0; i < target.size(); ++i) {
    if (!target[i].sizes().equals(source[i].sizes())) {
      throw std::invalid_argument("SoftUpdate: parameter " + std::to_string(i) + " differs in shape");
    }
    target[i].mul_(1.0 - tau).add_(source[i], tau);
  }
}

torch::Tensor SquashedGaussianLogp(const torch::Tensor& mean, const torch::Tensor& log_std, const torch::Tensor& u) {
  const auto z = (u - mean) * torch::exp(-log_std);
  const auto normal = -0.5 * z.pow(2) - log_std - 0.5 * std::log(2 * M_PI);
  const auto log_det = 2.0 * (std::log(2.0) - u - torch::nn::functional::softplus(-2.0 * u));
  return (normal - log_det).sum(-1);
}

std::pair<torch::Tensor, torch::Tensor> SquashedGaussianSample(const torch::Tensor& mean,
                                                               const torch::Tensor& log_std, bool deterministic) {
  const auto u = deterministic ? mean : mean + torch::exp(log_std) * torch::randn_like(mean);
  return {torch::tanh(u), SquashedGaussianLogp(mean, log_std, u)};
}

torch::Tensor TwinQTarget(const torch::Tensor& rewards, const torch::Tensor& dones, double discount,
                          const torch::Tensor& q1_tp1, const torch::Tensor& q2_tp1) {
  torch::NoGradGuard no_grad;
  const auto q = q2_tp1.defined() ? torch::min(q1_tp1, q2_tp1) : q1_tp1;
  return (rewards + discount * (1.0 - dones) * q).detach();
}

torch::Tensor SmoothTargetAction(const torch::Tensor& actions, double noise, double noise_clip,
                                 const torch::Tensor& low, const torch::Tensor& high) {
  const auto eps = torch::clamp(torch::randn_like(actions) * noise, -noise_clip, noise_clip);
  return torch::max(torch::min(actions + eps, high), low);
}

torch::Tensor Unsquash(const torch::Tensor& unit, const torch::Tensor& low, const torch::Tensor& high) {
  return low + (unit + 1.0) * 0.5 * (high - low);
}

torch::Tensor Squash(const torch::Tensor& actions, const torch::Tensor& low, const torch::Tensor& high) {
  return 2.0 * (actions - low) / (high - low) - 1.0;
}

torch::Tensor HuberLoss(const torch::Tensor& x, double delta) {
  const auto a = x.abs();
  return torch::where(a < delta, 0.5 * x.pow(2), delta * (a - 0.5 * delta));
}

torch::Tensor L2Loss(const std::vector<torch::Tensor>& params) {
  torch::Tensor sum = torch::zeros({});
  for (const auto& p : params) {
    if (p.dim() >= 2) sum = sum + 0.5 * p.pow(2).sum();
  }
  return sum;
}

std::vector<torch::Tensor> ModuleSet::Parameters() const {
  std::vector<torch::Tensor> out;
  for (const auto& [name, m] : modules) {
    for (const auto& p : m->parameters()) out.push_back(p);
  }
  for (const auto& [name, p] : extra_params) out.push_back(p);
  return out;
}

int64_t ModuleSet::NumWeights() const {
  int64_t n = 0;
  for (const auto& p : Parameters()) n += p.numel();
  return n;
}

std::string ModuleSet::Layout() const {
  std::string out;
  auto add = [&](const std::string& name, const torch::Tensor& t) {
    out += (out.empty() ? "" : ",") + name + ":";
    const auto sizes = t.sizes();
    for (size_t i = 0; i < sizes.size(); ++i) out += (i ? "x" : "") + std::to_string(sizes[i]);
  };
  for (const auto& [prefix, m] : modules) {
    for (const auto& item : m->named_parameters()) add(prefix + "." + item.key(), item.value());
  }
  for (const auto& [name, p] : extra_params) add(name, p);
  return out;
}

std::vector<float> ModuleSet::Flatten() const {
  const auto params = Parameters();
  return FlattenTensors(params, params);
}

void ModuleSet::Assign(const std::vector<float>& flat, const char* what) const {
  if (static_cast<int64_t>(flat.size()) != NumWeights()) {
    throw std::invalid_argument(std::string(what) + ": got " + std::to_string(flat.size()) +
                                " values, the layout has " + std::to_string(NumWeights()));
  }
  torch::NoGradGuard no_grad;
  int64_t offset = 0;
  for (auto p : Parameters()) {
    p.copy_(torch::from_blob(const_cast<float*>(flat.data() + offset), p.sizes(), torch::kFloat32));
    offset += p.numel();
  }
}

void ModuleSet::SetGradients(const std::vector<float>& flat, const char* what) const {
  if (static_cast<int64_t>(flat.size()) != NumWeights()) {
    throw std::invalid_argument(std::string(what) + ": got " + std::to_string(flat.size()) +
                                " values, the layout has " + std::to_string(NumWeights()));
  }
  int64_t offset = 0;
  for (auto p : Parameters()) {
    p.mutable_grad() =
        torch::from_blob(const_cast<float*>(flat.data() + offset), p.sizes(), torch::kFloat32).clone();
    offset += p.numel();
  }
}

std::vector<float> FlattenTensors(const std::vector<torch::Tensor>& tensors, const std::vector<torch::Tensor>& like) {
  std::vector<float> flat;
  for (size_t i = 0; i < like.size(); ++i) {
    if (i < tensors.size() && tensors[i].defined()) {
      auto v = ToVector(tensors[i].detach());
      flat.insert(flat.end(), v.begin(), v.end());
    } else {
      flat.insert(flat.end(), like[i].numel(), 0.f);
    }
  }
  return flat;
}

void ModuleSet::Save(const std::string& path, const std::vector<std::pair<std::string, int64_t>>& counters,
                     const std::string& who) const {
  try {
    torch::serialize::OutputArchive archive;
    for (const auto& [name, m] : modules) {
      torch::serialize::OutputArchive a;
      m->save(a);
      archive.write(name, a);
    }
    for (const auto& [name, o] : optimizers) {
      torch::serialize::OutputArchive a;
      o->save(a);
      archive.write(name, a);
    }
    for (const auto& [name, p] : extra_params) archive.write(name, p.detach());
    for (const auto& [name, v] : counters) archive.write(name, c10::IValue(v));
    archive.write("layout", c10::IValue(Layout()));
    archive.save_to(path);
  } catch (const std::exception& e) {
    throw std::runtime_error("saving the " + who + " policy to " + path + ": " + e.what());
  }
}

void ModuleSet::Restore(const std::string& path, const std::vector<std::pair<std::string, int64_t*>>& counters,
                        const std::string& who) const {
  torch::serialize::InputArchive archive;
  try {
    archive.load_from(path);
  } catch (const std::exception& e) {
    throw std::runtime_error("restoring the " + who + " policy from " + path + ": " + e.what());
  }
  c10::IValue layout;
  if (!archive.try_read("layout", layout) || !layout.isString() || layout.toStringRef() != Layout()) {
    throw std::invalid_argument("restoring the " + who + " policy from " + path +
                                ": the checkpoint's layout differs from this policy's");
  }
  try {
    for (const auto& [name, m] : modules) {
      torch::serialize::InputArchive a;
      archive.read(name, a);
      m->load(a);
    }
    for (const auto& [name, o] : optimizers) {
      torch::serialize::InputArchive a;
      archive.read(name, a);
      o->load(a);
    }
    for (const auto& [name, p] : extra_params) {
      torch::Tensor t;
      archive.read(name, t);
      torch::NoGradGuard no_grad;
      p.copy_(t);
    }
    for (const auto& [name, out] : counters) {
      c10::IValue v;
      archive.read(name, v);
      *out = v.toInt();
    }
  } catch (const std::exception& e) {
    throw std::runtime_error("restoring the " + who + " policy from " + path + ": " + e.what());
  }
}

}  // namespace ray::rllib
