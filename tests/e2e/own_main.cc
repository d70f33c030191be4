// An ordinary program that drives a job with ray::Init / ray::Shutdown (ray/init.h).
//   own_main MODE [ADDRESS]
// MODE: run (squares and a counter actor, then Shutdown), twice (Init twice), early (a
// task before Init), missing (a code_search_path that does not exist), exit (no
// Shutdown: the program just returns), callback (Shutdown from a Then callback is
// refused, and the job goes on), flags (Init(config, argc, argv): the arguments after
// MODE are Ray's flags, and the address is not taken from argv[2]).

#include <ray/api.h>

#include <cstdio>
#include <cstring>
#include <future>
#include <memory>
#include <string>

int Square(int x) { return x * x; }

class Counter {
 public:
  static Counter* Create(int start) { return new Counter{start}; }
  int Add(int x) { return value += x; }
  int value;
};

RAY_REMOTE(Square, Counter::Create, &Counter::Add);

namespace {

int Work() {
  std::vector<ray::ObjectRef<int>> refs;
  for (int i = 0; i < 10; ++i) refs.push_back(ray::Task(Square).Remote(i));
  int sum = 0;
  for (auto& r : refs) sum += *ray::Get(r);
  auto counter = ray::Actor(Counter::Create).Remote(0);
  int total = 0;
  for (int i = 1; i <= 5; ++i) total = *ray::Get(counter.Task(&Counter::Add).Remote(i));
  std::printf("sum of squares %d, counter %d\n", sum, total);
  return sum == 285 && total == 15 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  std::string mode = argc > 1 ? argv[1] : "run";
  ray::RayConfig config;
  if (argc > 2 && mode != "flags") config.address = argv[2];
  try {
    if (mode == "early") return Work();
    if (mode == "missing") config.code_search_path = {"/nonexistent/tasks.so"};
    std::printf("initialized before Init: %d\n", ray::IsInitialized());
    if (mode == "flags") {
      ray::Init(config, argc, argv);
    } else {
      ray::Init(config);
    }
    std::printf("initialized after Init: %d\n", ray::IsInitialized());
    if (mode == "twice") ray::Init(config);
    if (mode == "callback") {
      std::promise<std::string> said;
      ray::Task(Square).Remote(3).Then([&](std::shared_ptr<int>) {
        try {
          ray::Shutdown();
          said.set_value("shut down");
        } catch (const ray::RayException& e) {
          said.set_value(e.what());
        }
      });
      std::printf("Shutdown from a callback: %s\n", said.get_future().get().c_str());
    }
    int code = Work();
    if (mode == "exit") return code;
    ray::Shutdown();
    std::printf("initialized after Shutdown: %d\n", ray::IsInitialized());
    return code;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 2;
  }
}
