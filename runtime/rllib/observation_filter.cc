#include "runtime/rllib/observation_filter.h"

#include <cmath>

namespace ray::rllib {

void RunningStat::Push(const float* x) {
  const int64_t n1 = n_++;
  for (size_t i = 0; i < mean_.size(); ++i) {
    const double v = x[i];
    if (n_ == 1) {
      mean_[i] = v;
      continue;
    }
    const double delta = v - mean_[i];
    mean_[i] += delta / static_cast<double>(n_);
    s_[i] += delta * delta * static_cast<double>(n1) / static_cast<double>(n_);
  }
}

void RunningStat::Merge(const RunningStat& other) {
  if (other.n_ == 0) return;
  if (n_ == 0) {
    *this = other;
    return;
  }
  const double n1 = static_cast<double>(n_), n2 = static_cast<double>(other.n_), n = n1 + n2;
  for (size_t i = 0; i < mean_.size(); ++i) {
    const double delta = mean_[i] - other.mean_[i];
    mean_[i] = (n1 * mean_[i] + n2 * other.mean_[i]) / n;
    s_[i] += other.s_[i] + delta * delta * n1 * n2 / n;
  }
  n_ += other.n_;
}

std::vector<double> RunningStat::Std() const {
  std::vector<double> out(mean_.size());
  for (size_t i = 0; i < out.size(); ++i) {
    out[i] = n_ > 1 ? std::sqrt(s_[i] / static_cast<double>(n_ - 1)) : std::fabs(mean_[i]);
  }
  return out;
}

nlohmann::json RunningStat::ToJson() const { return {{"n", n_}, {"mean", mean_}, {"s", s_}}; }

Result<RunningStat> RunningStat::FromJson(const nlohmann::json& j) {
  if (!j.is_object() || !j.contains("n") || !j["n"].is_number_integer() || !j.contains("mean") ||
      !j["mean"].is_array() || !j.contains("s") || !j["s"].is_array() || j["mean"].size() != j["s"].size()) {
    return Status::InvalidArgument("observation filter state: expected {\"n\", \"mean\", \"s\"}, got " +
                                   j.dump().substr(0, 200));
  }
  RunningStat rs;
  rs.n_ = j["n"].get<int64_t>();
  for (const auto& v : j["mean"]) rs.mean_.push_back(v.get<double>());
  for (const auto& v : j["s"]) rs.s_.push_back(v.get<double>());
  return rs;
}

void MeanStdFilter::Apply(float* x, bool update) {
  if (update) {
    rs_.Push(x);
    buffer_.Push(x);
  }
  const std::vector<double> std = rs_.Std();
  for (size_t i = 0; i < std.size(); ++i) {
    x[i] = static_cast<float>((x[i] - rs_.mean()[i]) / (std[i] + 1e-8));
  }
}

FilterState MeanStdFilter::GetState(bool flush) {
  FilterState s{rs_, buffer_};
  if (flush) buffer_ = RunningStat(size());
  return s;
}

Status MeanStdFilter::CheckSize(const RunningStat& s, const char* what) const {
  if (s.size() == size()) return Status::Ok();
  return Status::InvalidArgument(std::string("observation filter: ") + what + " has " +
                                 std::to_string(s.size()) + " elements, this filter " +
                                 std::to_string(size()));
}

Status MeanStdFilter::Merge(const FilterState& worker) {
  RAY_RETURN_IF_ERROR(CheckSize(worker.buffer, "a worker's filter"));
  rs_.Merge(worker.buffer);
  return Status::Ok();
}

Status MeanStdFilter::SyncFrom(const FilterState& master) {
  RAY_RETURN_IF_ERROR(CheckSize(master.rs, "the trainer's filter"));
  rs_ = master.rs;
  buffer_ = RunningStat(size());
  return Status::Ok();
}

Status MeanStdFilter::FromJson(const nlohmann::json& j) {
  RAY_ASSIGN_OR_RETURN(RunningStat rs, RunningStat::FromJson(j));
  RAY_RETURN_IF_ERROR(CheckSize(rs, "the checkpoint's filter"));
  rs_ = std::move(rs);
  buffer_ = RunningStat(size());
  return Status::Ok();
}

}  // namespace ray::rllib
