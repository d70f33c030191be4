#pragma once
// Logging goes through spdlog. Daemons log to their file in the session's logs/ dir
// (set up once by InitLogging); the CLI logs warnings and errors to stderr.

#include <spdlog/spdlog.h>

#include <string>

namespace ray {

// `file` empty: stderr. `level` is one of spdlog's names ("info", "debug", ...);
// RAY_BACKEND_LOG_LEVEL overrides it, as in Ray.
void InitLogging(const std::string& process_name, const std::string& file,
                 const std::string& level = "info");

}  // namespace ray

// Checked at run time (not compiled out), so RAY_BACKEND_LOG_LEVEL=debug shows it.
#define RAY_LOG_DEBUG(...) spdlog::debug(__VA_ARGS__)
#define RAY_LOG_INFO(...) spdlog::info(__VA_ARGS__)
#define RAY_LOG_WARN(...) spdlog::warn(__VA_ARGS__)
#define RAY_LOG_ERROR(...) spdlog::error(__VA_ARGS__)
