#pragma once
// Taking back tasks queued on a busy worker. A sender (the raylet, or the caller a
// worker is leased to) may send a worker tasks ahead, to wait behind the one it runs.
// When a CPU frees elsewhere, the sender takes back those not started yet, and runs
// them there. The worker may be deep in a long task and read no message meanwhile, so
// the two agree through one word in a small file both map (<endpoint>.gate): the count
// of tasks the worker started, and a bit a sender sets to close the gate.
//
// The worker claims each start (TryStart); a sender closes the gate (Close), which
// tells it how many tasks were started before the close, and so exactly which of its
// tasks did not start. Those the worker never starts: a start after the close fails,
// and the worker drops that sender's tasks until the sender's next message after the
// close (its marker; tasks are delivered in order), then reopens the gate.
//
// Only one sender sends a worker tasks at a time (the raylet, or its lease holder),
// and a sender knows the count where its tasks begin: it reads Starts() while the
// worker is idle (when it dispatches a task to an idle worker, or is granted the
// lease). Lock-free, across processes.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

namespace ray::protocol {

// The gate's file for a worker's direct endpoint ("" if the endpoint is not ipc://).
std::string StartGatePath(const std::string& endpoint);

class StartGate {
 public:
  // The worker makes the file (nullptr if it cannot); senders open it (nullptr if it is
  // not there or is not such a file).
  static std::unique_ptr<StartGate> Create(const std::string& path);
  static std::unique_ptr<StartGate> Open(const std::string& path);
  ~StartGate();
  StartGate(const StartGate&) = delete;
  StartGate& operator=(const StartGate&) = delete;

  // Worker: claims the next start; false if the gate is closed (the task is not to run).
  bool TryStart();
  // Worker: its lease ends; a holder's Close(lease) from before fails from now on.
  // False (nothing changes) while the gate is closed: the holder's marker is due.
  bool EndLease();
  // Worker: opens the gate again (at the closing sender's marker).
  void Reopen();
  // The tasks started so far.
  uint64_t Starts() const;
  // The lease the worker is in (read with Starts() when the lease is granted).
  uint64_t Lease() const;
  // Sender: closes the gate; returns the tasks started before it closed.
  uint64_t Close();
  // Lease holder: the same, if the worker is still in `lease` (else nullopt: the lease
  // is over, and the gate is left alone).
  std::optional<uint64_t> Close(uint64_t lease);

 private:
  struct Layout;
  StartGate(Layout* word, bool owner, std::string path) : word_(word), owner_(owner), path_(std::move(path)) {}
  static std::unique_ptr<StartGate> Map(const std::string& path, bool create);
  Layout* word_;
  bool owner_;  // the worker's: removes the file
  std::string path_;
};

}  // namespace ray::protocol
