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
//   RAY_MAIN is the job's entry point (there is no ray::Init/Shutdown in user code).
// - Multiple returns: a function returning ray::Returns<A, B, ...> yields one
//   ObjectRef per element (Ray's num_returns is the arity).
// - Wait's timeout is a std::chrono duration (Ray: seconds as a float).
// - ray::Blob is a byte buffer that Get maps without copying when it lives in the
//   node's shared-memory store.
//
// Thread safety: the API is used from the thread that runs RAY_MAIN or the task.

#include <msgpack.hpp>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <tuple>
#include <type_traits>
#include <typeinfo>
#include <unordered_map>
#include <utility>
#include <vector>

#include <cxxabi.h>

#include "ray/abi.h"

#define RAY_EXPORT extern "C" __attribute__((visibility("default"), used))

namespace ray {

// ---------------------------------------------------------------------------
// Errors thrown by ray::Get (and by submission when the runtime refuses a call).

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

class GetTimeoutError : public RayException {
 public:
  using RayException::RayException;
};

namespace internal {

// How an error object is stored: msgpack [kind, type, message, task, where].
enum ErrorKind : int {
  kTaskException = 0,
  kWorkerCrashed = 1,
  kActorDied = 2,
  kUnschedulable = 3,
  kSystem = 4,
};

struct ErrorInfo {
  int kind = kTaskException;
  std::string type;
  std::string message;
  std::string task;
  std::string where;
  MSGPACK_DEFINE_ARRAY(kind, type, message, task, where);
};

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
    default:
      throw RayException(e.message);
  }
}

// A submission, as the plugin hands it to the runtime (msgpack).
struct TaskArg {
  bool is_ref = false;
  std::string data;  // object id (is_ref) or the msgpack-encoded value
  MSGPACK_DEFINE_ARRAY(is_ref, data);
};

enum TaskKind : uint8_t { kNormalTask = 0, kActorCreation = 1, kActorTask = 2 };

struct TaskRequest {
  uint8_t kind = kNormalTask;
  std::string function;  // registered name
  std::vector<TaskArg> args;
  uint32_t num_returns = 1;
  std::map<std::string, double> resources;
  int32_t max_retries = 3;
  int32_t max_calls = 0;  // 0: unlimited
  int32_t max_restarts = 0;
  std::string actor_id;    // actor tasks
  std::string actor_name;  // named actor creation
  MSGPACK_DEFINE_ARRAY(kind, function, args, num_returns, resources, max_retries, max_calls,
                       max_restarts, actor_id, actor_name);
};

inline const RayRuntimeApi*& Api() {
  static const RayRuntimeApi* api = nullptr;
  return api;
}

inline const RayRuntimeApi& CheckedApi() {
  if (!Api()) throw RayException("ray runtime is not attached: run this plugin with `ray run`");
  return *Api();
}

// Reference counting hooks for ObjectRef (no-ops without a runtime that counts).
inline void RefDelta(const std::string& id, int32_t delta) {
  const RayRuntimeApi* api = Api();
  if (api && api->ref_delta && id.size() == RAY_OBJECT_ID_SIZE) api->ref_delta(api->ctx, id.data(), delta);
}
inline void RefEscaped(const std::string& id) {
  const RayRuntimeApi* api = Api();
  if (api && api->ref_escaped && id.size() == RAY_OBJECT_ID_SIZE) api->ref_escaped(api->ctx, id.data());
}

[[noreturn]] inline void ThrowRuntimeError(const char* what) {
  throw RayException(std::string(what) + ": " + CheckedApi().last_error(CheckedApi().ctx));
}

inline std::string Demangle(const char* name) {
  int status = 0;
  char* d = abi::__cxa_demangle(name, nullptr, nullptr, &status);
  std::string out = status == 0 && d ? d : name;
  std::free(d);
  return out;
}

template <typename T>
std::string Pack(const T& value) {
  msgpack::sbuffer buf;
  msgpack::pack(buf, value);
  return std::string(buf.data(), buf.size());
}

// What keeps an object's memory alive while it is decoded, for zero-copy views
// (Blob): a holder, or a task argument's runtime handle, retained only when a view
// needs it (most arguments need none).
class KeepAlive {
 public:
  KeepAlive() = default;
  template <typename U>
  KeepAlive(std::shared_ptr<U> keep) : keep_(std::move(keep)) {}  // NOLINT: implicit
  static KeepAlive Handle(void* handle) {
    KeepAlive k;
    k.handle_ = handle;
    return k;
  }
  // Null if nothing keeps the bytes alive: views must copy them.
  const std::shared_ptr<const void>& Get() {
    const RayRuntimeApi* api = Api();
    if (!keep_ && handle_ && api && api->retain) {
      if (void* retained = api->retain(api->ctx, handle_)) {
        keep_ = std::shared_ptr<const void>(retained, [api](const void* h) {
          RayObject o{nullptr, 0, RAY_OBJECT_VALUE, const_cast<void*>(h)};
          api->release(api->ctx, &o, 1);
        });
      }
    }
    return keep_;
  }

 private:
  std::shared_ptr<const void> keep_;
  void* handle_ = nullptr;
};

// The KeepAlive of the object being decoded on this thread, or null. A plain
// pointer, so the thread-local needs no constructor or destructor.
inline KeepAlive*& DecodeKeepAlive() {
  static thread_local KeepAlive* keep = nullptr;
  return keep;
}

template <typename T>
T Unpack(const char* data, size_t size, KeepAlive keep = {}) {
  auto by_reference = [](msgpack::type::object_type type, size_t, void*) {
    return type == msgpack::type::BIN;
  };
  msgpack::object_handle oh = msgpack::unpack(data, size, by_reference);
  auto* previous = DecodeKeepAlive();
  DecodeKeepAlive() = &keep;
  try {
    T out = oh.get().as<T>();
    DecodeKeepAlive() = previous;
    return out;
  } catch (...) {
    DecodeKeepAlive() = previous;
    throw;
  }
}

}  // namespace internal

// ---------------------------------------------------------------------------
// Values.

// Bytes. Get() of a Blob stored in shared memory points into the mapping (no copy);
// the mapping lives as long as any Blob referring to it.
class Blob {
 public:
  Blob() = default;
  explicit Blob(std::string bytes) {
    auto owned = std::make_shared<std::string>(std::move(bytes));
    data_ = owned->data();
    size_ = owned->size();
    keep_ = owned;
  }
  Blob(const char* data, size_t size, std::shared_ptr<const void> keep)
      : data_(data), size_(size), keep_(std::move(keep)) {}
  const char* data() const { return data_; }
  size_t size() const { return size_; }
  std::string str() const { return std::string(data_, size_); }

 private:
  const char* data_ = nullptr;
  size_t size_ = 0;
  std::shared_ptr<const void> keep_;
};

namespace internal {
// The msgpack bin header of `n` bytes.
inline std::string BinHeader(size_t n) {
  std::string out;
  if (n < 256) {
    out += static_cast<char>(0xc4);
  } else if (n < 65536) {
    out += static_cast<char>(0xc5);
    out += static_cast<char>(n >> 8);
  } else {
    out += static_cast<char>(0xc6);
    for (int shift = 24; shift >= 8; shift -= 8) out += static_cast<char>((n >> shift) & 0xff);
  }
  out += static_cast<char>(n & 0xff);
  return out;
}

// A Blob as msgpack bin with a single copy of its bytes (the generic Pack grows a
// buffer by doubling, copying a large Blob several times).
inline std::string Pack(const Blob& blob) {
  std::string out = BinHeader(blob.size());
  out.reserve(out.size() + blob.size());
  out.append(blob.data(), blob.size());
  return out;
}
}  // namespace internal

// Several results from one task; each element becomes its own object.
template <typename... Ts>
struct Returns : std::tuple<Ts...> {
  using tuple_type = std::tuple<Ts...>;
  using std::tuple<Ts...>::tuple;
};

// A reference to an object. While any ObjectRef to an object this process created
// is alive, the object is kept; serializing the ref (into a value or a task argument)
// keeps it until the job ends, since another process may hold it then.
template <typename T>
class ObjectRef {
 public:
  ObjectRef() = default;
  explicit ObjectRef(std::string id) : id_(std::move(id)) { internal::RefDelta(id_, +1); }
  ObjectRef(const ObjectRef& o) : id_(o.id_) { internal::RefDelta(id_, +1); }
  ObjectRef(ObjectRef&& o) noexcept : id_(std::move(o.id_)) { o.id_.clear(); }
  ObjectRef& operator=(const ObjectRef& o) {
    if (this != &o) {
      internal::RefDelta(o.id_, +1);
      internal::RefDelta(id_, -1);
      id_ = o.id_;
    }
    return *this;
  }
  ObjectRef& operator=(ObjectRef&& o) noexcept {
    if (this != &o) {
      internal::RefDelta(id_, -1);
      id_ = std::move(o.id_);
      o.id_.clear();
    }
    return *this;
  }
  ~ObjectRef() { internal::RefDelta(id_, -1); }
  // The 20-byte id.
  const std::string& Binary() const { return id_; }
  // The id as 40 hex characters.
  std::string ID() const {
    static const char* kDigits = "0123456789abcdef";
    std::string out;
    for (unsigned char c : id_) {
      out += kDigits[c >> 4];
      out += kDigits[c & 15];
    }
    return out;
  }
  bool operator==(const ObjectRef& o) const { return id_ == o.id_; }

  // msgpack: [id], as MSGPACK_DEFINE(id_) would write it.
  template <typename Packer>
  void msgpack_pack(Packer& pk) const {
    internal::RefEscaped(id_);
    pk.pack_array(1);
    pk.pack(id_);
  }
  void msgpack_unpack(const msgpack::object& o) {
    if (o.type != msgpack::type::ARRAY || o.via.array.size != 1) throw msgpack::type_error();
    *this = ObjectRef(o.via.array.ptr[0].as<std::string>());
  }

 private:
  std::string id_;
};

// ---------------------------------------------------------------------------
// Registration (one registry per plugin).

namespace internal {

enum EntryKind : int { kFunction = 0, kFactory = 1, kMethod = 2 };

struct Entry {
  std::string name;
  EntryKind kind;
  RayResult (*invoke)(void* instance, const RayArg* args, size_t nargs);
  void (*destroy)(void* instance);  // factories
};

struct Registry {
  std::unordered_map<std::string, Entry> by_name;
  std::unordered_map<std::string, std::string> name_by_pointer;  // pointer bytes -> name
  std::vector<std::string> duplicates;
  static Registry& Get() {
    static Registry r;
    return r;
  }
};

template <typename P>
std::string PointerKey(P p) {
  return std::string(reinterpret_cast<const char*>(&p), sizeof(p));
}

template <typename P>
const std::string& NameOf(P p) {
  auto& r = Registry::Get();
  auto it = r.name_by_pointer.find(PointerKey(p));
  if (it == r.name_by_pointer.end()) {
    throw RayException("function is not registered: add it to RAY_REMOTE(...)");
  }
  return it->second;
}

inline void FreeMalloced(char* p) { std::free(p); }

inline RayResult MakeResult(const std::string& bytes, int kind, void* instance = nullptr) {
  RayResult r{};
  r.data = static_cast<char*>(std::malloc(bytes.size() ? bytes.size() : 1));
  std::memcpy(r.data, bytes.data(), bytes.size());
  r.size = bytes.size();
  r.kind = kind;
  r.free_fn = FreeMalloced;
  r.instance = instance;
  return r;
}

inline RayResult ErrorResult(const std::string& type, const std::string& message) {
  return MakeResult(Pack(ErrorInfo{kTaskException, type, message, "", ""}), RAY_OBJECT_ERROR);
}

template <typename R>
struct IsReturns : std::false_type {};
template <typename... Ts>
struct IsReturns<Returns<Ts...>> : std::true_type {};

// Encodes a result: one value, or (Returns<...>) an array of separately packed values.
template <typename R>
std::string EncodeResult(const R& r) {
  if constexpr (IsReturns<R>::value) {
    std::vector<std::string> parts;
    std::apply([&](const auto&... e) { (parts.push_back(Pack(e)), ...); },
               static_cast<const typename R::tuple_type&>(r));
    return Pack(parts);
  } else {
    return Pack(r);
  }
}

template <typename F>
struct FunctionTraits;
template <typename R, typename... Ps>
struct FunctionTraits<R (*)(Ps...)> {
  using Return = R;
  using Args = std::tuple<std::decay_t<Ps>...>;
  static constexpr size_t kArity = sizeof...(Ps);
};
template <typename R, typename C, typename... Ps>
struct FunctionTraits<R (C::*)(Ps...)> {
  using Class = C;
  using Return = R;
  using Args = std::tuple<std::decay_t<Ps>...>;
  static constexpr size_t kArity = sizeof...(Ps);
};
template <typename R, typename C, typename... Ps>
struct FunctionTraits<R (C::*)(Ps...) const> : FunctionTraits<R (C::*)(Ps...)> {};

template <typename Args, size_t... I>
Args DecodeArgs(const RayArg* args, std::index_sequence<I...>) {
  return Args{Unpack<std::tuple_element_t<I, Args>>(args[I].data, args[I].size,
                                                    KeepAlive::Handle(args[I].handle))...};
}

template <typename Call>
RayResult Guarded(Call&& call) {
  try {
    return call();
  } catch (const TaskError& e) {
    // A nested task failed and the user did not catch it: pass its type along.
    return ErrorResult(e.type(), e.what());
  } catch (const std::exception& e) {
    return ErrorResult(Demangle(typeid(e).name()), e.what());
  } catch (...) {
    return ErrorResult("unknown", "a non-standard exception was thrown");
  }
}

template <typename Traits>
void CheckArity(size_t nargs) {
  if (nargs != Traits::kArity) {
    throw std::invalid_argument("expected " + std::to_string(Traits::kArity) + " arguments, got " +
                                std::to_string(nargs));
  }
}

template <auto F>
RayResult InvokeFunction(void*, const RayArg* args, size_t nargs) {
  using T = FunctionTraits<decltype(F)>;
  return Guarded([&] {
    CheckArity<T>(nargs);
    auto tuple = DecodeArgs<typename T::Args>(args, std::make_index_sequence<T::kArity>());
    if constexpr (std::is_void_v<typename T::Return>) {
      std::apply(F, std::move(tuple));
      return MakeResult(Pack(msgpack::type::nil_t()), RAY_OBJECT_VALUE);
    } else if constexpr (std::is_pointer_v<typename T::Return>) {  // actor factory
      auto* instance = std::apply(F, std::move(tuple));
      return MakeResult(Pack(msgpack::type::nil_t()), RAY_OBJECT_VALUE, instance);
    } else {
      return MakeResult(EncodeResult(std::apply(F, std::move(tuple))), RAY_OBJECT_VALUE);
    }
  });
}

template <auto M>
RayResult InvokeMethod(void* instance, const RayArg* args, size_t nargs) {
  using T = FunctionTraits<decltype(M)>;
  return Guarded([&] {
    CheckArity<T>(nargs);
    auto* self = static_cast<typename T::Class*>(instance);
    auto tuple = DecodeArgs<typename T::Args>(args, std::make_index_sequence<T::kArity>());
    auto call = [&](auto&&... a) { return (self->*M)(std::forward<decltype(a)>(a)...); };
    if constexpr (std::is_void_v<typename T::Return>) {
      std::apply(call, std::move(tuple));
      return MakeResult(Pack(msgpack::type::nil_t()), RAY_OBJECT_VALUE);
    } else {
      return MakeResult(EncodeResult(std::apply(call, std::move(tuple))), RAY_OBJECT_VALUE);
    }
  });
}

template <typename C>
void DestroyInstance(void* instance) {
  delete static_cast<C*>(instance);
}

template <auto F>
void RegisterOne(std::string name) {
  auto& r = Registry::Get();
  Entry e;
  e.name = name;
  e.destroy = nullptr;
  if constexpr (std::is_member_function_pointer_v<decltype(F)>) {
    e.kind = kMethod;
    e.invoke = &InvokeMethod<F>;
  } else {
    using T = FunctionTraits<decltype(F)>;
    e.invoke = &InvokeFunction<F>;
    if constexpr (std::is_pointer_v<typename T::Return>) {
      e.kind = kFactory;
      e.destroy = &DestroyInstance<std::remove_pointer_t<typename T::Return>>;
    } else {
      e.kind = kFunction;
    }
  }
  if (r.by_name.count(name)) r.duplicates.push_back(name);
  r.name_by_pointer[PointerKey(F)] = name;
  r.by_name[name] = std::move(e);
}

// "Counter::Create, &Counter::Add" -> {"Counter::Create", "Counter::Add"}.
inline std::vector<std::string> SplitNames(const char* text) {
  std::vector<std::string> out(1);
  for (const char* p = text; *p; ++p) {
    if (*p == ',') {
      out.emplace_back();
    } else if (*p != '&' && *p != ' ' && *p != '\n' && *p != '\t') {
      out.back() += *p;
    }
  }
  return out;
}

template <auto... Fs>
bool RegisterAll(const char* text) {
  auto names = SplitNames(text);
  size_t i = 0;
  (RegisterOne<Fs>(names[i++]), ...);
  return true;
}

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

 protected:
  TaskRequest req_;
};

}  // namespace internal

// ---------------------------------------------------------------------------
// Tasks.

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

// ---------------------------------------------------------------------------
// Actors.

template <typename T>
class ActorHandle {
 public:
  ActorHandle() = default;
  explicit ActorHandle(std::string id) : id_(std::move(id)) {}
  const std::string& Binary() const { return id_; }

  template <typename M>
  class MethodCaller {
    using Traits = internal::FunctionTraits<M>;

   public:
    MethodCaller(std::string actor, M m) {
      req_.kind = internal::kActorTask;
      req_.actor_id = std::move(actor);
      req_.function = internal::NameOf(m);
      req_.max_retries = 0;
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

  // Stops the actor's worker; pending calls fail with ActorDiedError.
  void Kill() const {
    const auto& api = internal::CheckedApi();
    RayObject reply{};
    if (api.call(api.ctx, "kill_actor", id_.data(), id_.size(), &reply) != 0) {
      internal::ThrowRuntimeError("cannot kill actor");
    }
    api.release(api.ctx, &reply, 1);
  }

  MSGPACK_DEFINE(id_);

 private:
  std::string id_;
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
  // A named actor can be found by any job with ray::GetActor<T>(name).
  ActorCreator& SetName(const std::string& name) {
    this->req_.actor_name = name;
    return *this;
  }
  // Times the actor is restarted (constructor re-run) when its worker dies.
  ActorCreator& SetMaxRestarts(int n) {
    this->req_.max_restarts = n;
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

// The named actor, or nullopt if no live actor has that name.
template <typename T>
std::optional<ActorHandle<T>> GetActor(const std::string& name) {
  const auto& api = internal::CheckedApi();
  RayObject reply{};
  if (api.call(api.ctx, "get_actor", name.data(), name.size(), &reply) != 0) {
    internal::ThrowRuntimeError("cannot look up actor");
  }
  std::string id(reply.data, reply.size);
  api.release(api.ctx, &reply, 1);
  if (id.empty()) return std::nullopt;
  return ActorHandle<T>(id);
}

// ---------------------------------------------------------------------------
// Objects.

template <typename T>
ObjectRef<T> Put(const T& value) {
  const auto& api = internal::CheckedApi();
  char id[RAY_OBJECT_ID_SIZE];
  std::optional<int> rc;
  if constexpr (std::is_same_v<T, Blob>) {
    if (api.put_parts) {  // a Blob's bytes go to the store as they are: one copy
      std::string header = internal::BinHeader(value.size());
      RayArg parts[2] = {{header.data(), header.size(), nullptr},
                         {value.data(), value.size(), nullptr}};
      rc = api.put_parts(api.ctx, parts, 2, id);
    }
  }
  if (!rc) {
    std::string bytes = internal::Pack(value);
    rc = api.put(api.ctx, bytes.data(), bytes.size(), id);
  }
  if (*rc != 0) internal::ThrowRuntimeError("cannot put object");
  return ObjectRef<T>(std::string(id, RAY_OBJECT_ID_SIZE));
}

namespace internal {

// Releases a runtime object exactly once.
struct Released {
  explicit Released(RayObject o) : object(o) {}
  Released(const Released&) = delete;
  Released& operator=(const Released&) = delete;
  ~Released() {
    if (const RayRuntimeApi* api = Api()) api->release(api->ctx, &object, 1);
  }
  RayObject object;
};

template <typename T>
std::vector<std::shared_ptr<T>> GetMany(const std::vector<const std::string*>& ids,
                                        int64_t timeout_ms) {
  const auto& api = CheckedApi();
  std::string packed;
  for (const auto* id : ids) packed += *id;
  std::vector<RayObject> objs(ids.size());
  if (api.get(api.ctx, packed.data(), ids.size(), timeout_ms, objs.data()) != 0) {
    ThrowRuntimeError("cannot get objects");
  }
  std::vector<std::shared_ptr<Released>> holders;
  for (auto& o : objs) holders.push_back(std::make_shared<Released>(o));
  std::vector<std::shared_ptr<T>> out;
  for (size_t i = 0; i < objs.size(); ++i) {
    const RayObject& o = objs[i];
    if (o.kind == RAY_OBJECT_PENDING) {
      throw GetTimeoutError("object not ready within " + std::to_string(timeout_ms) + " ms");
    }
    ErrorInfo error;
    try {
      if (o.kind == RAY_OBJECT_ERROR) {
        error = Unpack<ErrorInfo>(o.data, o.size);
      } else {
        out.push_back(std::make_shared<T>(Unpack<T>(o.data, o.size, holders[i])));
        continue;
      }
    } catch (const msgpack::type_error&) {
      throw RayException("object cannot be decoded as " +
                         (o.kind == RAY_OBJECT_ERROR ? std::string("an error")
                                                     : Demangle(typeid(T).name())));
    } catch (const msgpack::unpack_error& e) {
      throw RayException(std::string("object is corrupt: ") + e.what());
    }
    ThrowError(error);
  }
  return out;
}

template <typename Rep, typename Period>
int64_t ToMillis(std::chrono::duration<Rep, Period> d) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(d).count();
}

}  // namespace internal

// Blocks until the object exists; throws the task's error if it failed.
template <typename T>
std::shared_ptr<T> Get(const ObjectRef<T>& ref) {
  return internal::GetMany<T>({&ref.Binary()}, -1)[0];
}

template <typename T, typename Rep, typename Period>
std::shared_ptr<T> Get(const ObjectRef<T>& ref, std::chrono::duration<Rep, Period> timeout) {
  return internal::GetMany<T>({&ref.Binary()}, internal::ToMillis(timeout))[0];
}

template <typename T>
std::vector<std::shared_ptr<T>> Get(const std::vector<ObjectRef<T>>& refs) {
  std::vector<const std::string*> ids;
  for (const auto& r : refs) ids.push_back(&r.Binary());
  return internal::GetMany<T>(ids, -1);
}

template <typename T>
struct WaitResult {
  std::vector<ObjectRef<T>> ready;
  std::vector<ObjectRef<T>> unready;
};

// Returns when `num` objects are ready or the timeout passes (negative: never).
// Both lists keep the input order. Ids must be unique and num <= refs.size().
template <typename T>
WaitResult<T> Wait(const std::vector<ObjectRef<T>>& refs, size_t num, int64_t timeout_ms = -1) {
  if (num > refs.size()) {
    throw std::invalid_argument("Wait: num (" + std::to_string(num) +
                                ") exceeds the number of refs (" + std::to_string(refs.size()) +
                                ")");
  }
  const auto& api = internal::CheckedApi();
  std::string packed;
  for (const auto& r : refs) packed += r.Binary();
  std::vector<uint8_t> ready(refs.size());
  if (api.wait(api.ctx, packed.data(), refs.size(), num, timeout_ms, ready.data()) != 0) {
    internal::ThrowRuntimeError("cannot wait for objects");
  }
  WaitResult<T> out;
  for (size_t i = 0; i < refs.size(); ++i) (ready[i] ? out.ready : out.unready).push_back(refs[i]);
  return out;
}

template <typename T, typename Rep, typename Period>
WaitResult<T> Wait(const std::vector<ObjectRef<T>>& refs, size_t num,
                   std::chrono::duration<Rep, Period> timeout) {
  return Wait(refs, num, internal::ToMillis(timeout));
}

// ---------------------------------------------------------------------------
// Cluster state.

namespace internal {
template <typename T>
T Call(const char* op, const std::string& req = "") {
  const auto& api = CheckedApi();
  RayObject reply{};
  if (api.call(api.ctx, op, req.data(), req.size(), &reply) != 0) {
    ThrowRuntimeError((std::string("cannot call ") + op).c_str());
  }
  Released hold{reply};
  return Unpack<T>(reply.data, reply.size);
}
}  // namespace internal

// The id (hex) of the node this code runs on.
inline std::string GetNodeId() {
  const auto& api = internal::CheckedApi();
  RayObject reply{};
  if (api.call(api.ctx, "node_id", "", 0, &reply) != 0) {
    internal::ThrowRuntimeError("cannot get the node id");
  }
  internal::Released hold(reply);
  return std::string(reply.data, reply.size);
}

// A node of the cluster, as ray::Nodes() lists it (Ray's ray.nodes()).
struct NodeInfo {
  std::string node_id;  // 32 hex characters, as GetNodeId() returns
  std::string address;  // the node's IP address
  bool alive = false;   // false: left the cluster or stopped heartbeating
  std::map<std::string, double> resources_total;
  std::map<std::string, double> resources_available;  // empty for dead nodes
  MSGPACK_DEFINE(node_id, address, alive, resources_total, resources_available);
};

// Every node the cluster has had, live or dead, in the order they joined. The
// calling node's resources are current; others' are as of their last heartbeat.
inline std::vector<NodeInfo> Nodes() { return internal::Call<std::vector<NodeInfo>>("nodes"); }

// The GPU ids the running task or actor holds ([] in the driver and for tasks that
// asked for no GPU): CUDA_VISIBLE_DEVICES is set to them while the task runs. Whole
// GPUs for the integer part of the request, a shared GPU for a fractional part.
inline std::vector<int> GetGpuIds() { return internal::Call<std::vector<int>>("gpu_ids"); }

// Records a span in the cluster's timeline (`ray timeline`) from its construction to
// its destruction, on the row of the worker (or driver) that made it:
//   { ray::Profile span("load data"); Load(); }
// Usable in tasks, actor methods and RAY_MAIN. Never throws: without a runtime, or if
// the span cannot be recorded, it is dropped. Times have millisecond resolution.
class Profile {
 public:
  explicit Profile(std::string name) : name_(std::move(name)), start_ms_(NowMs()) {}
  Profile(const Profile&) = delete;
  Profile& operator=(const Profile&) = delete;
  ~Profile() {
    const RayRuntimeApi* api = internal::Api();
    if (!api) return;
    try {
      std::string body = internal::Pack(std::make_tuple(name_, start_ms_, NowMs()));
      RayObject reply{};
      if (api->call(api->ctx, "profile_event", body.data(), body.size(), &reply) == 0) {
        api->release(api->ctx, &reply, 1);
      }
    } catch (...) {
    }
  }

 private:
  static int64_t NowMs() {
    return std::chrono::duration_cast<std::chrono::milliseconds>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
  }
  std::string name_;
  int64_t start_ms_;
};

// Total resources of the cluster's live nodes ({"CPU": 8, "GPU": 1, ...}).
inline std::map<std::string, double> ClusterResources() {
  return internal::Call<std::map<std::string, double>>("cluster_resources");
}
// Resources not currently held by tasks or actors.
inline std::map<std::string, double> AvailableResources() {
  return internal::Call<std::map<std::string, double>>("available_resources");
}

}  // namespace ray

// Blob travels as msgpack bin; decoding references the source buffer.
namespace msgpack {
MSGPACK_API_VERSION_NAMESPACE(MSGPACK_DEFAULT_API_NS) {
  namespace adaptor {
  template <>
  struct pack<ray::Blob> {
    template <typename Stream>
    packer<Stream>& operator()(packer<Stream>& o, const ray::Blob& v) const {
      o.pack_bin(static_cast<uint32_t>(v.size()));
      o.pack_bin_body(v.data(), static_cast<uint32_t>(v.size()));
      return o;
    }
  };
  template <>
  struct convert<ray::Blob> {
    const msgpack::object& operator()(const msgpack::object& o, ray::Blob& v) const {
      if (o.type != msgpack::type::BIN) throw msgpack::type_error();
      ray::internal::KeepAlive* alive = ray::internal::DecodeKeepAlive();
      if (alive && alive->Get()) {
        v = ray::Blob(o.via.bin.ptr, o.via.bin.size, alive->Get());
      } else {
        v = ray::Blob(std::string(o.via.bin.ptr, o.via.bin.size));
      }
      return o;
    }
  };
  }  // namespace adaptor
}
}  // namespace msgpack

// ---------------------------------------------------------------------------
// Registration and entry points.

#define RAY_REMOTE(...)                                                        \
  static const bool RAY_CONCAT_NAME(ray_registered_, __LINE__) =               \
      ::ray::internal::RegisterAll<__VA_ARGS__>(#__VA_ARGS__)
#define RAY_CONCAT_NAME_INNER(a, b) a##b
#define RAY_CONCAT_NAME(a, b) RAY_CONCAT_NAME_INNER(a, b)

// The job's entry point, run by `ray run` / `ray submit` with the job's arguments.
#define RAY_MAIN(...)                                                             \
  static int RayUserMain(__VA_ARGS__);                                            \
  RAY_EXPORT int ray_plugin_main(int argc, char** argv) {                         \
    try {                                                                         \
      return RayUserMain(argc, argv);                                             \
    } catch (const std::exception& e) {                                           \
      std::fprintf(stderr, "job failed: %s\n", e.what());                         \
      return 1;                                                                   \
    }                                                                             \
  }                                                                               \
  static int RayUserMain(__VA_ARGS__)

RAY_EXPORT inline uint32_t ray_plugin_abi_version() { return RAY_PLUGIN_ABI_VERSION; }

RAY_EXPORT inline void ray_plugin_attach(const RayRuntimeApi* api) {
  ray::internal::Api() = api;
}

RAY_EXPORT inline RayResult ray_plugin_describe() {
  auto& r = ray::internal::Registry::Get();
  std::vector<std::pair<std::string, int>> names;
  for (const auto& [name, e] : r.by_name) names.emplace_back(name, e.kind);
  std::pair<decltype(names), std::vector<std::string>> out{names, r.duplicates};
  return ray::internal::MakeResult(ray::internal::Pack(out), RAY_OBJECT_VALUE);
}

RAY_EXPORT inline RayResult ray_plugin_invoke(const char* name, size_t name_len, void* instance,
                                              const RayArg* args, size_t nargs) {
  auto& r = ray::internal::Registry::Get();
  auto it = r.by_name.find(std::string(name, name_len));
  if (it == r.by_name.end()) {
    return ray::internal::ErrorResult("ray::UnknownFunction",
                                      "no function named '" + std::string(name, name_len) +
                                          "' is registered in this plugin");
  }
  return it->second.invoke(instance, args, nargs);
}

RAY_EXPORT inline void ray_plugin_destroy(const char* factory, size_t len, void* instance) {
  auto& r = ray::internal::Registry::Get();
  auto it = r.by_name.find(std::string(factory, len));
  if (it != r.by_name.end() && it->second.destroy) it->second.destroy(instance);
}
