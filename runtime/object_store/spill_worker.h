#pragma once
// Moves objects between shared memory and spill files (spill_files.h) on a thread of
// its own, so that the thread that owns the store (the raylet's event loop) never
// waits for the disk: it posts a job and goes on; the results wait in a queue that
// it empties (TakeDone) when notify_fd() is readable.
//
// Jobs run one at a time in the order posted. A job's segment and file are the
// poster's to manage: a spill leaves the segment, a restore leaves the file (as
// SpillSegment and RestoreSegment do); what to do with them once done is the
// poster's decision (ObjectStore: a spill unlinks the segment only after its file is
// complete, so no byte is ever only in flight).
//
// Thread safety: Post, TakeDone and notify_fd may be called from any one thread (the
// owner); the work runs on the worker's thread. The destructor waits for the job in
// progress and drops the others (their files and segments are the owner's to remove).

#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "runtime/base/status.h"
#include "runtime/ids/ids.h"

namespace ray::object_store {

class SpillWorker {
 public:
  struct Job {
    enum Kind { kSpill, kRestore } kind = kSpill;
    ObjectId id;
    std::string segment;  // the object's segment name
    size_t size = 0;
    std::string path;     // its spill file
    uint64_t ticket = 0;  // the poster's, handed back with the result
  };
  struct Done {
    Job job;
    Status status;
  };
  // How a job is run, on the worker's thread (by default SpillSegment or
  // RestoreSegment): a seam for tests, which can slow or block the disk.
  using RunJob = std::function<Status(const Job& job)>;

  explicit SpillWorker(RunJob run = nullptr);
  ~SpillWorker();
  SpillWorker(const SpillWorker&) = delete;
  SpillWorker& operator=(const SpillWorker&) = delete;

  void Post(Job job);
  // The jobs finished since the last call, in the order they were posted; resets
  // notify_fd() to not readable.
  std::vector<Done> TakeDone();
  // An eventfd, readable while finished jobs wait to be taken.
  int notify_fd() const { return event_fd_; }
  // Jobs posted and not yet taken back.
  size_t in_flight() const { return in_flight_; }

  // The default RunJob.
  static Status RunOnDisk(const Job& job);

 private:
  void Loop();

  RunJob run_;
  int event_fd_ = -1;
  size_t in_flight_ = 0;  // owner's thread only
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<Job> todo_;   // guarded by mu_
  std::vector<Done> done_;  // guarded by mu_
  bool stop_ = false;      // guarded by mu_
  std::thread thread_;     // last: started once the rest is set up
};

}  // namespace ray::object_store
