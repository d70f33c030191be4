// The remote functions and actors of Ray's C++ API tests (cpp/src/ray/test/cluster:
// plus.h, counter.h), as this API writes them. Built into both ray_api_cases and the
// plugin its workers load (ray_add_program). Ray picks a factory overload with
// RAY_FUNC(Counter::FactoryCreate, int); here each overload has a name of its own.

#include "tests/e2e/ray_api_cases_remote.h"

#include <signal.h>
#include <unistd.h>

#include <condition_variable>
#include <cstdlib>
#include <mutex>
#include <stdexcept>

int Return1() { return 1; }
int Plus1(int x) { return x + 1; }
int Plus(int x, int y) { return x + y; }
std::array<int, 100000> ReturnLargeArray(std::array<int, 100000> x) { return x; }
void ThrowTask() { throw std::logic_error("error"); }
std::string GetNamespaceInTask() { return ray::GetNamespace(); }
std::string GetEnvVar(std::string key) {
  const char* value = std::getenv(key.c_str());
  return value ? value : "";
}

Counter* Counter::FactoryCreate() { return new Counter(0); }
Counter* Counter::FactoryCreateWith(int init) { return new Counter(init); }
Counter* Counter::FactoryCreateWith2(int base, int extra) { return new Counter(base + extra); }
Counter* Counter::FactoryCreateException() { throw std::invalid_argument("error"); }

int Counter::Plus1() { return ++count_; }
int Counter::Add(int x) { return count_ += x; }
int Counter::Exit() { ray::ExitActor(); }
uint64_t Counter::GetPid() { return static_cast<uint64_t>(::getpid()); }
bool Counter::IsProcessAlive(uint64_t pid) { return ::kill(static_cast<pid_t>(pid), 0) == 0; }
bool Counter::Initialized() { return ray::IsInitialized(); }
int Counter::ExceptionFunc() { throw std::invalid_argument("error"); }
std::string Counter::GetNamespaceInActor() { return ray::GetNamespace(); }
std::string Counter::GetEnvVar(std::string key) { return ::GetEnvVar(std::move(key)); }
int Counter::GetIntByObjectRef(ray::ObjectRef<int> ref) { return *ray::Get(ref); }

ray::ActorHandle<Counter> Counter::CreateChildActor(std::string name) {
  auto child = ray::Actor(Counter::FactoryCreate).SetName(name).Remote();
  ray::Get(child.Task(&Counter::Initialized).Remote());
  return child;
}

int Counter::Plus1ForActor(ray::ActorHandle<Counter> other) {
  return *ray::Get(other.Task(&Counter::Plus1).Remote());
}

ActorConcurrentCall* ActorConcurrentCall::FactoryCreate() { return new ActorConcurrentCall(); }

std::string ActorConcurrentCall::CountDown() {
  std::unique_lock<std::mutex> lock(mu_);
  if (--left_ == 0) cv_.notify_all();
  cv_.wait(lock, [&] { return left_ <= 0; });
  return "ok";
}

RAY_REMOTE(Return1, Plus1, Plus, ReturnLargeArray, ThrowTask, GetNamespaceInTask, GetEnvVar,
           Counter::FactoryCreate, Counter::FactoryCreateWith, Counter::FactoryCreateWith2,
           Counter::FactoryCreateException, &Counter::Plus1, &Counter::Add, &Counter::Exit,
           &Counter::GetPid, &Counter::Initialized, &Counter::ExceptionFunc,
           &Counter::GetNamespaceInActor, &Counter::GetEnvVar, &Counter::GetIntByObjectRef,
           &Counter::CreateChildActor, &Counter::Plus1ForActor, ActorConcurrentCall::FactoryCreate,
           &ActorConcurrentCall::CountDown);
