#pragma once
// The messaging floor of this machine: what raw ZeroMQ does between two processes
// with no serialization, scheduling or bookkeeping, over ipc sockets (the transport
// the raylet and its clients use) or loopback tcp (what nodes use between them).
// `ray microbenchmark` measures it in the same run as its metrics, so that each
// figure can be read as a fraction of it; `tests/bench/cross_node_bench.sh` the tcp
// floor, for work on another node.

#include <string>
#include <vector>

#include "runtime/base/status.h"

namespace ray::transport {

struct Floor {
  double roundtrips_per_s = 0;  // REQ -> REP -> REQ, one small message each way
  double messages_per_s = 0;    // PUSH -> PULL, small messages, one way
  double bytes_per_s = 0;       // PUSH -> PULL, kBandwidthChunk messages (if measured)
};
// The size of the messages the bandwidth floor sends: an object transfer's chunk.
inline constexpr size_t kBandwidthChunk = 8u << 20;

// Starts `peer_argv` (a process that calls RunFloorPeer(endpoint) with the endpoint
// appended to the argv), measures for about `seconds` each, stops it. `endpoint`:
// "ipc://<path>" (the peer binds <path>.rr and <path>.push) or "tcp://127.0.0.1:<p>"
// (ports p and p + 1). `bandwidth`: bytes_per_s too (about `seconds` more).
Result<Floor> MeasureFloor(std::vector<std::string> peer_argv, const std::string& endpoint,
                           double seconds, bool bandwidth = false);

// The peer's side: answers round trips and counts one-way messages until told to
// stop. Returns the process's exit code.
int RunFloorPeer(const std::string& endpoint);

}  // namespace ray::transport
