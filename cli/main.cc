// The one `ray` executable: every command, and every daemon in a hidden mode.

#include <csignal>
#include <cstdio>

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
  ray::cli::AddDaemons(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  } catch (const ray::cli::Exit& e) {
    return e.code;
  }
  return 0;
}
