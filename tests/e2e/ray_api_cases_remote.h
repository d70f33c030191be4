#pragma once
// The remote functions and actors of Ray's C++ API tests (see ray_api_cases_remote.cc).

#include <ray/api.h>

#include <array>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>

int Return1();
int Plus1(int x);
int Plus(int x, int y);
std::array<int, 100000> ReturnLargeArray(std::array<int, 100000> x);
void ThrowTask();
std::string GetNamespaceInTask();
std::string GetEnvVar(std::string key);

class Counter {
 public:
  static Counter* FactoryCreate();
  static Counter* FactoryCreateWith(int init);
  static Counter* FactoryCreateWith2(int base, int extra);
  static Counter* FactoryCreateException();

  int Plus1();
  int Add(int x);
  int Exit();
  uint64_t GetPid();
  static bool IsProcessAlive(uint64_t pid);
  bool Initialized();
  int ExceptionFunc();
  std::string GetNamespaceInActor();
  std::string GetEnvVar(std::string key);
  int GetIntByObjectRef(ray::ObjectRef<int> ref);
  ray::ActorHandle<Counter> CreateChildActor(std::string name);
  int Plus1ForActor(ray::ActorHandle<Counter> other);

 private:
  explicit Counter(int count) : count_(count) {}
  int count_;
};

// Three CountDown calls that each return only once all three run at once.
class ActorConcurrentCall {
 public:
  static ActorConcurrentCall* FactoryCreate();
  std::string CountDown();

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  int left_ = 3;
};
