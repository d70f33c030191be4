// The job of registration_test: template functions, a template actor and its
// template method, registered with RAY_REMOTE (named by their text) and with
// RAY_REMOTE_NAMED, then called through the runtime both by function (ray::Task,
// handle.Task) and by registered name (a raw submission, as a caller that only knows
// the name would make). Prints "REGISTRATION OK" and exits 0 when every call returns
// what it should; prints "CHECK FAILED: ..." and exits 1 otherwise. Includes only
// the SDK headers it uses.

#include <cstdio>
#include <string>
#include <utility>

#include <ray/actor.h>
#include <ray/object_ref.h>
#include <ray/registry.h>
#include <ray/task.h>

namespace {

template <typename A, typename B>
A Sum(A a, B b) {
  return a + static_cast<A>(b);
}

template <typename T>
class Accumulator {
 public:
  static Accumulator* Create(T start) { return new Accumulator{start}; }
  template <typename U>
  T Add(U x) {
    return value += static_cast<T>(x);
  }
  T Total() const { return value; }
  T value;
};

}  // namespace

RAY_REMOTE(Sum<int, int>, Sum<double, int>);
RAY_REMOTE(Accumulator<int>::Create, &Accumulator<int>::Add<int>, &Accumulator<int>::Total);
RAY_REMOTE_NAMED("sum_doubles", Sum<double, double>);
RAY_REMOTE_NAMED("acc.create", Accumulator<double>::Create);
RAY_REMOTE_NAMED("acc.add", &Accumulator<double>::Add<double>);

namespace {

// Submits the registered `function` by name; `actor_id` set for an actor method.
template <typename R, typename... As>
ray::ObjectRef<R> CallByName(const std::string& function, std::string actor_id,
                             const As&... args) {
  ray::internal::TaskRequest req;
  req.kind = actor_id.empty() ? ray::internal::kNormalTask : ray::internal::kActorTask;
  req.function = function;
  req.actor_id = std::move(actor_id);
  if (req.kind == ray::internal::kActorTask) req.max_retries = 0;  // as handle.Task sends
  (req.args.push_back(ray::internal::TaskArg{false, ray::internal::Pack(args)}), ...);
  return ray::ObjectRef<R>(ray::internal::SubmitRaw(req)[0]);
}

}  // namespace

RAY_MAIN(int argc, char** argv) {
  int failures = 0;
  auto check = [&](bool ok, const char* what) {
    if (!ok) {
      std::fprintf(stderr, "CHECK FAILED: %s\n", what);
      ++failures;
    }
  };
  check(*ray::Get(ray::Task(Sum<int, int>).Remote(40, 2)) == 42, "Sum<int, int> by function");
  check(*ray::Get(ray::Task(Sum<double, int>).Remote(0.5, 2)) == 2.5,
        "Sum<double, int> by function");
  check(*ray::Get(ray::Task(Sum<double, double>).Remote(0.25, 0.5)) == 0.75,
        "RAY_REMOTE_NAMED function by function");
  check(*ray::Get(CallByName<int>("Sum<int,int>", "", 1, 2)) == 3, "Sum<int,int> by name");
  check(*ray::Get(CallByName<double>("Sum<double,int>", "", 1.5, 2)) == 3.5,
        "Sum<double,int> by name");
  check(*ray::Get(CallByName<double>("sum_doubles", "", 1.5, 2.0)) == 3.5,
        "sum_doubles by name");

  auto counter = ray::Actor(Accumulator<int>::Create).Remote(10);
  ray::Get(counter.Task(&Accumulator<int>::Add<int>).Remote(5));
  check(*ray::Get(CallByName<int>("Accumulator<int>::Add<int>", counter.Binary(), 1)) == 16,
        "Accumulator<int>::Add<int> by name");
  check(*ray::Get(counter.Task(&Accumulator<int>::Total).Remote()) == 16,
        "Accumulator<int>::Total by function");

  auto named = ray::Actor(Accumulator<double>::Create).Remote(1.0);
  check(*ray::Get(named.Task(&Accumulator<double>::Add<double>).Remote(0.5)) == 1.5,
        "acc.add by function");
  check(*ray::Get(CallByName<double>("acc.add", named.Binary(), 0.25)) == 1.75, "acc.add by name");

  if (failures > 0) return 1;
  std::printf("REGISTRATION OK\n");
  return 0;
}
