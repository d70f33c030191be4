#pragma once
// What a worker is running, for the raylet's state API. Calls sent to a worker
// directly (actor calls, tasks on leased workers) do not pass through the raylet, so
// the worker writes the id, job, function and start of each into a small file it
// maps (<session>/sockets/w-<id>.task); the raylet maps it too, and reads it when it
// reports the tasks running on its node. The file has kEntries entries, one per call
// running at once (a concurrent actor runs several; calls beyond kEntries at once are
// not shown). A sequence number per entry, odd while the worker writes it, keeps
// half-written entries out of the reader's hands.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "runtime/ids/ids.h"

namespace ray::protocol {

struct RunningTask {
  TaskId task_id;
  JobId job_id;
  std::string function;
  int64_t start_ms = 0;  // wall clock
};

// <session_dir>/sockets/w-<first 16 hex digits of the worker id>.task
std::string RunningTaskPath(const std::string& session_dir, const std::string& worker_id);

class RunningTaskSlot {
 public:
  // The worker makes the file (nullptr if it cannot); the raylet opens it read-only
  // (nullptr if it is not there, or is not such a file).
  static std::unique_ptr<RunningTaskSlot> Create(const std::string& path);
  static std::unique_ptr<RunningTaskSlot> Open(const std::string& path);
  ~RunningTaskSlot();
  RunningTaskSlot(const RunningTaskSlot&) = delete;
  RunningTaskSlot& operator=(const RunningTaskSlot&) = delete;

  static constexpr int kEntries = 32;

  // Writer (one thread at a time): a call begins, in the entry returned (-1: all are
  // taken, the call is not shown); it ends, and its entry is free again.
  int Begin(const RunningTask& task);
  void End(int entry);
  // Reader: the call running longest now, or nullopt (none, or the writer is mid-write).
  std::optional<RunningTask> Read() const;
  // Reader: every call running now (but those the writer is writing), oldest first.
  std::vector<RunningTask> ReadAll() const;

 private:
  struct Entry;
  struct Layout;
  explicit RunningTaskSlot(Layout* slot) : slot_(slot) {}
  static std::unique_ptr<RunningTaskSlot> Map(const std::string& path, bool create);
  static std::optional<RunningTask> ReadEntry(const Entry& e);
  Layout* slot_;
  uint64_t taken_[kEntries / 64 + 1] = {};  // writer: entries in use
};

}  // namespace ray::protocol
