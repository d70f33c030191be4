#include "runtime/base/log_files.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <deque>
#include <filesystem>
#include <sstream>

namespace ray {

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
    if (!e.is_symlink(ec) && e.is_regular_file(ec) && PlainName(e.path().filename().string())) {
      entries.push_back(e);
    }
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
  std::string path = logs_dir + "/" + query.name;
  // Read through one descriptor opened without following a link, and only if it is
  // a regular file: nothing outside the dir, even if the file is swapped meanwhile.
  int fd = ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
  struct stat st {};
  if (fd < 0 || ::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    if (fd >= 0) ::close(fd);
    return Status::NotFound("no log named " + query.name);
  }
  std::uintmax_t size = static_cast<std::uintmax_t>(st.st_size);
  std::uintmax_t from = size > kMaxBytes ? size - kMaxBytes : 0;
  std::string text(size - from, '\0');
  size_t got = 0;
  while (got < text.size()) {
    ssize_t n = ::pread(fd, text.data() + got, text.size() - got, static_cast<off_t>(from + got));
    if (n <= 0) break;
    got += static_cast<size_t>(n);
  }
  ::close(fd);
  text.resize(got);
  std::istringstream in(text);
  bool truncated = false;
  if (from > 0) {
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

Result<json> SearchLogs(const std::string& logs_dir, const std::string& search,
                        size_t max_lines) {
  if (search.empty()) return Status::InvalidArgument("a search of every log needs the text");
  RAY_ASSIGN_OR_RETURN(json logs, ListLogs(logs_dir));
  json hits = json::array();
  for (const auto& l : logs) {
    auto log = ReadLog(logs_dir, {l["name"].get<std::string>(), search, max_lines});
    if (log.ok() && (*log)["matched"].get<size_t>() > 0) hits.push_back(std::move(log).value());
  }
  return hits;
}

}  // namespace ray
