// The one `ray` executable: every command, and every daemon in a hidden mode.

#include <csignal>
#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "cli/commands.h"

int main(int argc, char** argv) {
  std::signal(SIGPIPE, SIG_IGN);
  CLI::App app{"ray: a native distributed execution framework (tasks, actors, objects)", "ray"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "ray 0.1.0");
  ray::cli::AddStart(app);
  ray::cli::AddStop(app);
  ray::cli::AddStatus(app);
  ray::cli::AddRun(app);
  ray::cli::AddSubmit(app);
  ray::cli::AddMicrobenchmark(app);
  ray::cli::AddList(app);
  ray::cli::AddTimeline(app);
  ray::cli::AddUp(app);
  ray::cli::AddDown(app);
  ray::cli::AddExec(app);
  ray::cli::AddAttach(app);
  ray::cli::AddDashboard(app);
  ray::cli::AddRsync(app);
  ray::cli::AddClusterInfo(app);
  ray::cli::AddRllib(app);
  ray::cli::AddTune(app);
  ray::cli::AddDaemons(app, argc, argv);
  // `rllib ...` and `tune ...` (links to this binary) are `ray rllib ...` and `ray tune ...`.
  std::vector<std::string> args(argv + 1, argv + argc);
  std::string name = std::string(argv[0]).substr(std::string(argv[0]).rfind('/') + 1);
  if (name == "rllib" || name == "tune") args.insert(args.begin(), name);
  std::reverse(args.begin(), args.end());  // CLI11 takes them reversed
  try {
    app.parse(args);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  } catch (const ray::cli::Exit& e) {
    return e.code;
  } catch (const std::exception& e) {
    // A command that failed in a way it did not foresee still fails cleanly.
    std::fprintf(stderr, "ray: %s\n", e.what());
    return 1;
  }
  return 0;
}
