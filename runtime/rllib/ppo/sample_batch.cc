#include "runtime/rllib/ppo/sample_batch.h"

#include <algorithm>
#include <numeric>
#include <string_view>

namespace ray::rllib {
namespace {

using WidthField = int32_t SampleBatch::*;
constexpr WidthField kOne = nullptr;  // a scalar column

int Width(const SampleBatch& b, WidthField w) { return w ? b.*w : 1; }

// Calls fn(member pointer, name, width field) for every column.
template <typename Fn>
void ForEachColumn(Fn&& fn) {
  fn(&SampleBatch::obs, "obs", &SampleBatch::obs_dim);
  fn(&SampleBatch::actions, "actions", &SampleBatch::action_dim);
  fn(&SampleBatch::rewards, "rewards", kOne);
  fn(&SampleBatch::terminateds, "terminateds", kOne);
  fn(&SampleBatch::truncateds, "truncateds", kOne);
  fn(&SampleBatch::action_dist_inputs, "action_dist_inputs", &SampleBatch::dist_dim);
  fn(&SampleBatch::action_logp, "action_logp", kOne);
  fn(&SampleBatch::vf_preds, "vf_preds", kOne);
  fn(&SampleBatch::eps_id, "eps_id", kOne);
  fn(&SampleBatch::advantages, "advantages", kOne);
  fn(&SampleBatch::value_targets, "value_targets", kOne);
}

SampleBatch EmptyLike(const SampleBatch& b) {
  SampleBatch out;
  out.obs_dim = b.obs_dim;
  out.action_dim = b.action_dim;
  out.dist_dim = b.dist_dim;
  return out;
}

}  // namespace

Status SampleBatch::Validate() const {
  const int64_t n = size();
  Status st;
  ForEachColumn([&](auto col, const char* name, WidthField w) {
    const auto& c = this->*col;
    const std::string_view column = name;
    const bool optional = column == "advantages" || column == "value_targets";
    if (!st.ok() || (optional && c.empty())) return;
    const int64_t want = n * Width(*this, w);
    if (static_cast<int64_t>(c.size()) != want) {
      st = Status::DataLoss(std::string("SampleBatch column '") + name + "' has " +
                            std::to_string(c.size()) + " values, expected " +
                            std::to_string(want));
    }
  });
  return st;
}

SampleBatch SampleBatch::Slice(int64_t begin, int64_t end) const {
  SampleBatch out = EmptyLike(*this);
  ForEachColumn([&](auto col, const char*, WidthField w) {
    const auto& src = this->*col;
    if (src.empty()) return;
    const int width = Width(*this, w);
    (out.*col).assign(src.begin() + begin * width, src.begin() + end * width);
  });
  return out;
}

SampleBatch SampleBatch::Gather(const std::vector<int64_t>& rows) const {
  SampleBatch out = EmptyLike(*this);
  ForEachColumn([&](auto col, const char*, WidthField w) {
    const auto& src = this->*col;
    if (src.empty()) return;
    const int width = Width(*this, w);
    auto& dst = out.*col;
    dst.reserve(rows.size() * width);
    for (int64_t r : rows) {
      dst.insert(dst.end(), src.begin() + r * width, src.begin() + (r + 1) * width);
    }
  });
  return out;
}

void SampleBatch::Shuffle(std::mt19937_64& rng) {
  std::vector<int64_t> perm(size());
  std::iota(perm.begin(), perm.end(), 0);
  std::shuffle(perm.begin(), perm.end(), rng);
  *this = Gather(perm);
}

Status SampleBatch::Append(const SampleBatch& other) {
  if (other.size() == 0) return Status::Ok();
  if (size() == 0) {
    *this = other;
    return Status::Ok();
  }
  if (obs_dim != other.obs_dim || action_dim != other.action_dim || dist_dim != other.dist_dim) {
    return Status::InvalidArgument("SampleBatch::Append: column widths differ");
  }
  if (advantages.empty() != other.advantages.empty() ||
      value_targets.empty() != other.value_targets.empty()) {
    return Status::InvalidArgument("SampleBatch::Append: cannot mix postprocessed and raw batches");
  }
  ForEachColumn([&](auto col, const char*, WidthField) {
    auto& dst = this->*col;
    const auto& src = other.*col;
    dst.insert(dst.end(), src.begin(), src.end());
  });
  return Status::Ok();
}

Result<SampleBatch> SampleBatch::Concat(const std::vector<SampleBatch>& batches) {
  SampleBatch out;
  for (const SampleBatch& b : batches) RAY_RETURN_IF_ERROR(out.Append(b));
  return out;
}

}  // namespace ray::rllib
