// `tune list-trials` / `tune list-experiments` (aliases `ls` / `lsx`): tables of
// experiments on disk, as Ray Tune's experimental CLI prints them.
//   list-trials EXPERIMENT_DIR   one row per trial, with columns of its last result
//   list-experiments [PROJECT]   one row per experiment dir (default ~/ray_results)
// Columns empty in every row are dropped and named; --output also writes a CSV.

#include <sys/ioctl.h>
#include <unistd.h>

#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>

#include "cli/commands.h"
#include "cli/common.h"
#include "runtime/base/util.h"
#include "runtime/tune/analysis.h"
#include "runtime/tune/result_logger.h"

namespace ray::cli {

namespace {

struct TuneListOptions {
  std::string command;  // for messages: "tune list-trials"
  bool experiments = false;
  std::string dir;
  std::string sort;
  bool desc = false;
  std::string filter;
  std::string output;  // a .csv file, or "" for none
  std::vector<std::string> columns;
  std::vector<std::string> result_columns;
};

// The terminal's width: $COLUMNS, else the tty's; 0 (unlimited) when not a tty.
size_t TerminalWidth() {
  if (const char* env = std::getenv("COLUMNS")) {
    long n = std::strtol(env, nullptr, 10);
    if (n > 0) return static_cast<size_t>(n);
  }
  winsize ws{};
  if (::isatty(STDOUT_FILENO) && ::ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0) {
    return ws.ws_col;
  }
  return 0;
}

// ['a', 'b'], as Ray prints column lists.
std::string PyList(const std::vector<std::string>& names) {
  std::string out = "[";
  for (const auto& n : names) out += (out.size() > 1 ? ", '" : "'") + n + "'";
  return out + "]";
}

Result<tune::Table> Trials(const TuneListOptions& o) {
  RAY_ASSIGN_OR_RETURN(auto analysis, tune::ExperimentAnalysis::Load(o.dir));
  return tune::ListTrials(analysis, {o.columns, o.result_columns});
}

Result<tune::Table> Experiments(const TuneListOptions& o) {
  std::vector<std::string> unreadable;
  auto table = tune::ListExperiments(o.dir, o.columns, &unreadable);
  for (const auto& u : unreadable) {
    std::fprintf(stderr, "ray %s: skipped %s\n", o.command.c_str(), u.c_str());
  }
  return table;
}

void Run(const TuneListOptions& o) {
  if (!o.output.empty()) {
    std::string ext = std::filesystem::path(o.output).extension().string();
    for (char& c : ext) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (ext != ".csv") {
      Fail(o.command, Status::InvalidArgument("unsupported output file '" + o.output +
                                              "': only .csv is supported"));
    }
  }
  auto table = o.experiments ? Experiments(o) : Trials(o);
  if (!table.ok()) Fail(o.command, table.status());
  if (o.experiments && table->rows.empty()) {
    std::printf("No experiments found in %s\n", o.dir.c_str());
    return;
  }
  if (!o.filter.empty()) {
    Status s = tune::FilterRows(*table, o.filter);
    if (!s.ok()) Fail(o.command, Status::InvalidArgument("--filter: " + s.message()));
  }
  if (!o.sort.empty()) {
    Status s = tune::SortRows(*table, o.sort, o.desc);
    if (!s.ok()) Fail(o.command, Status::InvalidArgument("--sort: " + s.message()));
  }

  tune::Table shown = *table;
  std::vector<std::string> dropped = tune::DropEmptyColumns(shown);
  std::vector<std::string> cut;
  std::printf("%s", tune::FormatTable(shown, TerminalWidth(), &cut).c_str());
  dropped.insert(dropped.end(), cut.begin(), cut.end());
  if (!dropped.empty()) std::printf("Dropped columns: %s\n", PyList(dropped).c_str());
  if (!cut.empty()) std::printf("Please increase your terminal size to view remaining columns.\n");
  if (!o.output.empty()) {
    Status s = WriteFile(o.output, tune::ToCsv(*table));
    if (!s.ok()) Fail(o.command, s);
    std::printf("Output saved at: %s\n", o.output.c_str());
  }
}

// The flags both commands take.
void AddTableFlags(CLI::App* cmd, TuneListOptions& o) {
  cmd->add_option("--sort", o.sort, "sort by this column (ascending)");
  cmd->add_flag("--desc", o.desc, "with --sort: descending");
  cmd->add_option("--filter", o.filter,
                  "keep rows where \"COLUMN OP VALUE\" holds, OP one of == != < <= > >= "
                  "(e.g. \"trial_id == 7b99a28a\")");
  cmd->add_option("--output", o.output, "also write the table to this .csv file");
}

}  // namespace

void AddTuneList(CLI::App& tune) {
  auto trials = std::make_shared<TuneListOptions>();
  trials->command = "tune list-trials";
  trials->columns = tune::TrialColumns{}.info;
  trials->result_columns = tune::TrialColumns{}.result;
  auto* ls = tune.add_subcommand("list-trials", "List the trials of an experiment");
  ls->alias("ls");
  ls->add_option("EXPERIMENT_DIR", trials->dir, "the experiment's dir (<local_dir>/<name>)")
      ->required();
  AddTableFlags(ls, *trials);
  ls->add_option("--columns", trials->columns,
                 "trial columns, comma-separated: trainable_name, experiment_tag, trial_id, "
                 "status, last_update_time, logdir, checkpoint, num_failures, error, "
                 "config/<key>")
      ->delimiter(',');
  ls->add_option("--result-columns", trials->result_columns,
                 "keys of the last result, comma-separated (default training_iteration, "
                 "time_total_s, timesteps_total, mean_accuracy, mean_loss)")
      ->delimiter(',');
  ls->callback([trials] { Run(*trials); });

  auto experiments = std::make_shared<TuneListOptions>();
  experiments->command = "tune list-experiments";
  experiments->experiments = true;
  experiments->dir = tune::DefaultLocalDir();
  experiments->columns = tune::kExperimentColumns;
  auto* lsx = tune.add_subcommand("list-experiments", "List the experiments of a project dir");
  lsx->alias("lsx");
  lsx->add_option("PROJECT_DIR", experiments->dir,
                  "a dir of experiment dirs (default ~/ray_results or $TUNE_RESULT_DIR)");
  AddTableFlags(lsx, *experiments);
  lsx->add_option("--columns", experiments->columns,
                  "comma-separated: name, total_trials, pending_trials, running_trials, "
                  "paused_trials, terminated_trials, error_trials, last_updated")
      ->delimiter(',');
  lsx->callback([experiments] { Run(*experiments); });
}

}  // namespace ray::cli
