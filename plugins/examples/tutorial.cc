// Ray's tutorial: remote functions, object refs, chains and nested tasks.
//   ray run tutorial.so   prints  [45, 55, 65, 75, 85]

#include <ray/api.h>

#include <cstdio>
#include <string>
#include <vector>

int Add2(int a, int b) { return a + b; }
int Increment(int x) { return x + 1; }

int SubExperiment(int i, int j) { return i + j; }

// A task that submits tasks and waits for them: the worker lends its CPU back while
// it waits, so this runs even on a single CPU.
int RunExperiment(int i) {
  std::vector<ray::ObjectRef<int>> results;
  for (int j = 0; j < 10; ++j) results.push_back(ray::Task(SubExperiment).Remote(i, j));
  int sum = 0;
  for (const auto& v : ray::Get(results)) sum += *v;
  return sum;
}

RAY_REMOTE(Add2, Increment, SubExperiment, RunExperiment);

static std::string Format(const std::vector<int>& v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
  return s + "]";
}

RAY_MAIN(int argc, char** argv) {
  // Values and refs can be mixed as arguments.
  int a = *ray::Get(ray::Task(Add2).Remote(1, 2));
  int b = *ray::Get(ray::Task(Add2).Remote(1, ray::Put(2)));
  int c = *ray::Get(ray::Task(Add2).Remote(ray::Put(1), ray::Put(2)));
  std::printf("add2: %d %d %d\n", a, b, c);

  // A chain of dependent tasks.
  auto x = ray::Task(Increment).Remote(0);
  auto y = ray::Task(Increment).Remote(x);
  auto z = ray::Task(Increment).Remote(y);
  std::printf("chain: %d\n", *ray::Get(z));

  // Nested tasks.
  std::vector<ray::ObjectRef<int>> experiments;
  for (int i = 0; i < 5; ++i) experiments.push_back(ray::Task(RunExperiment).Remote(i));
  std::vector<int> sums;
  for (const auto& v : ray::Get(experiments)) sums.push_back(*v);
  std::printf("%s\n", Format(sums).c_str());
  return 0;
}
