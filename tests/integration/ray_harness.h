#pragma once
// Runs the `ray` binary as a child process for the integration tests, and checks
// what a run leaves behind.
//
// Every run is bounded: it executes under `timeout`, so a hang fails the test with
// exit code 124 instead of blocking CI. Every test works in its own TempDir, which
// is also the cluster's --temp-dir, so nothing touches /tmp/ray and leftovers can be
// attributed to the test that made them.

#include <string>
#include <vector>

namespace ray::testing {

// A fresh directory under /tmp, removed (recursively) on destruction.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

struct RunResult {
  int exit_code = -1;  // 124: killed by the timeout
  std::string out;
  std::string err;
  std::string all() const { return out + err; }
};

// Runs `ray <args...>` with stdout and stderr captured separately (through files in
// `scratch_dir`), killed after `timeout_s`.
RunResult RunRay(const std::vector<std::string>& args, const std::string& scratch_dir,
                 int timeout_s = 60);

// Runs `argv` (argv[0] found on PATH) like RunRay.
RunResult RunCommand(std::vector<std::string> argv, const std::string& scratch_dir,
                     int timeout_s = 60);

// A file's contents ("" if unreadable).
std::string ReadText(const std::string& path);
// The value of the first "key=value" line of `out`, or "".
std::string KeyValue(const std::string& out, const std::string& key);

// Starts `ray <args...>` in the background, output to files in `scratch_dir`, and
// returns its pid. Not bounded: the caller kills and reaps it (waitpid).
int SpawnRay(const std::vector<std::string>& args, const std::string& scratch_dir);

// The output of the one process spawned into `scratch_dir` (SpawnRay numbers its
// files): `suffix` ".out" for stdout, ".err" for stderr; "" if there is none.
std::string SpawnedOutput(const std::string& scratch_dir, const std::string& suffix);

// Pids (other than this process) whose command line contains `text`.
std::vector<int> ProcessesMentioning(const std::string& text);
// The shared-memory segments (/dev/shm names) of the sessions under `temp_dir`.
std::vector<std::string> SegmentsOfSessions(const std::string& temp_dir);
// The same without the nodes' object indexes ("ray-<tag>-index"), which live as long
// as their node: the segments of objects.
std::vector<std::string> ObjectSegmentsOfSessions(const std::string& temp_dir);
// The session directories under `temp_dir`.
std::vector<std::string> Sessions(const std::string& temp_dir);

// Waits (bounded, polling) until no process mentions `text`; returns the survivors.
std::vector<int> AwaitNoProcessesMentioning(const std::string& text, int timeout_ms = 5000);

// Number of lines of `text` that contain `needle`.
int CountLines(const std::string& text, const std::string& needle);

}  // namespace ray::testing
