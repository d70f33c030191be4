#pragma once
// Async actors (Ray's async actors, whose `async def` methods share one event loop), as
// C++20 coroutines. A method that returns ray::Async<T> may `co_await` an ObjectRef:
// no thread waits meanwhile, and the actor takes its next calls.
//
//   class Fetcher {
//    public:
//     static Fetcher* Create() { return new Fetcher(); }
//     ray::Async<int> Twice(int x) {
//       std::shared_ptr<int> y = co_await ray::Task(Square).Remote(x);  // Get's value
//       co_return *y * 2;
//     }
//   };
//   RAY_REMOTE(Fetcher::Create, &Fetcher::Twice);
//   ...
//   ray::ObjectRef<int> r = fetcher.Task(&Fetcher::Twice).Remote(3);  // an ObjectRef<T>
//
// Semantics, as Ray's:
// - Calls start in the order they were made; a call that awaits lets the next ones
//   start, and it goes on once its object is ready. Up to max_concurrency calls are
//   in flight at once (SetMaxConcurrency above 1), else 1,000 (Ray's default for async
//   actors).
// - One body at a time: the actor's async method bodies never run at the same time,
//   nor its ordinary methods while an async call is in flight; they interleave only
//   at co_await. So an async actor needs no locks of its own. (With SetMaxConcurrency
//   its ordinary methods also run on its threads, as a threaded actor's do: one that
//   began before an async call started may still be running when that body does.)
// - Parameters are taken by value (a body outlives the call's decoded arguments; a
//   reference parameter does not compile).
// - A body should not block (ray::Get, sleep): it holds up the actor's other calls,
//   as a blocking call in an asyncio method holds up the event loop. Await instead.
// - `co_await ref` gives what ray::Get would (a std::shared_ptr<T>), or throws its
//   error; an exception that leaves the body fails the call with it, as for any method.
// - Bodies resume on the runtime's callback thread (see ObjectRef::Then).
//
// Not thread-safe beyond that: an Async<T> is made and run by the runtime's call.

#include <atomic>
#include <coroutine>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <type_traits>
#include <utility>

#include "ray/object_ref.h"
#include "ray/values.h"

namespace ray {

template <typename T>
class Async;

namespace internal {

// The actor's event loop: held while one of its bodies runs (one actor per worker).
inline std::mutex& AsyncLoop() {
  static std::mutex loop;
  return loop;
}
// Async calls started and not ended (ordinary methods take the loop while any is).
inline std::atomic<int>& AsyncInFlight() {
  static std::atomic<int> n{0};
  return n;
}

template <typename T>
struct AsyncResult {
  std::optional<T> value;
  void return_value(T v) { value = std::move(v); }
};
template <>
struct AsyncResult<void> {
  void return_void() {}
};

template <typename T>
struct AsyncPromise : AsyncResult<T> {
  std::exception_ptr error;
  bool done = false;
  // Set once the first run suspended: called when the body ends (the frame then goes).
  std::function<void(AsyncPromise&)> on_done;

  Async<T> get_return_object() {
    return Async<T>(std::coroutine_handle<AsyncPromise>::from_promise(*this));
  }
  std::suspend_always initial_suspend() noexcept { return {}; }
  struct Final {
    bool await_ready() noexcept { return false; }
    void await_suspend(std::coroutine_handle<AsyncPromise> h) noexcept {
      AsyncPromise& p = h.promise();
      p.done = true;
      if (!p.on_done) return;  // ended in its first run: the caller reads it
      p.on_done(p);
      h.destroy();
    }
    void await_resume() noexcept {}
  };
  Final final_suspend() noexcept { return {}; }
  void unhandled_exception() { error = std::current_exception(); }
};

// `co_await ref`: resumes the body under the loop once the object is ready.
template <typename T>
struct RefAwaiter {
  ObjectRef<T> ref;
  std::shared_ptr<T> value;
  std::exception_ptr error;

  bool await_ready() const noexcept { return false; }
  void await_suspend(std::coroutine_handle<> body) {
    OnReady<T>(ref, [this, body](std::shared_ptr<T> v, std::exception_ptr e) {
      value = std::move(v);
      error = e;
      std::lock_guard<std::mutex> loop(AsyncLoop());
      body.resume();
    });
  }
  std::shared_ptr<T> await_resume() {
    if (error) std::rethrow_exception(error);
    return std::move(value);
  }
};

template <typename R>
struct IsAsync : std::false_type {};
template <typename T>
struct IsAsync<Async<T>> : std::true_type {};

}  // namespace internal

// What an async actor method returns: a coroutine whose co_return value is the call's
// result (callers get an ObjectRef<T>).
template <typename T>
class Async {
 public:
  using promise_type = internal::AsyncPromise<T>;
  using Handle = std::coroutine_handle<promise_type>;
  static_assert(!internal::IsReturns<T>::value, "an async method returns one value");

  explicit Async(Handle h) : handle_(h) {}
  Async(Async&& other) noexcept : handle_(std::exchange(other.handle_, {})) {}
  Async& operator=(Async&&) = delete;
  ~Async() {
    if (handle_) handle_.destroy();
  }
  // The body, not started yet; the caller runs and frees it from now on.
  Handle Release() { return std::exchange(handle_, {}); }

 private:
  Handle handle_;
};

template <typename T>
internal::RefAwaiter<T> operator co_await(ObjectRef<T> ref) {
  return internal::RefAwaiter<T>{std::move(ref), nullptr, nullptr};
}

}  // namespace ray
