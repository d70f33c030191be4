// `ray microbenchmark`: Ray's microbenchmark set on a local cluster.

#include "cli/commands.h"
#include "cli/common.h"

namespace ray::cli {

void AddMicrobenchmark(CLI::App& app) {
  auto* cmd = app.add_subcommand("microbenchmark", "Measure task, actor and object throughput");
  cmd->callback([] {
    Fail("microbenchmark", Status(StatusCode::kUnimplemented, "not built yet"));
  });
}

}  // namespace ray::cli
