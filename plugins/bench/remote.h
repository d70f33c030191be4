#pragma once
// The remote functions and actors of Ray's ray_perf.py, as this API writes them
// (registered in ray_perf.cc). Ray's bodies return b"ok"; these return "ok".

#include <ray/api.h>

#include <string>
#include <vector>

namespace ray::bench {

std::string SmallValue();
// Ray's create_object_containing_ref: 10,000 puts of 1, returned as a list of refs.
std::vector<ray::ObjectRef<int>> CreateObjectContainingRef();
// `n` puts of 0 made here, for a caller's first Gets of objects another process put.
std::vector<ray::ObjectRef<int>> PutSmallObjects(int n);

// Ray's Actor (num_cpus=0; actors here hold no resources unless asked).
class Actor {
 public:
  static Actor* Create() { return new Actor(); }
  std::string SmallValue() { return "ok"; }
  std::string SmallValueArg(int) { return "ok"; }
  // n SmallValue tasks, then a Get of them all.
  int SmallValueBatch(int n);
};

// Ray's Client (num_cpus=0): calls its servers.
class Client {
 public:
  static Client* Create(std::vector<ray::ActorHandle<Actor>> servers) {
    return new Client(std::move(servers));
  }
  // n calls of SmallValue to each server, then a Get of them all.
  int SmallValueBatch(int n);
  // The same with an argument: a ref to a 0 put here, resolved before each call.
  int SmallValueBatchArg(int n);

 private:
  explicit Client(std::vector<ray::ActorHandle<Actor>> s) : servers_(std::move(s)) {}
  std::vector<ray::ActorHandle<Actor>> servers_;
};

// Ray's AsyncActor: its methods are async (ray/async.h).
class AsyncActor {
 public:
  static AsyncActor* Create() { return new AsyncActor(); }
  ray::Async<std::string> SmallValue() { co_return "ok"; }
  ray::Async<std::string> SmallValueWithArg(int) { co_return "ok"; }
};

// Ray's Client, calling AsyncActors (Ray's Client calls whatever it is given).
class AsyncClient {
 public:
  static AsyncClient* Create(std::vector<ray::ActorHandle<AsyncActor>> servers) {
    return new AsyncClient(std::move(servers));
  }
  // n calls of SmallValue to each server, then a Get of them all.
  int SmallValueBatch(int n);

 private:
  explicit AsyncClient(std::vector<ray::ActorHandle<AsyncActor>> s) : servers_(std::move(s)) {}
  std::vector<ray::ActorHandle<AsyncActor>> servers_;
};

// Kills every actor of `actors`.
template <typename T>
void KillAll(std::vector<ray::ActorHandle<T>>& actors) {
  for (auto& a : actors) a.Kill();
}

}  // namespace ray::bench
