// Ray's actor tutorial: ten counters, then five more increments of the first.
//   ray run counter_actor.so   prints  [1, 1, 1, 1, 1, 1, 1, 1, 1, 1]  and  [2, 3, 4, 5, 6]

#include <ray/api.h>

#include <cstdio>
#include <string>
#include <vector>

class Counter {
 public:
  static Counter* Create() { return new Counter(); }
  int Increment() { return ++value_; }

 private:
  int value_ = 0;
};

RAY_REMOTE(Counter::Create, &Counter::Increment);

static std::string Format(const std::vector<std::shared_ptr<int>>& v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(*v[i]);
  return s + "]";
}

RAY_MAIN(int argc, char** argv) {
  std::vector<ray::ActorHandle<Counter>> counters;
  for (int i = 0; i < 10; ++i) counters.push_back(ray::Actor(Counter::Create).Remote());

  std::vector<ray::ObjectRef<int>> first;
  for (auto& c : counters) first.push_back(c.Task(&Counter::Increment).Remote());
  std::printf("%s\n", Format(ray::Get(first)).c_str());

  // Methods of one actor run one at a time, in the order they were called.
  std::vector<ray::ObjectRef<int>> more;
  for (int i = 0; i < 5; ++i) more.push_back(counters[0].Task(&Counter::Increment).Remote());
  std::printf("%s\n", Format(ray::Get(more)).c_str());
  return 0;
}
