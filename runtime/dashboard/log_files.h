#pragma once
// The logs page's source: the files of a session's logs/ dir (gcs, raylet, each
// worker's worker-<id>.out|err), listed and read, with a search. Only plain file
// names inside the dir are served: a name with a slash, a leading dot or other
// characters than [A-Za-z0-9._-] is InvalidArgument, so no path leaves the dir.

#include <cstddef>
#include <string>

#include <nlohmann/json.hpp>

#include "runtime/base/status.h"

namespace ray::dashboard {

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

}  // namespace ray::dashboard
