#pragma once
// The public C++ API of ray, modelled on Ray's C++ API.
//
//   int Plus(int a, int b) { return a + b; }
//   RAY_REMOTE(Plus);
//
//   class Counter {
//    public:
//     static Counter* Create(int start) { return new Counter{start}; }
//     int Add(int x) { return value += x; }
//     int value;
//   };
//   RAY_REMOTE(Counter::Create, &Counter::Add);
//
//   template <typename T> T Sum(T a, T b) { return a + b; }
//   RAY_REMOTE(Sum<int>);                          // registered as "Sum<int>"
//   RAY_REMOTE_NAMED("sum_doubles", Sum<double>);  // an explicit name
//
//   RAY_MAIN(int argc, char** argv) {
//     ray::ObjectRef<int> r = ray::Task(Plus).Remote(1, 2);
//     int three = *ray::Get(r);
//     auto c = ray::Actor(Counter::Create).Remote(0);
//     int five = *ray::Get(c.Task(&Counter::Add).Remote(5));
//     return 0;
//   }
//
// Differences from Ray's C++ API, on purpose:
// - A plugin is a shared library loaded by `ray run` / `ray submit` and by workers;
//   RAY_MAIN is the job's entry point. A program of the user's own can drive a job
//   instead, with ray::Init / ray::Shutdown (ray/init.h); workers then load the
//   plugin built from the same sources.
// - Multiple returns: a function returning ray::Returns<A, B, ...> yields one
//   ObjectRef per element (Ray's num_returns is the arity).
// - Wait's timeout is a std::chrono duration (Ray: seconds as a float).
// - ray::Blob is a byte buffer that Get maps without copying when it lives in the
//   node's shared-memory store.
//
// Thread safety: the API may be used from any thread of a job or task (RAY_MAIN's, a
// task's, the threads of a concurrent actor (SetMaxConcurrency), the callback thread
// of ObjectRef::Then / GetAsync, or threads the user starts); a thread blocked in Get
// or Wait does not hold up the others.
//
// This header includes the whole SDK; each part can be included on its own:
//   ray/errors.h      RayException and the errors ray::Get throws
//   ray/values.h      ray::Blob (zero-copy bytes), ray::Returns<...>
//   ray/object_ref.h  ObjectRef, Put, Get, Wait, Then, GetAsync
//   ray/registry.h    RAY_REMOTE, RAY_REMOTE_NAMED, RAY_MAIN, the plugin entry points
//   ray/task.h        ray::Task(F).Remote(...) and task options
//   ray/actor.h       ray::Actor, ActorHandle, GetActor, KillActor
//   ray/async.h       ray::Async<T>: async actor methods (C++20 coroutines, co_await a ref)
//   ray/runtime_env.h ray::RuntimeEnv, for SetRuntimeEnv
//   ray/placement_group.h  CreatePlacementGroup, RemovePlacementGroup, GetPlacementGroup
//   ray/state.h       Nodes, ClusterResources, GetGpuIds, Profile, ...
//   ray/init.h        Init, IsInitialized, Shutdown: a program of the user's own
//   ray/context.h     the attached runtime (internal)
//   ray/wire.h        the msgpack messages shared with the runtime (internal)
//   ray/abi.h         the C boundary between a plugin and the runtime

#include "ray/abi.h"
#include "ray/actor.h"
#include "ray/async.h"
#include "ray/context.h"
#include "ray/errors.h"
#include "ray/init.h"
#include "ray/object_ref.h"
#include "ray/placement_group.h"
#include "ray/registry.h"
#include "ray/runtime_env.h"
#include "ray/state.h"
#include "ray/task.h"
#include "ray/values.h"
#include "ray/wire.h"
