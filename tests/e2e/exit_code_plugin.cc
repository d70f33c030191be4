// A job that prints its arguments and exits with the code given as argv[1].
#include <ray/api.h>

#include <cstdio>
#include <cstdlib>

int Echo(int x) { return x; }
RAY_REMOTE(Echo);

RAY_MAIN(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) std::printf("arg %d: %s\n", i, argv[i]);
  int code = argc > 1 ? std::atoi(argv[1]) : 0;
  return *ray::Get(ray::Task(Echo).Remote(code));
}
