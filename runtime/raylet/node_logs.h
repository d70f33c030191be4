#pragma once
// A raylet's answer to the dashboard's kReadLogs: its node's log files
// (runtime/base/log_files.h), confined to `logs_dir`. Never throws.

#include <string>

#include "runtime/serialization/protocol.h"

namespace ray::raylet {

protocol::LogsReply AnswerLogsRequest(const std::string& logs_dir,
                                      const protocol::LogsRequest& request);

}  // namespace ray::raylet
