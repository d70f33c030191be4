#pragma once
// CPUs lent back by blocked workers. A worker whose task waits in a Get or Wait for
// objects not ready yet lends its CPU back to the node, so that the tasks it waits for
// can run (as Ray's workers do); it takes the CPU again when the last of its blocking
// requests is answered or abandoned. A leased worker lends its lease's CPU, and the
// lease policy hears of it.
//
// The raylet loop owns one (not thread-safe). It works on the raylet's clients and
// free resources.

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>

#include "runtime/raylet/client_table.h"
#include "runtime/raylet/local_leases.h"
#include "runtime/raylet/object_table.h"
#include "runtime/scheduler/resources.h"

namespace ray::raylet {

class CpuLending {
 public:
  struct Node {
    ClientTable& clients;
    ResourceSet& available;  // the node's free resources
    LocalLeases& leases;
    std::function<void()> cpu_freed;  // a worker lent its CPU
  };

  explicit CpuLending(Node node) : node_(std::move(node)) {}

  // Worker `c`'s request `w` (a Get or Wait that may wait) waits for objects: while any
  // such request of a busy worker is not done, its CPU is lent.
  void Blocked(Client& c, const std::shared_ptr<Waiter>& w);
  // `peer`'s request `request_id` was answered: its last blocking one takes the CPU back.
  void Answered(const std::string& peer, uint64_t request_id);
  // Client `c` stopped waiting for request `request_id` (kAbandoned): as answered, and
  // its waiter is done (never answered).
  void Abandoned(Client& c, uint64_t request_id);

 private:
  // Worker `c` takes back the CPU of what it runs (its task, or its lease).
  void Unblock(Client& c);

  Node node_;
};

}  // namespace ray::raylet
