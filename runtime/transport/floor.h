#pragma once
// The messaging floor of this machine: what raw ZeroMQ does between two processes
// over ipc sockets (the transport the raylet and its clients use), with no
// serialization, scheduling or bookkeeping. `ray microbenchmark` measures it in the
// same run as its metrics, so that each figure can be read as a fraction of it.

#include <string>
#include <vector>

#include "runtime/base/status.h"

namespace ray::transport {

struct Floor {
  double roundtrips_per_s = 0;  // REQ -> REP -> REQ, one small message each way
  double messages_per_s = 0;    // PUSH -> PULL, small messages, one way
};

// Starts `peer_argv` (a process that calls RunFloorPeer(endpoint) with the endpoint
// appended to the argv), measures for about `seconds` each, stops it.
Result<Floor> MeasureFloor(std::vector<std::string> peer_argv, const std::string& socket_dir,
                           double seconds);

// The peer's side: answers round trips and counts one-way messages until told to
// stop. Returns the process's exit code.
int RunFloorPeer(const std::string& endpoint);

}  // namespace ray::transport
