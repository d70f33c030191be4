#pragma once
// The logs of the cluster's other nodes, for the logs page: each raylet answers
// kReadLogs on its peers' socket (after a PeerHello with the cluster token; CURVE
// between machines) with its own session's logs (runtime/raylet/node_logs.h), so
// nothing outside a node's logs dir can be asked for.
//
// One connection per node, kept and shared by the server's threads (a request at a
// time each); a node that does not answer in time has its connection dropped, and
// the next request opens a new one.

#include <map>
#include <memory>
#include <mutex>
#include <string>

#include <nlohmann/json.hpp>

#include "runtime/base/status.h"
#include "runtime/serialization/protocol.h"
#include "runtime/transport/channel.h"

namespace ray::dashboard {

class NodeLogs {
 public:
  explicit NodeLogs(std::string token);

  // The raylet at `peer_address` (its node row's tcp:// endpoint) answers `request`:
  // ListLogs', SearchLogs' or ReadLog's JSON, or their error. Unavailable if it does
  // not answer within `timeout_ms`.
  Result<nlohmann::json> Ask(const std::string& peer_address,
                             const protocol::LogsRequest& request, int timeout_ms);

 private:
  // The kept connection to a raylet's peer socket (made on first use: it says hello
  // with the cluster token).
  transport::Channel& ChannelTo(const std::string& peer_address);

  std::string token_;
  std::mutex mu_;
  std::map<std::string, std::unique_ptr<transport::Channel>> channels_;  // by address
};

}  // namespace ray::dashboard
