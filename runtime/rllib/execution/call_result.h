#pragma once
// The outcome of one remote actor call, as the execution layer (AsyncRequestsManager,
// EnvRunnerGroup) reports it: the value, or the error ray::Get raised for it, kept as
// a value so that a failed call never hides which worker it came from.

#include <ray/api.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <exception>
#include <memory>
#include <optional>
#include <string>

namespace ray::rllib {

// Why a remote call failed.
struct RemoteError {
  enum class Kind {
    kTaskError,      // the method threw (ray::TaskError); the actor is still alive
    kActorDied,      // ray::ActorDiedError: the actor is gone
    kWorkerCrashed,  // ray::WorkerCrashedError: the worker process died
    kOther,          // any other ray::RayException (e.g. a value that cannot be decoded)
  };
  Kind kind = Kind::kOther;
  std::string message;           // the exception's what()
  std::exception_ptr exception;  // what ray::Get threw, with its original type

  // True when the worker itself is lost, not just this call.
  bool worker_lost() const { return kind == Kind::kActorDied || kind == Kind::kWorkerCrashed; }

  // Throws the original exception (ray::TaskError, ray::ActorDiedError, ...).
  [[noreturn]] void Rethrow() const {
    if (exception) std::rethrow_exception(exception);
    throw RayException(message);
  }
};

// One call's result object and, once fetched, its value or error.
template <typename T>
struct CallResult {
  ObjectRef<T> ref;                  // the call's result object
  std::shared_ptr<T> value;          // null on error, and when only refs are returned
  std::optional<RemoteError> error;  // set iff the call failed
  bool ok() const { return !error.has_value(); }
};

namespace internal {

// ray::Get of a ready object, its error caught and classified. Never throws.
template <typename T>
CallResult<T> Fetch(const ObjectRef<T>& ref) {
  CallResult<T> out;
  out.ref = ref;
  auto fail = [&](RemoteError::Kind kind, const std::exception& e) {
    out.error = RemoteError{kind, e.what(), std::current_exception()};
  };
  try {
    out.value = Get(ref);
  } catch (const TaskError& e) {
    fail(RemoteError::Kind::kTaskError, e);
  } catch (const ActorDiedError& e) {
    fail(RemoteError::Kind::kActorDied, e);
  } catch (const WorkerCrashedError& e) {
    fail(RemoteError::Kind::kWorkerCrashed, e);
  } catch (const std::exception& e) {
    fail(RemoteError::Kind::kOther, e);
  }
  return out;
}

// An actor's id as hex, for messages.
inline std::string ActorIdHex(const std::string& binary) {
  static const char* kDigits = "0123456789abcdef";
  std::string out;
  for (unsigned char c : binary) {
    out += kDigits[c >> 4];
    out += kDigits[c & 15];
  }
  return out;
}

// Milliseconds for ray::Wait: -1 (wait for all) for nullopt.
inline int64_t WaitMillis(const std::optional<std::chrono::milliseconds>& timeout) {
  return timeout ? std::max<int64_t>(0, timeout->count()) : -1;
}

}  // namespace internal

}  // namespace ray::rllib
