// The job the out-of-tree build tests compile against an installed or built ray
// (copied into a project of their own, built with find_package(Ray)).
#include <ray/api.h>

#include <cstdio>

int Square(int x) { return x * x; }
RAY_REMOTE(Square);

RAY_MAIN(int argc, char** argv) {
  std::printf("square: %d\n", *ray::Get(ray::Task(Square).Remote(7)));
  return 0;
}
