#include "runtime/dashboard/utilisation_history.h"

namespace ray::dashboard {

using nlohmann::json;

void UtilisationHistory::Add(int64_t time_ms, const json& nodes) {
  json total = json::object(), used = json::object(), by_node = json::object();
  for (const auto& n : nodes) {
    if (n.value("state", "") != "ALIVE") continue;
    json& mine = by_node[n.value("node_id", "")];
    mine = json::object();
    json available = n.value("resources_available", json::object());
    json totals = n.value("resources_total", json::object());
    for (const auto& [name, amount] : totals.items()) {
      if (!amount.is_number()) continue;
      double have = amount.get<double>();
      double free = available.contains(name) && available[name].is_number()
                        ? available[name].get<double>() : have;
      total[name] = total.value(name, 0.0) + have;
      used[name] = used.value(name, 0.0) + (have - free);
      mine[name] = have - free;
    }
  }
  std::lock_guard<std::mutex> lock(mu_);
  samples_.push_back({{"time_ms", time_ms}, {"total", total}, {"used", used}, {"nodes", by_node}});
  while (samples_.size() > capacity_) samples_.pop_front();
}

json UtilisationHistory::ToJson() const {
  std::lock_guard<std::mutex> lock(mu_);
  return json(std::vector<json>(samples_.begin(), samples_.end()));
}

}  // namespace ray::dashboard
