#pragma once
// Actors: ray::Actor(Factory).Remote(args...) creates an actor -- a worker that runs
// the registered factory (a function returning a pointer to the new instance) and
// then the instance's registered methods -- and returns its ActorHandle.
// handle.Task(&Class::Method).Remote(...) calls a method (ray/task.h describes
// arguments and results); a method of another class does not compile. A named actor
// can be found with GetActor in its namespace (the creating job's, unless SetName gives
// one; a job's namespace is set with `ray run/submit --namespace`, else it is an
// anonymous one of its own). The instance lives until the actor is killed, its last
// handle is gone (see ActorHandle), or its job ends -- a detached actor
// (SetLifetime(ActorLifetime::DETACHED)) outlives its handles, its job and its
// creator, and ends only when killed (Kill, KillActor) or with the cluster;
// SetMaxRestarts re-runs the factory when its worker dies,
// and a call the actor can no longer run fails with ActorDiedError (calls running or
// sent when the worker died are run again on the restarted actor with
// SetMaxTaskRetries).
//
// Ordering. By default (max_concurrency 1) an actor runs one call at a time, and the
// calls from one caller (one process) in the order they were made. With
// SetMaxConcurrency(n), n > 1 (Ray's threaded actors), the actor's worker runs up to n
// calls at once, each on one of n threads: calls start in the order they reach the
// worker, but may run side by side and end in any order, so a later call can see the
// instance before an earlier one's changes. The class must then be thread-safe (its
// methods and the factory's instance are shared by the threads). A call may block (in
// ray::Get, ray::Wait, or on a lock) while the others run; the ray API works from
// every one of the threads. Restarts, max_task_retries and Kill apply to all calls
// in flight as they do to one. Ray's async actors (asyncio methods) have no
// counterpart here: see the README.

#include <msgpack.hpp>

#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>

#include "ray/abi.h"
#include "ray/context.h"
#include "ray/registry.h"
#include "ray/task.h"
#include "ray/wire.h"

namespace ray {

// Ray's actor lifetimes: NON_DETACHED actors end with their job; DETACHED ones live on.
enum class ActorLifetime { NON_DETACHED, DETACHED };


// A handle to an actor. Handles are counted like ObjectRefs, in every process (copies,
// handles passed to tasks or kept in other actors): once the last one anywhere is gone,
// and no call made through one is pending, the actor is killed and its resources
// return (`ray list actors` shows it DEAD), unless it outlives its handles (detached).
// A handle counts as a ref to the actor's creation result.
template <typename T>
class ActorHandle {
 public:
  ActorHandle() = default;
  explicit ActorHandle(std::string id) : id_(std::move(id)), ref_(HandleRef(id_)) {
    internal::RefDelta(ref_, +1);
  }
  ActorHandle(const ActorHandle& o) : id_(o.id_), ref_(o.ref_) { internal::RefDelta(ref_, +1); }
  ActorHandle(ActorHandle&& o) noexcept : id_(std::move(o.id_)), ref_(std::move(o.ref_)) {
    o.id_.clear();
    o.ref_.clear();
  }
  ActorHandle& operator=(const ActorHandle& o) {
    if (this != &o) {
      internal::RefDelta(o.ref_, +1);
      internal::RefDelta(ref_, -1);
      id_ = o.id_;
      ref_ = o.ref_;
    }
    return *this;
  }
  ActorHandle& operator=(ActorHandle&& o) noexcept {
    if (this != &o) {
      internal::RefDelta(ref_, -1);
      id_ = std::move(o.id_);
      ref_ = std::move(o.ref_);
      o.id_.clear();
      o.ref_.clear();
    }
    return *this;
  }
  ~ActorHandle() { internal::RefDelta(ref_, -1); }
  const std::string& Binary() const { return id_; }

  template <typename M>
  class MethodCaller {
    using Traits = internal::FunctionTraits<M>;

   public:
    MethodCaller(std::string actor, M m) {
      req_.kind = internal::kActorTask;
      req_.actor_id = std::move(actor);
      req_.function = internal::NameOf(m);
      req_.max_retries = internal::kActorTaskRetries;
    }
    template <typename... As>
    typename internal::RefsFor<typename Traits::Return>::Type Remote(As&&... as) {
      static_assert(sizeof...(As) == Traits::kArity, "wrong number of arguments");
      req_.args = internal::EncodeArgs<typename Traits::Args>(std::index_sequence_for<As...>(),
                                                              std::forward<As>(as)...);
      req_.num_returns = internal::ReturnCount<typename Traits::Return>();
      return internal::RefsFor<typename Traits::Return>::Make(internal::SubmitRaw(req_));
    }

   private:
    internal::TaskRequest req_;
  };

  template <typename M>
  MethodCaller<M> Task(M m) const {
    static_assert(std::is_base_of_v<typename internal::FunctionTraits<M>::Class, T>,
                  "method does not belong to this actor's class");
    return MethodCaller<M>(id_, m);
  }

  // Stops the actor's worker, wherever in the cluster it runs (Ray's ray.kill).
  // no_restart (the default): the actor is dead for good, its pending calls fail with
  // ActorDiedError; false: it restarts if it has restarts left (SetMaxRestarts), as
  // if its worker had died.
  void Kill(bool no_restart = true) const {
    const auto& api = internal::CheckedApi();
    RayObject reply{};
    std::string req = internal::Pack(std::make_tuple(id_, no_restart));
    if (api.call(api.ctx, "kill_actor", req.data(), req.size(), &reply) != 0) {
      internal::ThrowRuntimeError("cannot kill actor");
    }
    api.release(api.ctx, &reply, 1);
  }

  // msgpack: [id], as MSGPACK_DEFINE(id_) would write it.
  template <typename Packer>
  void msgpack_pack(Packer& pk) const {
    internal::RefEscaped(ref_);
    pk.pack_array(1);
    pk.pack(id_);
  }
  void msgpack_unpack(const msgpack::object& o) {
    if (o.type != msgpack::type::ARRAY || o.via.array.size != 1) throw msgpack::type_error();
    *this = ActorHandle(o.via.array.ptr[0].as<std::string>());
  }

 private:
  // The actor's creation result: the actor id (its creation task's) and return index 1.
  static std::string HandleRef(const std::string& id) {
    return id.empty() ? std::string() : id + std::string("\0\0\0\1", 4);
  }
  std::string id_;
  std::string ref_;
};

template <typename F>
class ActorCreator : public internal::Options<ActorCreator<F>> {
  using Traits = internal::FunctionTraits<F>;
  using Class = std::remove_pointer_t<typename Traits::Return>;

 public:
  explicit ActorCreator(F f) {
    this->req_.kind = internal::kActorCreation;
    this->req_.function = internal::NameOf(f);
    this->req_.max_retries = 0;
  }
  // A named actor can be found with ray::GetActor<T>(name) in its namespace: by
  // default the creating job's, or `ray_namespace`. A name is unique in its namespace
  // among live actors.
  ActorCreator& SetName(const std::string& name, const std::string& ray_namespace = "") {
    this->req_.actor_name = name;
    this->req_.ray_namespace = ray_namespace;
    return *this;
  }
  // DETACHED: the actor outlives its job and the process that created it; it ends
  // when killed (handle.Kill(), ray::KillActor) or with the cluster. Name it to find
  // it from later jobs.
  ActorCreator& SetLifetime(ActorLifetime lifetime) {
    this->req_.detached = lifetime == ActorLifetime::DETACHED;
    this->req_.lifetime_set = true;
    return *this;
  }
  // Times the actor is restarted (constructor re-run) when its worker dies.
  ActorCreator& SetMaxRestarts(int n) {
    this->req_.max_restarts = n;
    return *this;
  }
  // Times a method call that was running or sent when the actor's worker died is run
  // again (on the restarted actor) instead of failing with ActorDiedError: 0 (the
  // default) never, -1 without limit. Only useful with SetMaxRestarts.
  ActorCreator& SetMaxTaskRetries(int n) {
    this->req_.max_retries = n;
    return *this;
  }
  // Calls run at once, on as many threads of the actor's worker (Ray's
  // max_concurrency; default 1: one at a time, in order). See "Ordering" above.
  // Throws std::invalid_argument unless 1 <= n <= 1000.
  ActorCreator& SetMaxConcurrency(int n) {
    if (n < 1 || n > 1000) {
      throw std::invalid_argument("SetMaxConcurrency(" + std::to_string(n) +
                                  "): max_concurrency is between 1 and 1000");
    }
    this->req_.max_concurrency = n;
    return *this;
  }
  template <typename... As>
  ActorHandle<Class> Remote(As&&... as) {
    static_assert(sizeof...(As) == Traits::kArity, "wrong number of arguments");
    this->req_.args = internal::EncodeArgs<typename Traits::Args>(
        std::index_sequence_for<As...>(), std::forward<As>(as)...);
    this->req_.num_returns = 1;
    auto ids = internal::SubmitRaw(this->req_);
    // The actor id is the creation task's id, which begins the returned object id.
    return ActorHandle<Class>(ids[0].substr(0, 16));
  }
};

template <typename F>
ActorCreator<F> Actor(F f) {
  static_assert(std::is_pointer_v<typename internal::FunctionTraits<F>::Return>,
                "an actor factory returns a pointer to the new instance");
  return ActorCreator<F>(f);
}

// The live actor named `name` in `ray_namespace` ("": the calling job's namespace),
// or nullopt if there is none.
template <typename T>
std::optional<ActorHandle<T>> GetActor(const std::string& name,
                                       const std::string& ray_namespace = "") {
  const auto& api = internal::CheckedApi();
  RayObject reply{};
  std::string req = internal::Pack(std::make_tuple(name, ray_namespace));
  if (api.call(api.ctx, "get_actor", req.data(), req.size(), &reply) != 0) {
    internal::ThrowRuntimeError("cannot look up actor");
  }
  std::string id(reply.data, reply.size);
  api.release(api.ctx, &reply, 1);
  if (id.empty()) return std::nullopt;
  return ActorHandle<T>(id);
}

// Ends the calling actor for good, from one of its methods (Ray's ray::ExitActor): its
// worker exits at once, so this call and the calls after it fail with ActorDiedError,
// and it is not restarted. Throws RayException when not called from an actor.
[[noreturn]] inline void ExitActor() {
  internal::Call<msgpack::type::nil_t>("exit_actor");
  throw RayException("ExitActor: the actor did not exit");
}

// Ray's ray.kill(actor, no_restart=True): handle.Kill(no_restart), from any node.
template <typename T>
void KillActor(const ActorHandle<T>& actor, bool no_restart = true) {
  actor.Kill(no_restart);
}

}  // namespace ray
