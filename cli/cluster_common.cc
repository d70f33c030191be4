#include "cli/cluster_common.h"

#include <unistd.h>

#include <cstdio>
#include <iostream>

namespace ray::cli {

void AddLaunchTarget(CLI::App* cmd, cluster::LaunchTarget& target) {
  cmd->add_option("cluster_config_file", target.config_file, "the cluster YAML")
      ->required()
      ->check(CLI::ExistingFile);
  cmd->add_option("-n,--cluster-name", target.cluster_name, "override the configured cluster name");
}

cluster::Console MakeConsole(bool yes) {
  cluster::Console c;
  c.print = [](const std::string& line) {
    std::printf("%s\n", line.c_str());
    std::fflush(stdout);
  };
  c.confirm = [yes](const std::string& question) {
    if (yes) {
      std::printf("%s Confirm [y/N]: y [automatic, due to --yes]\n", question.c_str());
      return true;
    }
    if (!::isatty(0)) {
      std::fprintf(stderr, "%s\nNo terminal to confirm on: pass -y / --yes.\n", question.c_str());
      return false;
    }
    std::printf("%s Confirm [y/N]: ", question.c_str());
    std::fflush(stdout);
    std::string answer;
    std::getline(std::cin, answer);
    return answer == "y" || answer == "Y" || answer == "yes";
  };
  return c;
}

void AddPortForward(CLI::App* cmd, std::vector<int>& ports) {
  cmd->add_option("-p,--port-forward", ports, "forward this port of the head to the same local port")
      ->check(CLI::Range(1, 65535));
}

}  // namespace ray::cli
