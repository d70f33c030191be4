#include "runtime/rllib/policy/torch_policy.h"

#include <random>
#include <stdexcept>

#include "runtime/rllib/policy/postprocessing.h"
#include "runtime/rllib/policy/torch_policy_impl.h"

namespace ray::rllib {

torch::Tensor ToTensor(const std::vector<float>& v, int64_t rows, int64_t width) {
  // from_blob does not own the memory; clone so the tensor outlives `v`.
  return torch::from_blob(const_cast<float*>(v.data()), {rows, width}, torch::kFloat32).clone();
}

std::vector<float> ToVector(const torch::Tensor& t) {
  auto c = t.contiguous().to(torch::kFloat32);
  return std::vector<float>(c.data_ptr<float>(), c.data_ptr<float>() + c.numel());
}

void SetTorchNumThreads(int num_threads) { torch::set_num_threads(num_threads); }

TorchBatch TorchBatch::Select(const torch::Tensor& idx) const {
  if (seq_lens.defined()) throw std::logic_error("TorchBatch::Select on a batch of sequences");
  auto pick = [&](const torch::Tensor& t) { return t.defined() ? t.index_select(0, idx) : t; };
  TorchBatch out;
  out.n = idx.size(0);
  out.obs = pick(obs);
  out.actions = pick(actions);
  out.rewards = pick(rewards);
  out.action_dist_inputs = pick(action_dist_inputs);
  out.action_logp = pick(action_logp);
  out.vf_preds = pick(vf_preds);
  out.advantages = pick(advantages);
  out.value_targets = pick(value_targets);
  return out;
}

TorchBatch TorchBatch::SelectSequences(const std::vector<int64_t>& seqs) const {
  const auto* lens = seq_lens.data_ptr<int64_t>();
  std::vector<int64_t> rows, starts;
  for (int64_t q : seqs) {
    starts.push_back(static_cast<int64_t>(rows.size()));
    for (int64_t r = seq_starts.at(q); r < seq_starts[q] + lens[q]; ++r) rows.push_back(r);
  }
  auto seq_idx = torch::tensor(seqs, torch::kInt64);
  TorchBatch flat = *this;
  flat.seq_lens = flat.state_in = torch::Tensor();
  TorchBatch out = flat.Select(torch::tensor(rows, torch::kInt64));
  out.state_in = state_in.index_select(0, seq_idx);
  out.seq_lens = seq_lens.index_select(0, seq_idx);
  out.seq_starts = std::move(starts);
  return out;
}

TorchBatch TorchPolicy::Impl::ToTensors(const SampleBatch& b) const {
  b.Validate();
  if (b.obs_dim != spec.obs_dim) {
    throw std::invalid_argument("batch obs width " + std::to_string(b.obs_dim) +
                                " does not match the policy's " + std::to_string(spec.obs_dim));
  }
  const int64_t n = b.size();
  auto column = [&](const std::vector<float>& v) {
    return v.empty() ? torch::Tensor() : ToTensor(v, n, 1).squeeze(-1);
  };
  TorchBatch t;
  t.n = n;
  t.obs = ToTensor(b.obs, n, spec.obs_dim);
  t.actions = spec.discrete ? ToTensor(b.actions, n, 1).squeeze(-1)
                            : ToTensor(b.actions, n, spec.num_actions);
  t.rewards = column(b.rewards);
  if (!b.action_dist_inputs.empty()) t.action_dist_inputs = ToTensor(b.action_dist_inputs, n, b.dist_dim);
  t.action_logp = column(b.action_logp);
  t.vf_preds = column(b.vf_preds);
  t.advantages = column(b.advantages);
  t.value_targets = column(b.value_targets);
  if (const int width = model->state_size(); width > 0) {
    if (b.state_size != width || b.state_in.empty()) {
      throw std::invalid_argument("the batch has no recurrent state of " + std::to_string(width) +
                                  " floats per row (state_in) for the policy's LSTM");
    }
    const std::vector<int64_t> lens = SequenceLengths(b.eps_id, config->model.max_seq_len);
    std::vector<float> first_states;
    for (int64_t start = 0; int64_t len : lens) {
      t.seq_starts.push_back(start);
      first_states.insert(first_states.end(), b.state_in.begin() + start * width,
                          b.state_in.begin() + (start + 1) * width);
      start += len;
    }
    t.seq_lens = torch::tensor(lens, torch::kInt64);
    t.state_in = ToTensor(first_states, t.num_sequences(), width);
  }
  return t;
}

ModelOutput TorchPolicy::Impl::ForwardRows(const torch::Tensor& obs) const {
  if (model->state_size() > 0) throw std::logic_error("ForwardRows on a recurrent model");
  return model->Forward(obs, torch::Tensor(), torch::Tensor());
}

void TorchPolicy::Impl::ClipGradients() {
  if (config->grad_clip) torch::nn::utils::clip_grad_norm_(model->parameters(), *config->grad_clip);
}

TorchPolicy::TorchPolicy(const PolicySpec& spec, const CommonConfig& config)
    : impl_(std::make_unique<Impl>()) {
  if (spec.obs_dim <= 0 || spec.num_actions <= 0) {
    throw std::invalid_argument("PolicySpec: obs_dim and num_actions must be > 0");
  }
  if (Status st = config.ValidateCommon(); !st.ok()) throw std::invalid_argument(st.message());
  impl_->spec = spec;
  impl_->config = std::make_unique<CommonConfig>(config);
  if (config.seed) {
    torch::manual_seed(static_cast<uint64_t>(*config.seed));
    impl_->rng.seed(static_cast<uint64_t>(*config.seed));
  } else {
    impl_->rng.seed(std::random_device{}());
  }
  impl_->model = MakeModel(spec.obs_dim, spec.num_actions, spec.discrete, config.model, config.model_plugin);
  impl_->optimizer = std::make_unique<torch::optim::Adam>(impl_->model->parameters(),
                                                          torch::optim::AdamOptions(config.lr));
}

TorchPolicy::~TorchPolicy() = default;

const PolicySpec& TorchPolicy::spec() const { return impl_->spec; }
const CommonConfig& TorchPolicy::common_config() const { return *impl_->config; }
void TorchPolicy::SetTimestep(int64_t timestep) { impl_->timestep = timestep; }
int64_t TorchPolicy::timestep() const { return impl_->timestep; }

int TorchPolicy::StateSize() const { return impl_->model->state_size(); }

ActionBatch TorchPolicy::ComputeActions(const std::vector<float>& obs, bool explore) {
  if (StateSize() > 0) {
    throw std::invalid_argument("ComputeActions: a recurrent policy needs each row's state "
                                "(ComputeActionsWithState)");
  }
  return ComputeActionsWithState(obs, {}, explore);
}

namespace {

int64_t RowsOf(const std::vector<float>& obs, int obs_dim, const char* what) {
  if (obs.empty() || obs.size() % obs_dim != 0) {
    throw std::invalid_argument(std::string(what) + ": " + std::to_string(obs.size()) +
                                " floats is not a positive multiple of obs_dim " +
                                std::to_string(obs_dim));
  }
  return static_cast<int64_t>(obs.size() / obs_dim);
}

}  // namespace

ActionBatch TorchPolicy::ComputeActionsWithState(const std::vector<float>& obs,
                                                 const std::vector<float>& state_in, bool explore) {
  const int64_t rows = RowsOf(obs, impl_->spec.obs_dim, "ComputeActions");
  const int width = StateSize();
  if (state_in.size() != static_cast<size_t>(rows * width)) {
    throw std::invalid_argument("ComputeActions: " + std::to_string(state_in.size()) +
                                " floats of state for " + std::to_string(rows) + " rows of " +
                                std::to_string(width));
  }
  torch::NoGradGuard no_grad;
  auto input = torch::from_blob(const_cast<float*>(obs.data()), {rows, impl_->spec.obs_dim}, torch::kFloat32);
  ModelOutput m = width > 0 ? impl_->model->Forward(input, ToTensor(state_in, rows, width),
                                                    torch::ones({rows}, torch::kInt64))
                            : impl_->ForwardRows(input);
  auto dist = MakeActionDistribution(impl_->spec.discrete, m.dist_inputs);
  auto actions = explore ? dist->Sample() : dist->DeterministicSample();
  ActionBatch out;
  out.action_dim = impl_->spec.discrete ? 1 : impl_->spec.num_actions;
  out.dist_dim = impl_->model->dist_dim();
  out.action_logp = ToVector(dist->Logp(actions));
  out.actions = ToVector(actions);
  out.vf_preds = ToVector(m.values);
  out.action_dist_inputs = ToVector(m.dist_inputs);
  if (width > 0) out.state_out = ToVector(m.state_out);
  return out;
}

std::vector<float> TorchPolicy::ComputeValues(const std::vector<float>& obs) {
  const int64_t rows = RowsOf(obs, impl_->spec.obs_dim, "ComputeValues");
  torch::NoGradGuard no_grad;
  auto input = torch::from_blob(const_cast<float*>(obs.data()), {rows, impl_->spec.obs_dim}, torch::kFloat32);
  return ToVector(impl_->ForwardRows(input).values);
}

float TorchPolicy::BootstrapValue(const SampleBatch& traj, const std::vector<float>& next_obs) {
  const int width = StateSize();
  if (width == 0) return ComputeValues(next_obs).at(0);
  const int obs_dim = impl_->spec.obs_dim;
  const int64_t last = traj.size() - 1;
  if (last < 0 || next_obs.size() != static_cast<size_t>(obs_dim) ||
      traj.state_in.size() != static_cast<size_t>(traj.size() * width)) {
    throw std::invalid_argument("BootstrapValue: a trajectory with its states and one observation");
  }
  // Unroll the last row and next_obs from the last row's state.
  std::vector<float> two(traj.obs.end() - obs_dim, traj.obs.end());
  two.insert(two.end(), next_obs.begin(), next_obs.end());
  std::vector<float> state(traj.state_in.end() - width, traj.state_in.end());
  torch::NoGradGuard no_grad;
  ModelOutput m = impl_->model->Forward(ToTensor(two, 2, obs_dim), ToTensor(state, 1, width),
                                        torch::tensor({int64_t{2}}, torch::kInt64));
  return m.values[1].item<float>();
}

double TorchPolicy::UpdateLr() {
  const double lr = impl_->config->LrAt(impl_->timestep);
  for (auto& group : impl_->optimizer->param_groups()) group.options().set_lr(lr);
  return lr;
}

void TorchPolicy::UseRMSProp(double decay, double momentum, double epsilon) {
  impl_->optimizer = std::make_unique<torch::optim::RMSprop>(
      impl_->model->parameters(),
      torch::optim::RMSpropOptions(impl_->config->lr).alpha(decay).momentum(momentum).eps(epsilon));
}

namespace {

LearnerStats ReadStats(const LossOutput& loss) {
  LearnerStats out;
  out["total_loss"] = loss.total_loss.item<double>();
  for (const auto& [name, value] : loss.stats) out[name] = value.item<double>();
  return out;
}

void RequirePostprocessed(const SampleBatch& batch) {
  if (batch.size() == 0 || batch.advantages.empty()) {
    throw std::invalid_argument("the batch is empty or not postprocessed (no advantages)");
  }
}

}  // namespace

LearnerStats TorchPolicy::LearnOnBatch(const SampleBatch& batch) {
  RequirePostprocessed(batch);
  TorchBatch t = impl_->ToTensors(batch);
  const double lr = UpdateLr();
  LossOutput loss = Loss(t);
  impl_->optimizer->zero_grad();
  loss.total_loss.backward();
  impl_->ClipGradients();
  impl_->optimizer->step();
  impl_->timestep += batch.size();
  LearnerStats stats = ReadStats(loss);
  stats["cur_lr"] = lr;
  return stats;
}

Gradients TorchPolicy::ComputeGradients(const SampleBatch& batch) {
  RequirePostprocessed(batch);
  TorchBatch t = impl_->ToTensors(batch);
  LossOutput loss = Loss(t);
  impl_->optimizer->zero_grad();
  loss.total_loss.backward();
  impl_->ClipGradients();
  Gradients out;
  out.num_rows = batch.size();
  out.grads.reserve(NumWeights());
  for (const auto& p : impl_->model->parameters()) {
    auto g = p.grad().defined() ? ToVector(p.grad()) : std::vector<float>(p.numel(), 0.f);
    out.grads.insert(out.grads.end(), g.begin(), g.end());
  }
  impl_->optimizer->zero_grad();
  out.info = ReadStats(loss);
  return out;
}

void TorchPolicy::ApplyGradients(const std::vector<float>& grads) {
  if (static_cast<int64_t>(grads.size()) != NumWeights()) {
    throw std::invalid_argument("ApplyGradients: got " + std::to_string(grads.size()) +
                                " values, the layout has " + std::to_string(NumWeights()));
  }
  UpdateLr();
  int64_t offset = 0;
  for (auto& p : impl_->model->parameters()) {
    auto g = torch::from_blob(const_cast<float*>(grads.data() + offset), p.sizes(), torch::kFloat32);
    p.mutable_grad() = g.clone();
    offset += p.numel();
  }
  impl_->optimizer->step();
  impl_->optimizer->zero_grad();
}

std::vector<float> TorchPolicy::GetWeights() const {
  std::vector<float> flat;
  flat.reserve(NumWeights());
  for (const auto& p : impl_->model->parameters()) {
    auto v = ToVector(p.detach());
    flat.insert(flat.end(), v.begin(), v.end());
  }
  return flat;
}

void TorchPolicy::SetWeights(const std::vector<float>& weights) {
  if (static_cast<int64_t>(weights.size()) != NumWeights()) {
    throw std::invalid_argument("SetWeights: got " + std::to_string(weights.size()) +
                                " values, the layout has " + std::to_string(NumWeights()));
  }
  torch::NoGradGuard no_grad;
  int64_t offset = 0;
  for (auto& p : impl_->model->parameters()) {
    p.copy_(torch::from_blob(const_cast<float*>(weights.data() + offset), p.sizes(),
                             torch::kFloat32));
    offset += p.numel();
  }
}

int64_t TorchPolicy::NumWeights() const {
  int64_t total = 0;
  for (const auto& p : impl_->model->parameters()) total += p.numel();
  return total;
}

std::string TorchPolicy::WeightsLayout() const {
  std::string out;
  for (const auto& item : impl_->model->named_parameters()) {
    if (!out.empty()) out += ",";
    out += item.key() + ":";
    const auto sizes = item.value().sizes();
    for (size_t i = 0; i < sizes.size(); ++i) out += (i ? "x" : "") + std::to_string(sizes[i]);
  }
  return out;
}

void TorchPolicy::SaveState(const std::string& path) const {
  try {
    torch::serialize::OutputArchive archive;
    torch::serialize::OutputArchive model_archive, optim_archive;
    impl_->model->save(model_archive);
    impl_->optimizer->save(optim_archive);
    archive.write("model", model_archive);
    archive.write("optimizer", optim_archive);
    // "timesteps_trained": the name checkpoints of earlier versions used.
    archive.write("timesteps_trained", c10::IValue(impl_->timestep));
    archive.write("layout", c10::IValue(WeightsLayout()));
    for (const auto& [key, value] : ExtraState()) archive.write(key, c10::IValue(value));
    archive.save_to(path);
  } catch (const std::exception& e) {
    throw std::runtime_error("saving the policy to " + path + ": " + e.what());
  }
}

void TorchPolicy::RestoreState(const std::string& path) {
  torch::serialize::InputArchive archive;
  try {
    archive.load_from(path);
  } catch (const std::exception& e) {
    throw std::runtime_error("restoring the policy from " + path + ": " + e.what());
  }
  c10::IValue layout;
  if (!archive.try_read("layout", layout) || !layout.isString() ||
      layout.toStringRef() != WeightsLayout()) {
    throw std::invalid_argument("restoring the policy from " + path +
                                ": the checkpoint's layout differs from this policy's");
  }
  try {
    torch::serialize::InputArchive model_archive, optim_archive;
    archive.read("model", model_archive);
    archive.read("optimizer", optim_archive);
    impl_->model->load(model_archive);
    impl_->optimizer->load(optim_archive);
    c10::IValue timesteps;
    archive.read("timesteps_trained", timesteps);
    impl_->timestep = timesteps.toInt();
    std::map<std::string, double> extra = ExtraState();
    for (auto& [key, value] : extra) {
      c10::IValue v;
      archive.read(key, v);
      value = v.toDouble();
    }
    SetExtraState(extra);
  } catch (const std::exception& e) {
    throw std::runtime_error("restoring the policy from " + path + ": " + e.what());
  }
}

}  // namespace ray::rllib
