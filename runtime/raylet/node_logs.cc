#include "runtime/raylet/node_logs.h"

#include "runtime/base/log_files.h"

namespace ray::raylet {

protocol::LogsReply AnswerLogsRequest(const std::string& logs_dir,
                                      const protocol::LogsRequest& request) {
  protocol::LogsReply reply;
  try {
    Result<nlohmann::json> answer =
        !request.name.empty()    ? ReadLog(logs_dir, {request.name, request.search, request.max_lines})
        : !request.search.empty() ? SearchLogs(logs_dir, request.search, request.max_lines)
                                  : ListLogs(logs_dir);
    if (answer.ok()) {
      reply.json = answer->dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    } else {
      reply.code = static_cast<int32_t>(answer.status().code());
      reply.error = answer.status().message();
    }
  } catch (const std::exception& e) {
    reply.code = static_cast<int32_t>(StatusCode::kInternal);
    reply.error = std::string("reading the logs failed: ") + e.what();
  }
  return reply;
}

}  // namespace ray::raylet
