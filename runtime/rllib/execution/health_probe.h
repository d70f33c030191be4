#pragma once
// HealthProbe: how an EnvRunnerGroup asks a remote worker whether it is alive (RLlib's
// `actor.ping.remote()`). Any cheap method of the worker class will do; the probe
// only cares whether the call succeeds, not what it returns.
//
//   HealthProbe<MyWorker> probe(&MyWorker::Ping);
//   HealthProbe<MyWorker> probe([](const ray::ActorHandle<MyWorker>& w) {
//     return w.Task(&MyWorker::Echo).Remote(0);
//   });
//
// A default-constructed probe is empty: the group then cannot probe (see
// EnvRunnerGroup::ProbeUnhealthyWorkers).

#include <ray/api.h>

#include <functional>
#include <optional>
#include <string>
#include <type_traits>

#include "runtime/rllib/execution/call_result.h"

namespace ray::rllib {

template <typename Worker>
class HealthProbe {
 public:
  using Handle = ActorHandle<Worker>;

  HealthProbe() = default;

  // `ping` is a method of Worker taking no arguments, or a callable
  // (const Handle&) -> ObjectRef<T> that starts one call.
  template <typename Ping>
  explicit HealthProbe(Ping ping) {
    auto submit = [ping](const Handle& h) {
      if constexpr (std::is_member_function_pointer_v<Ping>) {
        return h.Task(ping).Remote();
      } else {
        return ping(h);
      }
    };
    using Ref = decltype(submit(std::declval<const Handle&>()));
    start_ = [submit](const Handle& h) { return submit(h).Binary(); };
    check_ = [](const std::string& id) { return internal::Fetch(Ref(id)).error; };
  }

  explicit operator bool() const { return static_cast<bool>(start_); }

  // Starts a probe call on `worker`; returns its object id.
  std::string Start(const Handle& worker) const { return start_(worker); }

  // The error of the finished probe call `id`, or nullopt if it succeeded.
  std::optional<RemoteError> Check(const std::string& id) const { return check_(id); }

 private:
  std::function<std::string(const Handle&)> start_;
  std::function<std::optional<RemoteError>(const std::string&)> check_;
};

}  // namespace ray::rllib
