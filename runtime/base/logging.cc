#include "runtime/base/logging.h"

#include <spdlog/sinks/basic_file_sink.h>
#include <spdlog/sinks/stdout_sinks.h>

#include <cstdlib>

namespace ray {

void InitLogging(const std::string& process_name, const std::string& file,
                 const std::string& level) {
  std::shared_ptr<spdlog::logger> logger;
  if (file.empty()) {
    logger = spdlog::stderr_logger_mt(process_name);
  } else {
    logger = spdlog::basic_logger_mt(process_name, file);
  }
  logger->set_pattern("[%Y-%m-%d %H:%M:%S.%e] [%n %P] [%l] %v");
  const char* env = std::getenv("RAY_BACKEND_LOG_LEVEL");
  logger->set_level(spdlog::level::from_str(env ? env : level));
  logger->flush_on(spdlog::level::info);
  spdlog::set_default_logger(logger);
}

}  // namespace ray
