#include "runtime/dashboard/api.h"

#include <charconv>
#include <functional>
#include <future>
#include <set>

#include <nlohmann/json.hpp>

#include "runtime/base/clock.h"
#include "runtime/base/hex.h"
#include "runtime/base/log_files.h"
#include "runtime/gcs/gcs_client.h"
#include "runtime/gcs/state_json.h"
#include "runtime/gcs/state_views.h"
#include "runtime/dashboard/task_summary.h"
#include "runtime/dashboard/tune_results.h"

namespace ray::dashboard {

namespace {

using nlohmann::json;

// A request's parameters, checked against what its endpoint takes.
class Params {
 public:
  explicit Params(const ApiParams& params) : params_(params) {}

  Status Allow(std::initializer_list<const char*> names) const {
    std::set<std::string> allowed(names.begin(), names.end());
    allowed.insert("token");
    for (const auto& [k, v] : params_) {
      if (!allowed.count(k)) return Status::InvalidArgument("unknown parameter '" + k + "'");
      if (params_.count(k) > 1) return Status::InvalidArgument("parameter '" + k + "' given twice");
    }
    return Status::Ok();
  }
  std::string Get(const std::string& name) const {
    auto it = params_.find(name);
    return it == params_.end() ? "" : it->second;
  }
  Result<uint64_t> Number(const std::string& name, uint64_t fallback, uint64_t max) const {
    auto it = params_.find(name);
    if (it == params_.end()) return fallback;
    uint64_t n = 0;
    const std::string& s = it->second;
    auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), n);
    if (ec != std::errc() || end != s.data() + s.size() || n > max) {
      return Status::InvalidArgument("parameter '" + name + "' must be a whole number 0.." +
                                     std::to_string(max) + ", not '" + s + "'");
    }
    return n;
  }

 private:
  const ApiParams& params_;
};

ApiReply JsonReply(const json& body) {
  return {200, body.dump(-1, ' ', false, json::error_handler_t::replace)};
}

ApiReply ErrorReply(const Status& st) {
  int code = 500;
  switch (st.code()) {
    case StatusCode::kInvalidArgument: code = 400; break;
    case StatusCode::kNotFound: code = 404; break;
    case StatusCode::kUnavailable:
    case StatusCode::kDeadlineExceeded: code = 503; break;
    default: break;
  }
  return {code, json{{"error", st.message()}}.dump(-1, ' ', false, json::error_handler_t::replace)};
}

// Nodes with utilisation (used / total per resource) and the history.
Result<json> Nodes(const ApiContext& c, gcs::GcsClient& gcs) {
  RAY_ASSIGN_OR_RETURN(json rows, gcs::NodeRowsJson(gcs));
  for (auto& n : rows) {
    json util = json::object();
    const json& avail = n["resources_available"];
    for (const auto& [name, total] : n["resources_total"].items()) {
      double t = total.get<double>();
      double a = avail.contains(name) ? avail[name].get<double>() : t;
      util[name] = t > 0 ? (t - a) / t : 0.0;
    }
    n["utilisation"] = util;
  }
  json history = c.history ? c.history->ToJson() : json::array();
  return json{{"nodes", rows}, {"history", history}};
}

// A node's logs: the head's (this session's) read here, any other node's asked of
// its raylet. `request` as protocol::LogsRequest: list, search all, or read one.
Result<json> NodeLogsOf(const ApiContext& c, const protocol::NodeInfo& node,
                        const protocol::LogsRequest& r) {
  if (node.session_dir == c.session_dir) {
    std::string dir = c.session_dir + "/logs";
    if (!r.name.empty()) return ReadLog(dir, {r.name, r.search, r.max_lines});
    if (!r.search.empty()) return SearchLogs(dir, r.search, r.max_lines);
    return ListLogs(dir);
  }
  if (!c.node_logs) return Status::Unavailable("no client for other nodes' logs");
  return c.node_logs->Ask(node.peer_address, r, 5000);
}

// /api/logs: every ALIVE node's logs listed (or searched with `search`), or one log
// read (`name`, of node `node`, the head's by default).
Result<ApiReply> Logs(const ApiContext& c, gcs::GcsClient& gcs, const Params& p) {
  RAY_RETURN_IF_ERROR(p.Allow({"node", "name", "search", "lines"}));
  protocol::LogsRequest r{p.Get("name"), p.Get("search"), 0};
  if (r.name.empty() && r.search.empty() && !p.Get("lines").empty()) {
    return Status::InvalidArgument("'lines' goes with 'name' (a log to read) or 'search'");
  }
  RAY_ASSIGN_OR_RETURN(r.max_lines, p.Number("lines", r.name.empty() ? 20 : 1000, 100000));
  std::string node_id = p.Get("node");
  if (node_id.find_first_not_of("0123456789abcdef") != std::string::npos) {
    return Status::InvalidArgument("parameter 'node' must be a node id (hex)");
  }
  // The nodes asked: ALIVE ones (or `node`); without the GCS, this head alone.
  std::vector<protocol::NodeInfo> nodes;
  auto all = gcs.GetNodes();
  bool head_listed = false;
  if (all.ok()) {
    for (auto& n : *all) {
      if (n.state != "ALIVE" || (!node_id.empty() && ToHex(n.node_id) != node_id)) continue;
      if (node_id.empty() && !r.name.empty() && n.session_dir != c.session_dir) continue;
      head_listed |= n.session_dir == c.session_dir;
      nodes.push_back(std::move(n));
    }
  } else if (!node_id.empty()) {
    return all.status();
  }
  if (!head_listed && node_id.empty()) {
    protocol::NodeInfo head;
    head.session_dir = c.session_dir;
    nodes.insert(nodes.begin(), std::move(head));
  }
  if (!node_id.empty() && nodes.empty()) return Status::NotFound("no ALIVE node " + node_id);
  if (!r.name.empty()) {
    RAY_ASSIGN_OR_RETURN(json log, NodeLogsOf(c, nodes.front(), r));
    log["node_id"] = ToHex(nodes.front().node_id);
    return JsonReply(log);
  }
  // Every node at once: one slow node costs its own timeout, not the sum.
  std::vector<std::future<Result<json>>> answers;
  for (const auto& n : nodes) {
    answers.push_back(std::async(std::launch::async, [&c, &n, &r] { return NodeLogsOf(c, n, r); }));
  }
  json rows = json::array(), errors = json::array();
  if (!all.ok()) errors.push_back({{"node_id", ""}, {"address", ""}, {"error", all.status().message()}});
  for (size_t i = 0; i < nodes.size(); ++i) {
    std::string id = ToHex(nodes[i].node_id);
    auto answer = answers[i].get();
    if (!answer.ok()) {
      errors.push_back({{"node_id", id}, {"address", nodes[i].address},
                        {"error", answer.status().message()}});
      continue;
    }
    for (auto& row : *answer) {
      row["node_id"] = id;
      row["node_address"] = nodes[i].address;
      rows.push_back(std::move(row));
    }
  }
  if (r.search.empty()) return JsonReply({{"logs", rows}, {"errors", errors}});
  return JsonReply({{"search", r.search}, {"matches", rows}, {"errors", errors}});
}

Result<ApiReply> Dispatch(const ApiContext& c, const std::string& endpoint, const Params& p) {
  gcs::GcsClient gcs(c.gcs_address, c.token, 5000);
  if (endpoint == "nodes") {
    RAY_RETURN_IF_ERROR(p.Allow({}));
    RAY_ASSIGN_OR_RETURN(json out, Nodes(c, gcs));
    return JsonReply(out);
  }
  if (endpoint == "actors") {
    RAY_RETURN_IF_ERROR(p.Allow({}));
    RAY_ASSIGN_OR_RETURN(json rows, gcs::ActorRowsJson(gcs));
    RAY_ASSIGN_OR_RETURN(auto events, gcs.GetTaskEvents("", 10000));
    AddActorRestarts(rows, events);
    return JsonReply({{"actors", rows}});
  }
  // The tables without parameters: {"<endpoint>": rows}.
  using Rows = Result<json> (*)(gcs::GcsClient&);
  static const std::map<std::string, Rows> kTables = {
      {"jobs", &gcs::JobRowsJson},
      {"placement_groups", &gcs::PlacementGroupRowsJson}};
  if (auto table = kTables.find(endpoint); table != kTables.end()) {
    RAY_RETURN_IF_ERROR(p.Allow({}));
    RAY_ASSIGN_OR_RETURN(json rows, table->second(gcs));
    return JsonReply({{endpoint, rows}});
  }
  if (endpoint == "tasks") {
    RAY_RETURN_IF_ERROR(p.Allow({"id", "limit", "rows"}));
    RAY_ASSIGN_OR_RETURN(uint64_t limit, p.Number("limit", 10000, 1000000));
    RAY_ASSIGN_OR_RETURN(uint64_t max_rows, p.Number("rows", 200, 100000));
    std::string id = p.Get("id");
    if (id.find_first_not_of("0123456789abcdef") != std::string::npos) {
      return Status::InvalidArgument("parameter 'id' must be hex (a task id or its prefix)");
    }
    RAY_ASSIGN_OR_RETURN(json rows, gcs::TaskRowsJson(gcs, limit));
    return JsonReply(SummarizeTasks(rows, {id, max_rows}));
  }
  if (endpoint == "objects") {
    RAY_RETURN_IF_ERROR(p.Allow({"limit"}));
    RAY_ASSIGN_OR_RETURN(uint64_t limit, p.Number("limit", 10000, 1000000));
    RAY_ASSIGN_OR_RETURN(json rows, gcs::ObjectRowsJson(gcs, limit));
    return JsonReply({{"objects", rows}});
  }
  if (endpoint == "logs") return Logs(c, gcs, p);
  if (endpoint == "timeline") {
    RAY_RETURN_IF_ERROR(p.Allow({}));
    RAY_ASSIGN_OR_RETURN(auto events, gcs.GetTaskEvents());
    RAY_ASSIGN_OR_RETURN(auto nodes, gcs.GetNodes());
    return ApiReply{200, gcs::ChromeTrace(events, nodes)};
  }
  if (endpoint == "tune") {
    RAY_RETURN_IF_ERROR(p.Allow({"experiment", "trial"}));
    if (p.Get("experiment").empty() != p.Get("trial").empty()) {
      return Status::InvalidArgument("'experiment' and 'trial' go together");
    }
    if (p.Get("experiment").empty()) return JsonReply(TuneExperiments(c.results_dir));
    RAY_ASSIGN_OR_RETURN(json rows,
                         TrialResultRows(c.results_dir, p.Get("experiment"), p.Get("trial")));
    return JsonReply(rows);
  }
  return Status::NotFound("no API endpoint '" + endpoint +
                          "' (nodes, actors, tasks, objects, jobs, placement_groups, logs, "
                          "timeline, tune)");
}

}  // namespace

ApiReply HandleApi(const ApiContext& context, const std::string& endpoint,
                   const ApiParams& params) {
  try {
    auto reply = Dispatch(context, endpoint, Params(params));
    return reply.ok() ? std::move(reply).value() : ErrorReply(reply.status());
  } catch (const std::exception& e) {
    return ErrorReply(Status::Internal(std::string("the API failed: ") + e.what()));
  }
}

}  // namespace ray::dashboard
