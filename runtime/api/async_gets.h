#pragma once
// Callbacks on objects becoming ready (RayRuntimeApi::get_async, behind the SDK's
// ObjectRef::Then and ray::GetAsync). One thread waits for every object asked for and
// calls each callback exactly once, with the object's value or error (a Get that
// fails, as when the raylet dies, gives an error too).
//
// Contract for callbacks: they run on this thread (the process's callback thread),
// one at a time, soon after their object is ready, in the order objects are found
// ready; never on a thread a user's code runs on, and never with the client's lock
// held, so they may use the ray API (a call that blocks delays the callbacks behind
// it, nothing else). Stop (or the destructor) ends the thread: callbacks still
// waiting run then, on the stopping thread, with an error saying so.
//
// Thread-safe.

#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>
#include <unordered_map>
#include <vector>

#include "runtime/api/core_client.h"

namespace ray::core {

class AsyncGets {
 public:
  using Callback = std::function<void(const Fetched& object)>;

  explicit AsyncGets(CoreClient* client) : client_(client) {}  // outlives this
  ~AsyncGets() { Stop(); }
  AsyncGets(const AsyncGets&) = delete;
  AsyncGets& operator=(const AsyncGets&) = delete;

  // `done` runs once `id`'s object is ready (the thread starts on first use).
  void Add(const ObjectId& id, Callback done);
  // Ends the callback thread; callbacks still waiting run with an error. Not from a
  // callback (see OnCallbackThread).
  void Stop();
  // Whether the calling thread is a callback thread (of any AsyncGets): ray::Shutdown
  // is refused there, since shutting down joins that very thread.
  static bool OnCallbackThread();

 private:
  void Run();
  // Runs the callbacks of `ids` with `objects` (one each).
  void Deliver(const std::vector<ObjectId>& ids, const std::vector<Fetched>& objects);

  CoreClient* client_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::unordered_map<ObjectId, std::vector<Callback>, IdHash> pending_;
  bool stop_ = false;
  std::thread thread_;
};

}  // namespace ray::core
