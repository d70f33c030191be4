#include "runtime/scheduler/bundle_resources.h"

#include <fmt/format.h>

namespace ray::scheduler {

namespace {

std::string Indexed(const std::string& name, const std::string& pg_hex, int32_t index) {
  return fmt::format("{}_group_{}_{}", name, index, pg_hex);
}

std::string Wildcard(const std::string& name, const std::string& pg_hex) {
  return fmt::format("{}_group_{}", name, pg_hex);
}

}  // namespace

bool IsBundleResourceName(std::string_view name) {
  return name.find("_group_") != std::string_view::npos;
}

std::map<std::string, double> BundleRequest(const std::map<std::string, double>& request,
                                            const std::string& pg_hex, int32_t index) {
  std::map<std::string, double> out;
  for (const auto& [name, amount] : request) {
    if (amount <= 0) continue;
    out[index < 0 ? Wildcard(name, pg_hex) : Indexed(name, pg_hex, index)] = amount;
  }
  out[index < 0 ? Wildcard("bundle", pg_hex) : Indexed("bundle", pg_hex, index)] =
      kBundleMarkerRequest;
  return out;
}

std::map<std::string, double> RequestInBundle(const std::map<std::string, double>& renamed,
                                              const std::string& pg_hex, int32_t index) {
  std::string suffix = index < 0 ? Wildcard("", pg_hex) : Indexed("", pg_hex, index);
  std::map<std::string, double> out;
  for (const auto& [name, amount] : renamed) {
    if (name.size() <= suffix.size() ||
        name.compare(name.size() - suffix.size(), suffix.size(), suffix) != 0) {
      continue;
    }
    std::string base = name.substr(0, name.size() - suffix.size());
    if (base != "bundle") out[base] = amount;
  }
  return out;
}

ResourceSet BundleReservation(const ResourceSet& bundle, const std::string& pg_hex,
                              int32_t index) {
  std::map<std::string, double> out;
  for (const auto& [name, amount] : bundle.ToDoubles()) {
    out[Indexed(name, pg_hex, index)] = amount;
    out[Wildcard(name, pg_hex)] = amount;
  }
  out[Indexed("bundle", pg_hex, index)] = kBundleMarkerUnits;
  out[Wildcard("bundle", pg_hex)] = kBundleMarkerUnits;
  return ResourceSet::FromDoubles(out);
}

bool UsesGroup(const ResourceSet& held, const std::string& pg_hex) {
  std::string suffix = "_" + pg_hex;
  for (const auto& [name, amount] : held.ToDoubles()) {
    if (name.size() > suffix.size() && IsBundleResourceName(name) &&
        name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0) {
      return true;
    }
  }
  return false;
}

}  // namespace ray::scheduler
