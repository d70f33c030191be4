// A Tune logger plugin (<ray/tune_logger.h>): each trial's top-level numeric
// results as a tab-separated table, progress.tsv, for a quick look with `column -t`.
//
//   loggers: [json, csv, tensorboard, build/plugins/examples/tsv_logger.so]

#include <ray/tune_logger.h>

#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

class TsvLogger : public ray::tune::LoggerPlugin {
 public:
  TsvLogger(const std::string& trial_dir, const Json& /*config*/)
      : path_(trial_dir + "/progress.tsv"), out_(path_, std::ios::app) {
    if (!out_) throw std::runtime_error("cannot write " + path_);
  }

  void OnResult(const Json& result) override {
    if (columns_.empty()) {
      for (auto it = result.begin(); it != result.end(); ++it) {
        if (it->is_number()) columns_.push_back(it.key());
      }
      Write(columns_);
    }
    std::vector<std::string> row;
    for (const auto& c : columns_) row.push_back(result.contains(c) ? result[c].dump() : "");
    Write(row);
  }

 private:
  void Write(const std::vector<std::string>& cells) {
    for (size_t i = 0; i < cells.size(); ++i) out_ << (i ? "\t" : "") << cells[i];
    out_ << "\n" << std::flush;
    if (!out_) throw std::runtime_error("cannot append to " + path_);
  }

  std::string path_;
  std::ofstream out_;
  std::vector<std::string> columns_;
};

RAY_TUNE_LOGGER(TsvLogger)
