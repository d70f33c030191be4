#pragma once
// Tasks: ray::Task(F).Remote(args...) submits a call of the registered function F
// (ray/registry.h) and returns its ObjectRef (a tuple of ObjectRefs when F returns
// ray::Returns<...>). Arguments are checked against F's parameters at compile time;
// an ObjectRef argument is passed by id and resolved before F runs. Options
// (resources, retries, max calls) are set on the caller before Remote. Submission
// throws RayException if F is not registered or the runtime refuses the task.
// internal::Options and SubmitRaw are shared with actors (ray/actor.h).

#include <msgpack.hpp>

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "ray/abi.h"
#include "ray/context.h"
#include "ray/object_ref.h"
#include "ray/placement_group.h"
#include "ray/registry.h"
#include "ray/runtime_env.h"
#include "ray/values.h"
#include "ray/wire.h"

namespace ray {
template <typename T>
class Async;  // ray/async.h
namespace internal {

// Arguments: ObjectRefs travel by id; values are converted to the parameter type
// at the call site (a compile error if they cannot be) and encoded.
template <typename P, typename A>
TaskArg EncodeArg(A&& a) {
  using D = std::decay_t<A>;
  if constexpr (std::is_same_v<D, ObjectRef<P>>) {
    return TaskArg{true, a.Binary()};
  } else {
    static_assert(std::is_convertible_v<A&&, P>,
                  "argument type does not match the remote function's parameter");
    return TaskArg{false, Pack(static_cast<P>(std::forward<A>(a)))};
  }
}

template <typename Args, typename... As, size_t... I>
std::vector<TaskArg> EncodeArgs(std::index_sequence<I...>, As&&... as) {
  return {EncodeArg<std::tuple_element_t<I, Args>>(std::forward<As>(as))...};
}

// Submits `req`; returns its num_returns object ids.
inline std::vector<std::string> SubmitRaw(const TaskRequest& req) {
  const auto& api = CheckedApi();
  std::string bytes = Pack(req);
  std::string ids(req.num_returns * RAY_OBJECT_ID_SIZE, '\0');
  if (api.submit(api.ctx, bytes.data(), bytes.size(), ids.data(), ids.size()) != 0) {
    ThrowRuntimeError(("cannot submit " + req.function).c_str());
  }
  std::vector<std::string> out;
  for (uint32_t i = 0; i < req.num_returns; ++i) {
    out.push_back(ids.substr(i * RAY_OBJECT_ID_SIZE, RAY_OBJECT_ID_SIZE));
  }
  return out;
}

template <typename R>
struct RefsFor {
  using Type = ObjectRef<R>;
  static Type Make(const std::vector<std::string>& ids) { return Type(ids[0]); }
};
// An async method's (ray/async.h): its co_return value.
template <typename T>
struct RefsFor<Async<T>> : RefsFor<T> {};
template <>
struct RefsFor<void> {
  using Type = ObjectRef<msgpack::type::nil_t>;
  static Type Make(const std::vector<std::string>& ids) { return Type(ids[0]); }
};
template <typename... Ts>
struct RefsFor<Returns<Ts...>> {
  using Type = std::tuple<ObjectRef<Ts>...>;
  static Type Make(const std::vector<std::string>& ids) {
    return Make(ids, std::index_sequence_for<Ts...>());
  }
  template <size_t... I>
  static Type Make(const std::vector<std::string>& ids, std::index_sequence<I...>) {
    return Type(ObjectRef<Ts>(ids[I])...);
  }
};

template <typename R>
constexpr uint32_t ReturnCount() {
  if constexpr (IsReturns<R>::value) {
    return static_cast<uint32_t>(std::tuple_size_v<typename R::tuple_type>);
  } else {
    return 1;
  }
}

// Options common to tasks and actors.
template <typename Self>
class Options {
 public:
  // Resources this task (or actor, for its lifetime) needs: "CPU", "GPU", or custom.
  Self& SetResource(const std::string& name, double amount) {
    req_.resources[name] = amount;
    return static_cast<Self&>(*this);
  }
  Self& SetResources(const std::map<std::string, double>& resources) {
    for (const auto& [k, v] : resources) req_.resources[k] = v;
    return static_cast<Self&>(*this);
  }
  // Runs in bundle `bundle_index` of `pg` (-1: any of its bundles): on the bundle's
  // node, from the bundle's resources (ray/placement_group.h). With
  // `capture_child_tasks`, the tasks and actors it submits (and theirs, in turn) run
  // in the group too, in any bundle, unless they name a group of their own (Ray's
  // placement_group_capture_child_tasks). Throws RayException for an empty handle or
  // an index out of range.
  Self& SetPlacementGroup(const PlacementGroup& pg, int bundle_index = -1,
                          bool capture_child_tasks = false) {
    if (pg.GetID().empty()) throw RayException("SetPlacementGroup: the placement group handle is empty");
    if (bundle_index < -1 || bundle_index >= static_cast<int>(pg.BundleCount())) {
      throw RayException("SetPlacementGroup: bundle index " + std::to_string(bundle_index) +
                         " is out of range for placement group " + pg.GetID() + " (" +
                         std::to_string(pg.BundleCount()) + " bundles; -1: any)");
    }
    req_.placement_group_id = pg.GetID();
    req_.bundle_index = bundle_index;
    req_.placement_group_capture_child_tasks = capture_child_tasks;
    return static_cast<Self&>(*this);
  }
  // The runtime environment it runs in (ray/runtime_env.h), over the job's.
  Self& SetRuntimeEnv(const RuntimeEnv& env) {
    req_.runtime_env = env.ToJson();
    return static_cast<Self&>(*this);
  }

 protected:
  TaskRequest req_;
};

}  // namespace internal

template <typename F>
class TaskCaller : public internal::Options<TaskCaller<F>> {
  using Traits = internal::FunctionTraits<F>;

 public:
  explicit TaskCaller(F f) {
    this->req_.kind = internal::kNormalTask;
    this->req_.function = internal::NameOf(f);
  }
  // Times the task is retried when its worker dies (default 3, as in Ray).
  TaskCaller& SetMaxRetries(int n) {
    this->req_.max_retries = n;
    return *this;
  }
  // A worker runs this function at most n times, then is replaced (0: no limit).
  TaskCaller& SetMaxCalls(int n) {
    this->req_.max_calls = n;
    return *this;
  }

  template <typename... As>
  typename internal::RefsFor<typename Traits::Return>::Type Remote(As&&... as) {
    static_assert(sizeof...(As) == Traits::kArity, "wrong number of arguments");
    this->req_.args = internal::EncodeArgs<typename Traits::Args>(
        std::index_sequence_for<As...>(), std::forward<As>(as)...);
    this->req_.num_returns = internal::ReturnCount<typename Traits::Return>();
    return internal::RefsFor<typename Traits::Return>::Make(internal::SubmitRaw(this->req_));
  }
};

template <typename F>
TaskCaller<F> Task(F f) {
  return TaskCaller<F>(f);
}

}  // namespace ray
