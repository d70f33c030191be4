#pragma once
// The files of a session's logs/ dir (gcs, raylet, dashboard, each worker's
// worker-<id>.out|err), listed and read, with a search: what the dashboard's logs
// page shows, read by the dashboard for its own node and by each raylet for its node
// (the peers' kReadLogs). Only plain file names inside the dir are served: a name
// with a slash, a leading dot or other characters than [A-Za-z0-9._-] is
// InvalidArgument, and links are neither listed nor followed, so no path leaves the
// dir.

#include <cstddef>
#include <string>

#include <nlohmann/json.hpp>

#include "runtime/base/status.h"

namespace ray {

// [{"name", "size", "mtime_ms"}] by name. NotFound if `logs_dir` is not a dir.
Result<nlohmann::json> ListLogs(const std::string& logs_dir);

struct LogQuery {
  std::string name;         // a file of the dir
  std::string search;       // keep the lines containing it (case-insensitive); "": all
  size_t max_lines = 1000;  // the last this many (matching) lines
};

// {"name", "size", "lines": [{"n": line number from 1, "text"}], "matched", "truncated"}
// over at most the last 8 MiB of the file ("truncated" when lines were left out).
Result<nlohmann::json> ReadLog(const std::string& logs_dir, const LogQuery& query);

// Every log of the dir searched for `search` (non-empty): [ReadLog's answer for
// each log with a match, at most `max_lines` lines each], by name.
Result<nlohmann::json> SearchLogs(const std::string& logs_dir, const std::string& search,
                                  size_t max_lines);

}  // namespace ray
