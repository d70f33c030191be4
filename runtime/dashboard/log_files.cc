#include "runtime/dashboard/log_files.h"

#include <sys/stat.h>

#include <algorithm>
#include <cctype>
#include <deque>
#include <filesystem>
#include <fstream>

namespace ray::dashboard {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

constexpr std::uintmax_t kMaxBytes = 8 << 20;

bool PlainName(const std::string& name) {
  if (name.empty() || name.size() > 255 || name[0] == '.') return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-';
  });
}

std::string Lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

int64_t MtimeMs(const fs::path& p) {
  struct stat st {};
  if (::stat(p.c_str(), &st) != 0) return 0;
  return static_cast<int64_t>(st.st_mtim.tv_sec) * 1000 + st.st_mtim.tv_nsec / 1000000;
}

}  // namespace

Result<json> ListLogs(const std::string& logs_dir) {
  std::error_code ec;
  if (!fs::is_directory(logs_dir, ec)) return Status::NotFound("no logs dir " + logs_dir);
  json rows = json::array();
  std::vector<fs::directory_entry> entries;
  for (const auto& e : fs::directory_iterator(logs_dir, ec)) {
    if (e.is_regular_file(ec) && PlainName(e.path().filename().string())) entries.push_back(e);
  }
  std::sort(entries.begin(), entries.end());
  for (const auto& e : entries) {
    rows.push_back({{"name", e.path().filename().string()},
                    {"size", e.file_size(ec)},
                    {"mtime_ms", MtimeMs(e.path())}});
  }
  return rows;
}

Result<json> ReadLog(const std::string& logs_dir, const LogQuery& query) {
  if (!PlainName(query.name)) {
    return Status::InvalidArgument("log name '" + query.name +
                                   "' is not a plain file name of the logs dir");
  }
  fs::path path = fs::path(logs_dir) / query.name;
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) return Status::NotFound("no log named " + query.name);
  std::uintmax_t size = fs::file_size(path, ec);
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::Unavailable("cannot open log " + query.name);
  bool truncated = false;
  if (size > kMaxBytes) {
    in.seekg(static_cast<std::streamoff>(size - kMaxBytes));
    std::string partial;
    std::getline(in, partial);  // the first line is cut: skip it
    truncated = true;
  }
  std::string needle = Lower(query.search);
  std::deque<json> lines;
  std::string line;
  int64_t n = 0;
  size_t matched = 0;
  while (std::getline(in, line)) {
    ++n;
    if (!needle.empty() && Lower(line).find(needle) == std::string::npos) continue;
    ++matched;
    lines.push_back({{"n", n}, {"text", line}});  // invalid UTF-8 is replaced when dumped
    if (lines.size() > query.max_lines) {
      lines.pop_front();
      truncated = true;
    }
  }
  return json{{"name", query.name}, {"size", size},
              {"lines", json(std::vector<json>(lines.begin(), lines.end()))},
              {"matched", matched}, {"truncated", truncated}};
}

}  // namespace ray::dashboard
