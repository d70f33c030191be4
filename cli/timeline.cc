// `ray timeline`: the cluster's task events as a Chrome trace file (chrome://tracing
// or https://ui.perfetto.dev): one row per worker under its node, one box per task
// run and per ray::Profile span.

#include <cstdio>
#include <ctime>

#include "cli/commands.h"
#include "cli/common.h"
#include "runtime/base/util.h"
#include "runtime/gcs/gcs_client.h"
#include "runtime/gcs/state_views.h"

namespace ray::cli {

namespace {

struct TimelineOptions {
  ClusterFlags cluster;
  std::string output;  // default: timeline-<date>.json in the current directory
};

std::string DefaultName() {
  std::time_t now = std::time(nullptr);
  char buf[64];
  std::strftime(buf, sizeof(buf), "timeline-%Y-%m-%d_%H-%M-%S.json", std::localtime(&now));
  return buf;
}

void Run(const TimelineOptions& o) {
  auto target = ResolveCluster(o.cluster);
  if (!target.ok()) Fail("timeline", target.status());
  gcs::GcsClient gcs(target->gcs_address, target->token, 30000);
  auto events = gcs.GetTaskEvents();
  if (!events.ok()) Fail("timeline", events.status());
  auto nodes = gcs.GetNodes();
  if (!nodes.ok()) Fail("timeline", nodes.status());
  std::string path = o.output.empty() ? DefaultName() : o.output;
  if (Status st = WriteFile(path, gcs::ChromeTrace(*events, *nodes), 0644); !st.ok()) {
    Fail("timeline", st);
  }
  std::printf("Trace file written to %s (%zu task events); open it in chrome://tracing\n",
              path.c_str(), events->size());
}

}  // namespace

void AddTimeline(CLI::App& app) {
  auto o = std::make_shared<TimelineOptions>();
  auto* cmd = app.add_subcommand("timeline", "Write the cluster's task timeline as a Chrome trace");
  o->cluster.Add(cmd);
  cmd->add_option("--output", o->output,
                  "the trace file (default: timeline-<date>.json in the current directory)");
  cmd->callback([o] { Run(*o); });
}

}  // namespace ray::cli
