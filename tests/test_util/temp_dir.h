#pragma once
// For tests: a fresh temporary directory, removed (recursively) on destruction.

#include <stdlib.h>

#include <filesystem>
#include <string>

namespace ray::test_util {

class TempDir {
 public:
  TempDir() {
    std::string pattern =
        (std::filesystem::temp_directory_path() / "ray-test-XXXXXX").string();
    if (mkdtemp(pattern.data()) != nullptr) path_ = pattern;
  }
  ~TempDir() {
    std::error_code ec;
    if (!path_.empty()) std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  // Empty if the directory could not be created.
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

}  // namespace ray::test_util
