#pragma once
// Each subcommand lives in its own file and adds itself to the app here.

#include <CLI/CLI.hpp>

namespace ray::cli {

void AddStart(CLI::App& app);
void AddStop(CLI::App& app);
void AddStatus(CLI::App& app);
void AddRun(CLI::App& app);
void AddSubmit(CLI::App& app);
void AddMicrobenchmark(CLI::App& app);
void AddList(CLI::App& app);      // state API: tasks, actors, objects, nodes
void AddTimeline(CLI::App& app);  // state API: Chrome trace of task events
// The cluster launcher: up, down, exec, attach, rsync-up/down, get-head-ip,
// get-worker-ips, monitor (and `submit CLUSTER.yaml`, in AddSubmit).
void AddUp(CLI::App& app);
void AddDown(CLI::App& app);
void AddExec(CLI::App& app);
void AddAttach(CLI::App& app);
void AddDashboard(CLI::App& app);  // `ray dashboard CLUSTER.yaml`: an ssh port forward
void AddRsync(CLI::App& app);
void AddClusterInfo(CLI::App& app);
void AddRllib(CLI::App& app);  // also the `rllib` command (argv[0])
void AddTune(CLI::App& app);   // also the `tune` command (argv[0])
// `tune list-trials` / `tune list-experiments` (ls / lsx), added to `tune`.
void AddTuneList(CLI::App& tune);
// Hidden: _gcs, _raylet, _worker, _zygote, _monitor. argv: the process's own, which a worker
// forked by the zygote renames itself in.
void AddDaemons(CLI::App& app, int argc, char** argv);

// Thrown by Run functions to exit with a message and a code (caught in main).
struct Exit {
  int code;
};

}  // namespace ray::cli
