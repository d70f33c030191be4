#include "runtime/base/logging.h"

#include <spdlog/sinks/basic_file_sink.h>
#include <spdlog/sinks/stdout_sinks.h>

#include <cstdlib>

namespace ray {

namespace {
// spdlog maps an unknown name to "off", which would silence a daemon over a typo.
spdlog::level::level_enum ParseLevel(const std::string& name, spdlog::level::level_enum fallback) {
  spdlog::level::level_enum parsed = spdlog::level::from_str(name);
  return parsed == spdlog::level::off && name != "off" ? fallback : parsed;
}
}  // namespace

void InitLogging(const std::string& process_name, const std::string& file,
                 const std::string& level) {
  std::shared_ptr<spdlog::logger> logger;
  spdlog::drop(process_name);  // a second call replaces the logger instead of throwing
  if (file.empty()) {
    logger = spdlog::stderr_logger_mt(process_name);
  } else {
    logger = spdlog::basic_logger_mt(process_name, file);
  }
  logger->set_pattern("[%Y-%m-%d %H:%M:%S.%e] [%n %P] [%l] %v");
  const char* env = std::getenv("RAY_BACKEND_LOG_LEVEL");
  spdlog::level::level_enum base = ParseLevel(level, spdlog::level::info);
  logger->set_level(env ? ParseLevel(env, base) : base);
  logger->flush_on(spdlog::level::info);
  spdlog::set_default_logger(logger);
}

}  // namespace ray
