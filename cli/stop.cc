// `ray stop`: stops the nodes this machine runs under --temp-dir.

#include <cstdio>

#include "cli/commands.h"
#include "cli/common.h"
#include "runtime/node/node.h"

namespace ray::cli {

namespace {

struct StopOptions {
  std::string temp_dir = node::DefaultTempDir();
};

void Run(const StopOptions& o) {
  auto nodes = node::RunningNodes(o.temp_dir);
  int failed = 0;
  for (const auto& n : nodes) {
    Status st = node::StopNode(n);
    if (!st.ok()) {
      std::fprintf(stderr, "ray stop: %s\n", st.message().c_str());
      ++failed;
    } else {
      std::printf("Stopped the node of %s\n", n.session_dir.c_str());
    }
  }
  if (nodes.empty()) std::printf("No running ray node under %s\n", o.temp_dir.c_str());
  if (failed) throw Exit{1};
}

}  // namespace

void AddStop(CLI::App& app) {
  auto o = std::make_shared<StopOptions>();
  auto* cmd = app.add_subcommand("stop", "Stop the ray processes of this machine");
  cmd->add_option("--temp-dir", o->temp_dir,
                  "stop only the nodes whose session is under this dir (default $RAY_TMPDIR, else /tmp/ray)");
  cmd->callback([o] { Run(*o); });
}

}  // namespace ray::cli
