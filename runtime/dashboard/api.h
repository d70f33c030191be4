#pragma once
// The dashboard's JSON API: GET /api/<endpoint>?<params>, answered from the GCS
// (through the state code `ray list`, `ray status` and `ray timeline` use), the
// session's logs dir and the Tune results dir. The endpoints and their parameters
// are listed in the README ("Dashboard"). Each call opens its own GCS client, so
// calls on several server threads run side by side. Never throws: bad parameters
// are 400, unknown endpoints and ids 404, an unreachable GCS 503.

#include <map>
#include <string>

#include "runtime/dashboard/node_logs.h"
#include "runtime/dashboard/utilisation_history.h"

namespace ray::dashboard {

struct ApiContext {
  std::string gcs_address;  // tcp://host:port
  std::string token;        // the cluster token, for the GCS
  std::string session_dir;  // the head's session: its logs are read here
  std::string results_dir;  // Tune experiments
  const UtilisationHistory* history = nullptr;  // not owned
  NodeLogs* node_logs = nullptr;                // the other nodes' logs; not owned
};

struct ApiReply {
  int status = 200;
  std::string body;
  std::string content_type = "application/json";
};

// Query parameters as the HTTP layer parsed them ("token" is the server's, ignored).
using ApiParams = std::multimap<std::string, std::string>;

ApiReply HandleApi(const ApiContext& context, const std::string& endpoint,
                   const ApiParams& params);

}  // namespace ray::dashboard
