#pragma once
// The exceptions the user API throws: ray::Get throws the error a task left behind
// (TaskError, WorkerCrashedError, ...); submission and the other calls throw
// RayException when the runtime refuses them or is not attached. All derive from
// RayException, itself a std::runtime_error. internal::ThrowError turns a stored
// ErrorInfo (ray/wire.h) into the matching exception.

#include <cxxabi.h>

#include <cstdlib>
#include <stdexcept>
#include <string>
#include <utility>

#include "ray/wire.h"

namespace ray {

class RayException : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The remote function or method threw. Carries the remote exception's type and
// message, the task's function name and the node/pid it ran on.
class TaskError : public RayException {
 public:
  TaskError(std::string type, std::string message, std::string task, std::string where)
      : RayException(type + " in task " + task + " (" + where + "): " + message),
        type_(std::move(type)),
        message_(std::move(message)),
        task_(std::move(task)),
        where_(std::move(where)) {}
  const std::string& type() const { return type_; }
  const std::string& message() const { return message_; }
  const std::string& task() const { return task_; }
  const std::string& where() const { return where_; }

 private:
  std::string type_, message_, task_, where_;
};

// The worker running the task died (every retry included).
class WorkerCrashedError : public RayException {
 public:
  using RayException::RayException;
};

// The actor died before it could run the method.
class ActorDiedError : public RayException {
 public:
  using RayException::RayException;
};

// The task asks for resources that no node has.
class UnschedulableError : public RayException {
 public:
  using RayException::RayException;
};

// The object is gone and cannot be made again: it lived only on a node that died and
// was a put, or its task has no retries left. The message names the object and node.
class ObjectLostError : public RayException {
 public:
  using RayException::RayException;
};

class GetTimeoutError : public RayException {
 public:
  using RayException::RayException;
};

namespace internal {

[[noreturn]] inline void ThrowError(const ErrorInfo& e) {
  switch (e.kind) {
    case kTaskException:
      throw TaskError(e.type, e.message, e.task, e.where);
    case kWorkerCrashed:
      throw WorkerCrashedError(e.message);
    case kActorDied:
      throw ActorDiedError(e.message);
    case kUnschedulable:
      throw UnschedulableError(e.message);
    case kObjectLost:
      throw ObjectLostError(e.message);
    default:
      throw RayException(e.message);
  }
}

// A type's readable name (typeid(T).name() demangled), for error messages.
inline std::string Demangle(const char* name) {
  int status = 0;
  char* d = abi::__cxa_demangle(name, nullptr, nullptr, &status);
  std::string out = status == 0 && d ? d : name;
  std::free(d);
  return out;
}

}  // namespace internal
}  // namespace ray
