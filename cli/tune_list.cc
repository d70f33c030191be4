// `tune list-trials` / `tune list-experiments`: tables of experiments on disk.

#include "cli/commands.h"

namespace ray::cli {

void AddTuneList(CLI::App& tune) { (void)tune; }

}  // namespace ray::cli
