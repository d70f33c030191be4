// A job for the dashboard's tests: prints what ray::GetWebuiUrl() answers
// ("webui_url=<url>"), and with an argument, runs a task that prints
// "dashboard-marker <argument>" into its worker's log; a second argument names a
// custom resource the task needs (to run it on a node that has it). The argument
// "restart" instead makes an actor "phoenix", kills it once so that it restarts,
// and prints "restarted=1" once it answers from its new process.
#include <ray/api.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <string>
#include <thread>

int Echo(std::string text) {
  std::printf("dashboard-marker %s\n", text.c_str());
  std::fflush(stdout);
  return 0;
}

class Phoenix {
 public:
  static Phoenix* Create() { return new Phoenix(); }
  int Pid() { return static_cast<int>(::getpid()); }
};
RAY_REMOTE(Echo, Phoenix::Create, &Phoenix::Pid);

int Restart() {
  auto phoenix = ray::Actor(Phoenix::Create).SetName("phoenix").SetMaxRestarts(1).Remote();
  int first = *ray::Get(phoenix.Task(&Phoenix::Pid).Remote());
  phoenix.Kill(/*no_restart=*/false);
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (std::chrono::steady_clock::now() < deadline) {
    try {
      if (*ray::Get(phoenix.Task(&Phoenix::Pid).Remote()) != first) {
        std::printf("restarted=1\n");
        return 0;
      }
    } catch (const std::exception&) {  // calls during the restart may fail
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  std::printf("restarted=0\n");
  return 1;
}

RAY_MAIN(int argc, char** argv) {
  if (argc > 1 && std::string(argv[1]) == "restart") return Restart();
  if (argc > 2) {
    ray::Get(ray::Task(Echo).SetResource(argv[2], 1).Remote(std::string(argv[1])));
  } else if (argc > 1) {
    ray::Get(ray::Task(Echo).Remote(std::string(argv[1])));
  }
  std::printf("webui_url=%s\n", ray::GetWebuiUrl().c_str());
  return 0;
}
