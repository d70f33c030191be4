#include "runtime/tune/analysis.h"

#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <regex>

#include "runtime/base/util.h"

namespace ray::tune {

namespace fs = std::filesystem;

Result<Mode> ParseMode(const std::string& mode) {
  if (mode == "max") return Mode::kMax;
  if (mode == "min") return Mode::kMin;
  return Status::InvalidArgument("mode must be \"max\" or \"min\", not \"" + mode + "\"");
}

namespace {

constexpr char kStateFile[] = "experiment_state.json";

// The last line of result.json that parses as a JSON object. Reads the file's tail,
// widening it until a whole line is found, so long runs cost little.
std::optional<Json> ReadLastResult(const std::string& path) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) return std::nullopt;
  const std::streamoff size = in.tellg();
  for (std::streamoff window = 64 * 1024;; window *= 4) {
    const std::streamoff start = std::max<std::streamoff>(0, size - window);
    std::string tail(static_cast<size_t>(size - start), '\0');
    in.seekg(start);
    in.read(tail.data(), static_cast<std::streamsize>(tail.size()));
    if (!in) return std::nullopt;
    std::vector<std::string> lines = Split(tail, '\n');
    // Unless the window starts the file, its first line may be cut.
    const size_t first = start == 0 ? 0 : 1;
    for (size_t i = lines.size(); i-- > first;) {
      Json j = Json::parse(lines[i], nullptr, /*allow_exceptions=*/false);
      if (j.is_object()) return j;
    }
    if (start == 0) return std::nullopt;
  }
}

std::optional<double> MTime(const fs::path& p) {
  struct stat st {};
  if (::stat(p.c_str(), &st) != 0) return std::nullopt;
  return static_cast<double>(st.st_mtim.tv_sec) + st.st_mtim.tv_nsec * 1e-9;
}

bool IsDir(const fs::path& p) {
  std::error_code ec;
  return fs::is_directory(p, ec);
}

std::vector<fs::path> SubdirsByName(const fs::path& dir) {
  std::vector<fs::path> out;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    if (IsDir(e.path())) out.push_back(e.path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

// j[key] if it holds a T, else `fallback` (results come from user code: any types).
template <typename T>
T Field(const Json& j, const char* key, T fallback) {
  if (!j.is_object()) return fallback;
  auto it = j.find(key);
  if (it == j.end()) return fallback;
  try {
    return it->get<T>();
  } catch (const Json::exception&) {
    return fallback;
  }
}

std::string Hostname() {
  char host[256] = {0};
  ::gethostname(host, sizeof(host) - 1);
  return host;
}

// Fills last_result and last_update_time from the trial dir's result.json, if any.
void ReadResults(const fs::path& trial_dir, TrialRecord& r) {
  fs::path results = trial_dir.empty() ? fs::path() : trial_dir / "result.json";
  if (!results.empty()) {
    if (auto last = ReadLastResult(results.string())) r.trial.last_result = std::move(*last);
  }
  const Json& last = r.trial.last_result;
  if (last.is_object() && last.contains("timestamp") && last["timestamp"].is_number()) {
    r.last_update_time = last["timestamp"].get<double>();
  } else if (auto t = results.empty() ? std::nullopt : MTime(results)) {
    r.last_update_time = *t;
  }
}

// A trial dir without a state file: "<trainable>_<tag>_<date or trial id>".
TrialRecord TrialFromDir(const fs::path& dir) {
  TrialRecord r;
  Trial& t = r.trial;
  t.logdir = dir.string();
  ReadResults(dir, r);
  const Json& last = t.last_result;
  t.trial_id = Field<std::string>(last, "trial_id", "");
  auto params = ReadFile((dir / "params.json").string());
  if (params.ok()) t.config = Json::parse(*params, nullptr, false);
  if (t.config.is_discarded() || !t.config.is_object()) {
    t.config = Field<Json>(last, "config", Json::object());
  }
  std::string name = dir.filename().string();
  size_t sep = name.find('_');
  t.trainable = name.substr(0, sep);
  std::string tag = sep == std::string::npos ? "" : name.substr(sep + 1);
  static const std::regex kDate("_\\d{4}-\\d{2}-\\d{2}_\\d{2}-\\d{2}-\\d{2}$");
  tag = std::regex_replace(tag, kDate, "");
  if (!t.trial_id.empty() && tag.ends_with("_" + t.trial_id)) {
    tag.resize(tag.size() - t.trial_id.size() - 1);
  }
  t.experiment_tag = tag;
  if (auto checkpoint = ExperimentAnalysis::BestCheckpoint(t)) t.checkpoint = *checkpoint;

  bool done = Field<bool>(last, "done", false);
  bool alive = Field<std::string>(last, "hostname", "") == Hostname() &&
               ProcessAlive(Field<int>(last, "pid", 0));
  t.status = done ? TrialStatus::kTerminated : TrialStatus::kRunning;
  r.status = done ? "TERMINATED" : alive ? "RUNNING" : "UNKNOWN";
  return r;
}

bool IsTrialDir(const fs::path& dir) {
  std::error_code ec;
  return fs::exists(dir / "result.json", ec) || fs::exists(dir / "params.json", ec);
}

// A value inside `j` by key, or by a "/"-separated path of keys; null if absent.
Json Lookup(const Json& j, const std::string& key) {
  if (!j.is_object()) return nullptr;
  if (auto it = j.find(key); it != j.end()) return *it;
  const Json* node = &j;
  for (const auto& part : Split(key, '/')) {
    if (!node->is_object()) return nullptr;
    auto it = node->find(part);
    if (it == node->end()) return nullptr;
    node = &*it;
  }
  return *node;
}

Json TimeCell(double seconds) {
  if (seconds <= 0) return nullptr;
  std::time_t t = static_cast<std::time_t>(seconds);
  std::tm tm{};
  localtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof(buf), "%Y-%m-%d %H:%M:%S", &tm);
  return std::string(buf);
}

Json TextCell(const std::string& s) { return s.empty() ? Json(nullptr) : Json(s); }

// A `tune list-trials` cell: `column` is a checked info column.
Json InfoCell(const TrialRecord& r, const std::string& column, const fs::path& experiment_dir) {
  const Trial& t = r.trial;
  if (column == "trainable_name") return TextCell(t.trainable);
  if (column == "experiment_tag") return TextCell(t.experiment_tag);
  if (column == "trial_id") return TextCell(t.trial_id);
  if (column == "status") return TextCell(r.status);
  if (column == "last_update_time") return TimeCell(r.last_update_time);
  if (column == "num_failures") return t.num_failures;
  if (column == "error") return TextCell(t.error);
  if (column == "checkpoint") {
    auto checkpoint = ExperimentAnalysis::BestCheckpoint(t);
    return checkpoint ? Json(*checkpoint) : Json(nullptr);
  }
  if (column == "logdir") {
    // Relative to the experiment, as Ray shows it.
    fs::path rel = fs::path(t.logdir).lexically_relative(experiment_dir);
    bool inside = !t.logdir.empty() && !rel.empty() && !rel.string().starts_with("..");
    return TextCell(inside ? rel.string() : t.logdir);
  }
  return Lookup(t.config, column.substr(std::string("config/").size()));
}

// A `tune list-experiments` cell: `column` is a checked experiment column.
Json ExperimentCell(const ExperimentAnalysis& a, const std::string& name,
                    const std::string& column) {
  auto count = [&](const char* status) {
    return std::count_if(a.trials().begin(), a.trials().end(),
                         [&](const TrialRecord& r) { return r.status == status; });
  };
  if (column == "name") return name;
  if (column == "total_trials") return a.trials().size();
  if (column == "pending_trials") return count("PENDING");
  if (column == "running_trials") return count("RUNNING");
  if (column == "paused_trials") return count("PAUSED");
  if (column == "terminated_trials") return count("TERMINATED");
  if (column == "error_trials") return count("ERROR");
  return TimeCell(a.last_updated());
}

}  // namespace

Result<ExperimentAnalysis> ExperimentAnalysis::Load(const std::string& experiment_dir) {
  fs::path dir = fs::absolute(experiment_dir).lexically_normal();
  if (dir.has_parent_path() && dir.filename().empty()) dir = dir.parent_path();
  if (!IsDir(dir)) return Status::NotFound("no such directory: " + experiment_dir);
  ExperimentAnalysis a;
  a.dir_ = dir.string();
  a.name_ = dir.filename().string();

  std::error_code ec;
  if (fs::exists(dir / kStateFile, ec)) {
    RAY_ASSIGN_OR_RETURN(std::string text, ReadFile((dir / kStateFile).string()));
    Json state = Json::parse(text, nullptr, /*allow_exceptions=*/false);
    if (!state.is_object() || (state.contains("trials") && !state["trials"].is_array())) {
      return Status::DataLoss((dir / kStateFile).string() + " is not a valid experiment state");
    }
    if (state.contains("name") && state["name"].is_string()) a.name_ = state["name"];
    if (state.contains("timestamp") && state["timestamp"].is_number()) {
      a.last_updated_ = state["timestamp"].get<double>();
    }
    for (const auto& tj : state.value("trials", Json::array())) {
      TrialRecord r;
      try {
        r.trial = Trial::FromJson(tj);
      } catch (const Json::exception& e) {
        return Status::DataLoss((dir / kStateFile).string() + ": a malformed trial: " + e.what());
      }
      r.status = ToString(r.trial.status);
      // The state file's logdir is absolute; the experiment may have moved since.
      fs::path logdir = r.trial.logdir;
      if (!r.trial.logdir.empty() && !IsDir(logdir) && IsDir(dir / logdir.filename())) {
        logdir = dir / logdir.filename();
        r.trial.logdir = logdir.string();
      }
      ReadResults(logdir, r);
      a.trials_.push_back(std::move(r));
    }
  } else {
    for (const auto& sub : SubdirsByName(dir)) {
      if (IsTrialDir(sub)) a.trials_.push_back(TrialFromDir(sub));
    }
    if (a.trials_.empty()) {
      return Status::FailedPrecondition(experiment_dir + " is not an experiment: no " + kStateFile +
                                        " and no trial dirs (with params.json or result.json)");
    }
  }
  for (const auto& r : a.trials_) a.last_updated_ = std::max(a.last_updated_, r.last_update_time);
  return a;
}

std::optional<TrialRecord> ExperimentAnalysis::BestTrial(const std::string& metric,
                                                         Mode mode) const {
  const TrialRecord* best = nullptr;
  double best_value = 0;
  for (const auto& r : trials_) {
    auto v = r.trial.Metric(metric);
    if (!v || std::isnan(*v)) continue;
    if (!best || (mode == Mode::kMax ? *v > best_value : *v < best_value)) {
      best = &r;
      best_value = *v;
    }
  }
  if (!best) return std::nullopt;
  return *best;
}

std::optional<Json> ExperimentAnalysis::BestConfig(const std::string& metric, Mode mode) const {
  auto best = BestTrial(metric, mode);
  if (!best) return std::nullopt;
  return best->trial.config;
}

std::optional<std::string> ExperimentAnalysis::BestCheckpoint(const std::string& metric,
                                                              Mode mode) const {
  auto best = BestTrial(metric, mode);
  if (!best) return std::nullopt;
  return BestCheckpoint(best->trial);
}

std::optional<std::string> ExperimentAnalysis::BestCheckpoint(const Trial& trial) {
  std::optional<std::string> latest;
  int64_t latest_iteration = -1;
  if (!trial.logdir.empty()) {
    for (const auto& sub : SubdirsByName(trial.logdir)) {
      std::string name = sub.filename().string();
      if (!name.starts_with("checkpoint_")) continue;
      const char* digits = name.c_str() + std::string("checkpoint_").size();
      char* end = nullptr;
      long long iteration = std::strtoll(digits, &end, 10);
      if (end == digits || *end != '\0' || iteration <= latest_iteration) continue;
      latest_iteration = iteration;
      latest = sub.string();
    }
  }
  if (!latest && !trial.checkpoint.empty()) {
    std::error_code ec;
    if (fs::exists(trial.checkpoint, ec)) latest = trial.checkpoint;
  }
  return latest;
}

Result<Table> ListTrials(const ExperimentAnalysis& analysis, const TrialColumns& columns) {
  static const std::vector<std::string> kInfo = {"trainable_name", "experiment_tag",   "trial_id",
                                                 "status",         "last_update_time", "logdir",
                                                 "checkpoint",     "num_failures",     "error"};
  Table table;
  for (const auto& c : columns.info) {
    if (std::find(kInfo.begin(), kInfo.end(), c) == kInfo.end() && !c.starts_with("config/")) {
      std::string known;
      for (const auto& k : kInfo) known += k + ", ";
      return Status::InvalidArgument("unknown column '" + c + "' (trial columns: " + known +
                                     "config/<key>)");
    }
    table.columns.push_back(c);
  }
  std::vector<std::string> result_columns;
  for (const auto& c : columns.result) {
    if (std::find(table.columns.begin(), table.columns.end(), c) != table.columns.end()) continue;
    table.columns.push_back(c);
    result_columns.push_back(c);
  }
  for (const auto& r : analysis.trials()) {
    std::vector<Json> row;
    for (const auto& c : columns.info) row.push_back(InfoCell(r, c, analysis.dir()));
    for (const auto& c : result_columns) row.push_back(Lookup(r.trial.last_result, c));
    table.rows.push_back(std::move(row));
  }
  return table;
}

Result<Table> ListExperiments(const std::string& project_dir,
                              const std::vector<std::string>& columns,
                              std::vector<std::string>* unreadable) {
  static const std::vector<std::string> kKnown = {
      "name",          "total_trials",      "pending_trials", "running_trials",
      "paused_trials", "terminated_trials", "error_trials",   "last_updated"};
  for (const auto& c : columns) {
    if (std::find(kKnown.begin(), kKnown.end(), c) == kKnown.end()) {
      std::string known;
      for (const auto& k : kKnown) known += (known.empty() ? "" : ", ") + k;
      return Status::InvalidArgument("unknown column '" + c + "' (experiment columns: " + known +
                                     ")");
    }
  }
  if (!IsDir(project_dir)) return Status::NotFound("no such directory: " + project_dir);
  Table table{columns, {}};
  for (const auto& sub : SubdirsByName(project_dir)) {
    auto a = ExperimentAnalysis::Load(sub.string());
    if (!a.ok()) {
      bool not_experiment = a.status().code() == StatusCode::kFailedPrecondition;
      if (unreadable && !not_experiment) {
        unreadable->push_back(sub.filename().string() + ": " + a.status().message());
      }
      continue;
    }
    std::vector<Json> row;
    for (const auto& c : columns) row.push_back(ExperimentCell(*a, sub.filename().string(), c));
    table.rows.push_back(std::move(row));
  }
  return table;
}

namespace {

// A cell as text: strings as they are, numbers in JSON's shortest round-trip form.
std::string Text(const Json& v) {
  if (v.is_null()) return "";
  if (v.is_string()) return v.get<std::string>();
  return v.dump();
}

// A cell as the table shows it: floats with six significant digits, one line.
std::string Display(const Json& v) {
  if (v.is_number_float()) return fmt::format("{:g}", v.get<double>());
  std::string s = Text(v);
  std::replace(s.begin(), s.end(), '\n', ' ');
  return s;
}

std::optional<double> ParseNumber(const std::string& s) {
  if (s.empty()) return std::nullopt;
  char* end = nullptr;
  double d = std::strtod(s.c_str(), &end);
  if (*end != '\0') return std::nullopt;
  return d;
}

Result<size_t> ColumnIndex(const Table& table, const std::string& column) {
  auto it = std::find(table.columns.begin(), table.columns.end(), column);
  if (it != table.columns.end()) return static_cast<size_t>(it - table.columns.begin());
  std::string names;
  for (const auto& c : table.columns) names += (names.empty() ? "" : ", ") + c;
  return Status::InvalidArgument("unknown column '" + column + "' (columns: " + names + ")");
}

// -1, 0, 1: numbers before other values; numbers by value, others by text.
int Compare(const Json& a, const Json& b) {
  if (a.is_number() != b.is_number()) return a.is_number() ? -1 : 1;
  if (a.is_number()) {
    double x = a.get<double>(), y = b.get<double>();
    return x < y ? -1 : x > y ? 1 : 0;
  }
  return Text(a).compare(Text(b)) < 0 ? -1 : Text(a) == Text(b) ? 0 : 1;
}

std::string CsvField(const std::string& s) {
  if (s.find_first_of(",\"\r\n") == std::string::npos) return s;
  std::string q = "\"";
  for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

}  // namespace

Status FilterRows(Table& table, const std::string& expression) {
  static const std::regex kExpr(R"(^\s*(\S+)\s+(==|!=|<=|>=|<|>)\s+(.*?)\s*$)");
  std::smatch m;
  if (!std::regex_match(expression, m, kExpr) || m[3].length() == 0) {
    return Status::InvalidArgument("malformed filter '" + expression +
                                   "': expected \"COLUMN OP VALUE\", OP one of == != < <= > >=");
  }
  RAY_ASSIGN_OR_RETURN(size_t col, ColumnIndex(table, m[1]));
  const std::string op = m[2];
  std::string value = m[3];
  if (value.size() >= 2 && (value.front() == '"' || value.front() == '\'') &&
      value.back() == value.front()) {
    value = value.substr(1, value.size() - 2);
  }
  const std::optional<double> number = ParseNumber(value);
  auto holds = [&](const Json& cell) {
    if (cell.is_null()) return op == "!=";
    int c = cell.is_number() && number ? Compare(cell, Json(*number)) : Compare(Text(cell), value);
    if (op == "==") return c == 0;
    if (op == "!=") return c != 0;
    if (op == "<") return c < 0;
    if (op == "<=") return c <= 0;
    if (op == ">") return c > 0;
    return c >= 0;
  };
  std::erase_if(table.rows, [&](const std::vector<Json>& row) { return !holds(row[col]); });
  return Status::Ok();
}

Status SortRows(Table& table, const std::string& column, bool descending) {
  RAY_ASSIGN_OR_RETURN(size_t col, ColumnIndex(table, column));
  std::stable_sort(table.rows.begin(), table.rows.end(),
                   [&](const std::vector<Json>& x, const std::vector<Json>& y) {
                     const Json &a = x[col], &b = y[col];
                     if (a.is_null() || b.is_null()) return !a.is_null() && b.is_null();
                     return descending ? Compare(a, b) > 0 : Compare(a, b) < 0;
                   });
  return Status::Ok();
}

std::vector<std::string> DropEmptyColumns(Table& table) {
  std::vector<std::string> dropped;
  if (table.rows.empty()) return dropped;
  for (size_t c = table.columns.size(); c-- > 0;) {
    bool empty = std::all_of(table.rows.begin(), table.rows.end(),
                             [&](const std::vector<Json>& row) { return row[c].is_null(); });
    if (!empty) continue;
    dropped.insert(dropped.begin(), table.columns[c]);
    table.columns.erase(table.columns.begin() + static_cast<std::ptrdiff_t>(c));
    for (auto& row : table.rows) row.erase(row.begin() + static_cast<std::ptrdiff_t>(c));
  }
  return dropped;
}

std::string ToCsv(const Table& table) {
  std::string out;
  auto line = [&out](size_t n, auto field) {
    for (size_t c = 0; c < n; ++c) {
      if (c > 0) out += ',';
      out += CsvField(field(c));
    }
    out += '\n';
  };
  line(table.columns.size(), [&](size_t c) { return table.columns[c]; });
  for (const auto& row : table.rows) line(row.size(), [&](size_t c) { return Text(row[c]); });
  return out;
}

std::string FormatTable(const Table& table, size_t max_width, std::vector<std::string>* cut) {
  struct Column {
    size_t width;
    bool numeric;
  };
  std::vector<Column> shown;
  size_t line_width = 1;  // the leading border
  for (size_t c = 0; c < table.columns.size(); ++c) {
    Column col{table.columns[c].size(), false};
    bool any = false, all_numbers = true;
    for (const auto& row : table.rows) {
      col.width = std::max(col.width, Display(row[c]).size());
      if (!row[c].is_null()) {
        any = true;
        all_numbers = all_numbers && row[c].is_number();
      }
    }
    col.numeric = any && all_numbers;
    if (max_width > 0 && c > 0 && line_width + col.width + 3 > max_width) {
      if (cut) cut->insert(cut->end(), table.columns.begin() + c, table.columns.end());
      break;
    }
    line_width += col.width + 3;
    shown.push_back(col);
  }
  auto rule = [&](char edge, char joint) {
    std::string s(1, edge);
    for (size_t c = 0; c < shown.size(); ++c) {
      s += std::string(shown[c].width + 2, '-') + (c + 1 < shown.size() ? joint : edge);
    }
    return s + "\n";
  };
  auto line = [&](auto cell) {
    std::string s = "|";
    for (size_t c = 0; c < shown.size(); ++c) {
      s += shown[c].numeric ? fmt::format(" {:>{}} |", cell(c), shown[c].width)
                            : fmt::format(" {:<{}} |", cell(c), shown[c].width);
    }
    return s + "\n";
  };
  std::string out = rule('+', '+');
  out += line([&](size_t c) { return table.columns[c]; });
  out += rule('|', '+');
  for (const auto& row : table.rows) out += line([&](size_t c) { return Display(row[c]); });
  out += rule('+', '+');
  return out;
}

}  // namespace ray::tune
