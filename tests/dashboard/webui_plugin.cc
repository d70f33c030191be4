// A job for the dashboard's tests: prints what ray::GetWebuiUrl() answers
// ("webui_url=<url>"), and with an argument, runs a task that prints
// "dashboard-marker <argument>" into its worker's log.
#include <ray/api.h>

#include <cstdio>
#include <string>

int Echo(std::string text) {
  std::printf("dashboard-marker %s\n", text.c_str());
  std::fflush(stdout);
  return 0;
}
RAY_REMOTE(Echo);

RAY_MAIN(int argc, char** argv) {
  if (argc > 1) ray::Get(ray::Task(Echo).Remote(std::string(argv[1])));
  std::printf("webui_url=%s\n", ray::GetWebuiUrl().c_str());
  return 0;
}
