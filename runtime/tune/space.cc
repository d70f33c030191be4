#include "runtime/tune/space.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sstream>

namespace ray::tune {

double UniformReal(Rng& rng) { return static_cast<double>(rng() >> 11) * 0x1.0p-53; }

int64_t UniformInt(Rng& rng, int64_t n) {
  return static_cast<int64_t>(UniformReal(rng) * static_cast<double>(n)) % n;
}

double StandardNormal(Rng& rng) {
  const double u1 = 1.0 - UniformReal(rng);  // (0, 1]
  const double u2 = UniformReal(rng);
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * M_PI * u2);
}

std::string SaveRng(const Rng& rng) {
  std::ostringstream out;
  out << rng;
  return out.str();
}

bool RestoreRng(Rng& rng, const std::string& text) {
  std::istringstream in(text);
  Rng restored;
  in >> restored;
  if (in.fail()) return false;
  rng = restored;
  return true;
}

SpacePath SpacePath::Child(const std::string& k) const {
  return SpacePath{pointer / k, text + "." + k, k};
}

SpacePath SpacePath::Child(size_t index) const {
  const std::string i = std::to_string(index);
  return SpacePath{pointer / index, text + "[" + i + "]", key.empty() ? i : key + "_" + i};
}

namespace {

constexpr std::pair<const char*, SpaceKind> kKinds[] = {
    {"grid_search", SpaceKind::kGridSearch}, {"choice", SpaceKind::kChoice},
    {"uniform", SpaceKind::kUniform},        {"loguniform", SpaceKind::kLogUniform},
    {"randint", SpaceKind::kRandInt},        {"sample_from", SpaceKind::kSampleFrom},
};

bool IsIntegral(const Json& v) {
  return v.is_number_integer() ||
         (v.is_number_float() && std::floor(v.get<double>()) == v.get<double>());
}

// [low, high] as two numbers, or nullopt.
std::optional<std::pair<double, double>> Bounds(const Json& v) {
  if (!v.is_array() || v.size() != 2 || !v[0].is_number() || !v[1].is_number()) return std::nullopt;
  return std::make_pair(v[0].get<double>(), v[1].get<double>());
}

}  // namespace

Result<std::optional<SpaceNode>> ParseSpaceNode(const Json& node, const std::string& path) {
  if (!node.is_object() || node.size() != 1) return std::optional<SpaceNode>();
  const auto& [name, arg] = *node.items().begin();
  auto known = std::find_if(std::begin(kKinds), std::end(kKinds),
                            [&](const auto& k) { return name == k.first; });
  if (known == std::end(kKinds)) return std::optional<SpaceNode>();
  SpaceNode space{};
  space.kind = known->second;
  auto bad = [&](const std::string& what) {
    return Status::InvalidArgument(path + ": " + name + " needs " + what);
  };
  switch (space.kind) {
    case SpaceKind::kGridSearch:
    case SpaceKind::kChoice:
      if (!arg.is_array() || arg.empty()) return bad("a non-empty list");
      space.values = arg;
      break;
    case SpaceKind::kUniform:
    case SpaceKind::kLogUniform: {
      auto b = Bounds(arg);
      if (!b || b->first > b->second) return bad("[low, high]");
      if (space.kind == SpaceKind::kLogUniform && b->first <= 0)
        return bad("[low, high] with low > 0");
      std::tie(space.low, space.high) = *b;
      break;
    }
    case SpaceKind::kRandInt: {
      auto b = Bounds(arg);
      if (!b || !IsIntegral(arg[0]) || !IsIntegral(arg[1]) || b->first >= b->second) {
        return bad("integers [low, high) with low < high");
      }
      std::tie(space.low, space.high) = *b;
      break;
    }
    case SpaceKind::kSampleFrom:
      if (!arg.is_string()) return bad("a function name");
      space.function = arg.get<std::string>();
      break;
  }
  return std::optional<SpaceNode>(std::move(space));
}

Status VisitSpaceNodes(Json& root, const SpacePath& root_path, const SpaceVisitor& visit) {
  auto space = ParseSpaceNode(root, root_path.text);
  if (!space.ok()) return space.status();
  if (*space) return visit(root, **space, root_path);
  if (root.is_object()) {
    for (auto& [k, v] : root.items()) {
      RAY_RETURN_IF_ERROR(VisitSpaceNodes(v, root_path.Child(k), visit));
    }
  } else if (root.is_array()) {
    for (size_t i = 0; i < root.size(); ++i) {
      RAY_RETURN_IF_ERROR(VisitSpaceNodes(root[i], root_path.Child(i), visit));
    }
  }
  return Status::Ok();
}

std::optional<double> ResultNumber(const Json& result, const std::string& key) {
  if (!result.is_object()) return std::nullopt;
  auto it = result.find(key);
  if (it == result.end() || !it->is_number()) return std::nullopt;
  return it->get<double>();
}

Json SampleSpaceNode(const SpaceNode& space, Rng& rng) {
  switch (space.kind) {
    case SpaceKind::kChoice:
      return space.values[UniformInt(rng, static_cast<int64_t>(space.values.size()))];
    case SpaceKind::kUniform:
      return space.low + UniformReal(rng) * (space.high - space.low);
    case SpaceKind::kLogUniform: {
      const double lo = std::log(space.low), hi = std::log(space.high);
      return std::exp(lo + UniformReal(rng) * (hi - lo));
    }
    case SpaceKind::kRandInt: {
      const auto low = static_cast<int64_t>(space.low);
      return low + UniformInt(rng, static_cast<int64_t>(space.high) - low);
    }
    default:
      return Json();  // grid_search and sample_from are not sampled here
  }
}

Status EvaluateSampleFrom(Json& config, const std::vector<DeferredSample>& deferred,
                          const SampleFromFn& sample_from,
                          std::vector<std::pair<std::string, Json>>& tag_vars) {
  for (const auto& d : deferred) {
    if (!sample_from) {
      return Status::InvalidArgument(d.path.text + ": sample_from '" + d.function +
                                     "' but the trainable registers no functions");
    }
    auto value = sample_from(d.function, config);
    if (!value.ok()) {
      return Status(value.status().code(), d.path.text + ": sample_from '" + d.function +
                                               "': " + value.status().message());
    }
    config[d.path.pointer] = *value;
    tag_vars[d.tag_index].second = *value;
  }
  return Status::Ok();
}

std::string FormatFloat5(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.4e", v);
  const int exp = std::atoi(std::strchr(buf, 'e') + 1);
  // Python switches to exponent notation one digit earlier than %g, since the
  // fixed form must keep a digit after the point.
  if (exp < -4 || exp >= 4) {
    std::string m(buf, std::strchr(buf, 'e'));
    while (m.back() == '0') m.pop_back();
    if (m.back() == '.') m.pop_back();
    return m + std::strchr(buf, 'e');
  }
  std::snprintf(buf, sizeof buf, "%.*f", 4 - exp, v);
  std::string s = buf;
  while (s.back() == '0') s.pop_back();
  if (s.back() == '.') s += '0';
  return s;
}

std::string FormatFloatRepr(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  char buf[64];
  const double a = std::fabs(v);
  const auto format = (a == 0 || (a >= 1e-4 && a < 1e16)) ? std::chars_format::fixed
                                                          : std::chars_format::scientific;
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v, format);
  std::string s(buf, end);
  if (format == std::chars_format::fixed && s.find('.') == std::string::npos) s += ".0";
  return s;
}

std::string FormatTag(const std::vector<std::pair<std::string, Json>>& vars) {
  std::string out;
  for (const auto& [key, value] : vars) {
    std::string v;
    if (value.is_number_float()) {
      v = FormatFloat5(value.get<double>());
    } else if (value.is_boolean()) {
      v = value.get<bool>() ? "True" : "False";
    } else if (value.is_null()) {
      v = "None";
    } else {
      v = value.is_string() ? value.get<std::string>() : value.dump();
      for (char& c : v) {
        if (c == '/') c = '_';
      }
    }
    if (!out.empty()) out += ",";
    out += key + "=" + v;
  }
  return out;
}

KeywordArgs::KeywordArgs(std::string owner, const Json& args)
    : owner_(std::move(owner)), args_(args.is_null() ? Json::object() : args) {
  if (!args_.is_object()) {
    status_ = Status::InvalidArgument(owner_ + ": the config must be a JSON object");
    args_ = Json::object();
  }
}

const Json* KeywordArgs::Find(const std::string& key) {
  read_.insert(key);
  auto it = args_.find(key);
  return it == args_.end() || it->is_null() ? nullptr : &*it;
}

void KeywordArgs::Error(const std::string& message) {
  if (status_.ok()) status_ = Status::InvalidArgument(owner_ + ": " + message);
}

double KeywordArgs::Number(const std::string& key, double default_value) {
  const Json* v = Find(key);
  if (!v) return default_value;
  if (!v->is_number()) return Check(false, key, "must be a number"), default_value;
  return v->get<double>();
}

int64_t KeywordArgs::Integer(const std::string& key, int64_t default_value) {
  const Json* v = Find(key);
  if (!v) return default_value;
  if (!IsIntegral(*v)) return Check(false, key, "must be an integer"), default_value;
  return static_cast<int64_t>(v->get<double>());
}

bool KeywordArgs::Bool(const std::string& key, bool default_value) {
  const Json* v = Find(key);
  if (!v) return default_value;
  if (!v->is_boolean()) return Check(false, key, "must be true or false"), default_value;
  return v->get<bool>();
}

std::string KeywordArgs::String(const std::string& key, const std::string& default_value) {
  const Json* v = Find(key);
  if (!v) return default_value;
  if (!v->is_string() || v->get<std::string>().empty()) {
    return Check(false, key, "must be a non-empty string"), default_value;
  }
  return v->get<std::string>();
}

double KeywordArgs::Mode() {
  const std::string mode = String("mode", "max");
  Check(mode == "max" || mode == "min", "mode", "must be 'max' or 'min' (got '" + mode + "')");
  return mode == "min" ? -1.0 : 1.0;
}

Json KeywordArgs::Raw(const std::string& key) {
  const Json* v = Find(key);
  return v ? *v : Json();
}

void KeywordArgs::Check(bool ok, const std::string& key, const std::string& what) {
  if (!ok) Error(key + " " + what);
}

Status KeywordArgs::Finish() const {
  if (!status_.ok()) return status_;
  for (const auto& [key, value] : args_.items()) {
    if (!read_.count(key)) return Status::InvalidArgument(owner_ + ": unknown key '" + key + "'");
  }
  return Status::Ok();
}

void ReadSchedulerMetric(KeywordArgs& args, SchedulerMetric& m) {
  m.time_attr = args.String("time_attr", m.time_attr);
  m.metric = args.String("metric", m.metric);
  m.metric_op = args.Mode();
}

}  // namespace ray::tune
