// A second job plugin, for two plugins on one running cluster. Its functions have the
// same names as semantics_plugin's but different bodies, so a worker that ran the
// other plugin's Add2 would give the wrong answer.
//   ray submit second_plugin.so   prints  "second plugin: 1000003"

#include <cstdio>

#include <ray/api.h>

int Add2(int a, int b) { return 1000000 + a + b; }

class Accumulator {
 public:
  static Accumulator* Create() { return new Accumulator(); }
  int Add(int x) { return total_ += x; }

 private:
  int total_ = 0;
};

RAY_REMOTE(Add2, Accumulator::Create, &Accumulator::Add);

RAY_MAIN(int argc, char** argv) {
  int sum = *ray::Get(ray::Task(Add2).Remote(1, 2));
  auto acc = ray::Actor(Accumulator::Create).Remote();
  acc.Task(&Accumulator::Add).Remote(2);
  int total = *ray::Get(acc.Task(&Accumulator::Add).Remote(3));
  std::printf("second plugin: %d %d\n", sum, total);
  return sum == 1000003 && total == 5 ? 0 : 1;
}
