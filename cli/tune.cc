// `tune run` (also `ray tune run`): hyperparameter search over a plugin's trainables.

#include "cli/commands.h"

namespace ray::cli {

void AddTune(CLI::App& app) {
  auto* tune = app.add_subcommand("tune", "Run and inspect hyperparameter searches");
  tune->require_subcommand(1);
  AddTuneList(*tune);
}

}  // namespace ray::cli
