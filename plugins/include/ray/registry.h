#pragma once
// Registration: the plugin's table of remote functions, and the entry points through
// which the runtime lists and calls them.
//
//   RAY_REMOTE(Plus, Counter::Create, &Counter::Add);   // named by their text
//   RAY_REMOTE(Sum<int, int>);                          // registered as "Sum<int,int>"
//   RAY_REMOTE_NAMED("sum_doubles", Sum<double, double>);
//
// RAY_REMOTE names each function by its argument's text (see SplitNames for the exact
// rule); RAY_REMOTE_NAMED gives one function an explicit name. A function is a plain
// function (a task), a function returning a pointer (an actor factory: the instance
// it creates lives until the actor ends), or a member function (an actor method).
// Names are unique per plugin: the runtime refuses a plugin that registers a name
// twice. Registration runs during static initialization; the registry is not
// thread-safe and is only read after the plugin is loaded. Exceptions thrown by a
// remote function are caught here and returned as error objects: none crosses the C
// boundary.

#include <msgpack.hpp>

#include <cctype>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <stdexcept>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <typeinfo>
#include <unordered_map>
#include <utility>
#include <vector>

#include "ray/abi.h"
#include "ray/async.h"
#include "ray/context.h"
#include "ray/errors.h"
#include "ray/values.h"
#include "ray/wire.h"

namespace ray::internal {

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

// The name `p` was registered under (the last one, if registered twice).
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

// The signature of a function or member function pointer.
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
  static_assert(!IsAsync<typename T::Return>::value, "only actor methods may be async (ray/async.h)");
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

// The result of an async body that ended (its value, or what it threw).
template <typename T>
RayResult AsyncOutcome(AsyncPromise<T>& p) {
  return Guarded([&] {
    if (p.error) std::rethrow_exception(p.error);
    if constexpr (std::is_void_v<T>) {
      return MakeResult(Pack(msgpack::type::nil_t()), RAY_OBJECT_VALUE);
    } else {
      return MakeResult(EncodeResult(*p.value), RAY_OBJECT_VALUE);
    }
  });
}
// Runs an async method's body under the actor's loop until it ends or first awaits:
// its result, or RAY_OBJECT_PENDING, and the result goes to the runtime's complete()
// when the body ends.
template <typename T>
RayResult StartAsync(Async<T> task) {
  auto body = task.Release();
  // (Counted from its first run: ordinary methods take the loop meanwhile.)
  ++AsyncInFlight();
  const RayRuntimeApi& api = CheckedApi();
  if (api.abi_version < 4 || !api.call_id || !api.complete) {
    --AsyncInFlight();
    body.destroy();
    throw RayException("this ray runtime cannot run async methods");
  }
  const uint64_t call = api.call_id(api.ctx);
  std::lock_guard<std::mutex> loop(AsyncLoop());
  body.resume();
  if (body.promise().done) {
    --AsyncInFlight();
    RayResult r = AsyncOutcome(body.promise());
    body.destroy();
    return r;
  }
  body.promise().on_done = [&api, call](AsyncPromise<T>& p) {
    --AsyncInFlight();
    api.complete(api.ctx, call, AsyncOutcome(p));
  };
  return MakeResult("", RAY_OBJECT_PENDING);
}
// Whether a member function takes every parameter by value.
template <typename R, typename C, typename... Ps>
constexpr bool TakesValues(R (C::*)(Ps...)) {
  return (!std::is_reference_v<Ps> && ...);
}
template <typename R, typename C, typename... Ps>
constexpr bool TakesValues(R (C::*)(Ps...) const) {
  return (!std::is_reference_v<Ps> && ...);
}
// An ordinary method's (or function's) result.
template <typename T, typename Call, typename Tuple>
RayResult InvokeSync(Call& call, Tuple&& tuple) {
  if constexpr (std::is_void_v<typename T::Return>) {
    std::apply(call, std::move(tuple));
    return MakeResult(Pack(msgpack::type::nil_t()), RAY_OBJECT_VALUE);
  } else {
    return MakeResult(EncodeResult(std::apply(call, std::move(tuple))), RAY_OBJECT_VALUE);
  }
}
template <auto M>
RayResult InvokeMethod(void* instance, const RayArg* args, size_t nargs) {
  using T = FunctionTraits<decltype(M)>;
  return Guarded([&] {
    CheckArity<T>(nargs);
    auto* self = static_cast<typename T::Class*>(instance);
    auto tuple = DecodeArgs<typename T::Args>(args, std::make_index_sequence<T::kArity>());
    auto call = [&](auto&&... a) { return (self->*M)(std::forward<decltype(a)>(a)...); };
    if constexpr (IsAsync<typename T::Return>::value) {
      static_assert(TakesValues(M), "an async method takes its parameters by value: a body "
                                    "outlives the call's decoded arguments (ray/async.h)");
      return StartAsync(std::apply(call, std::move(tuple)));
    } else {
      // While async calls of the actor are in flight, one body at a time (async.h).
      std::unique_lock<std::mutex> loop(AsyncLoop(), std::defer_lock);
      if (AsyncInFlight() > 0) loop.lock();
      return InvokeSync<T>(call, std::move(tuple));
    }
  });
}
template <typename C>
void DestroyInstance(void* instance) {
  delete static_cast<C*>(instance);
}

// Registers F under `name`. A name registered twice is recorded in `duplicates`,
// for which the runtime refuses the plugin.
template <auto F>
bool RegisterOne(std::string name) {
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
  return true;
}

// Where the argument that starts at `begin` of RAY_REMOTE's text ends: at the next
// comma outside (), [], {} and, outside parentheses, <>. So the comma of
// `Sum<int, int>` or `F<(1, 2)>` belongs to its argument.
constexpr size_t ArgumentEnd(std::string_view text, size_t begin) {
  int nesting = 0;  // (), [], {}
  int angles = 0;   // <> outside the others
  for (size_t i = begin; i < text.size(); ++i) {
    char c = text[i];
    if (c == '(' || c == '[' || c == '{') {
      ++nesting;
    } else if (c == ')' || c == ']' || c == '}') {
      --nesting;
    } else if (nesting == 0 && c == '<') {
      ++angles;
    } else if (nesting == 0 && c == '>' && angles > 0) {
      --angles;
    } else if (c == ',' && nesting == 0 && angles == 0) {
      return i;
    }
  }
  return text.size();
}

// How many arguments RAY_REMOTE's text holds by ArgumentEnd's rule.
constexpr size_t CountArguments(std::string_view text) {
  if (text.empty()) return 0;
  size_t n = 1;
  for (size_t end = ArgumentEnd(text, 0); end < text.size(); end = ArgumentEnd(text, end + 1)) ++n;
  return n;
}

// The registered name of one argument's text: without a leading '&', and without
// whitespace except a single space between two words ("unsigned int").
inline std::string NameOfArgument(std::string_view text) {
  auto is_word = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  std::string out;
  bool spaced = false;
  for (char c : text) {
    if (std::isspace(static_cast<unsigned char>(c))) {
      spaced = true;
      continue;
    }
    if (out.empty() && c == '&') continue;
    if (spaced && !out.empty() && is_word(out.back()) && is_word(c)) out += ' ';
    spaced = false;
    out += c;
  }
  return out;
}

// RAY_REMOTE's names, one per argument of its text:
//   "Counter::Create, &Counter::Add"        -> {"Counter::Create", "Counter::Add"}
//   "Sum<int, int>, &Box<unsigned int>::Get" -> {"Sum<int,int>", "Box<unsigned int>::Get"}
inline std::vector<std::string> SplitNames(std::string_view text) {
  std::vector<std::string> out;
  if (text.empty()) return out;
  for (size_t begin = 0;;) {
    size_t end = ArgumentEnd(text, begin);
    out.push_back(NameOfArgument(text.substr(begin, end - begin)));
    if (end == text.size()) return out;
    begin = end + 1;
  }
}

template <auto... Fs>
constexpr size_t CountOf() {
  return sizeof...(Fs);
}

template <auto... Fs>
bool RegisterAll(const char* text) {
  auto names = SplitNames(text);
  size_t i = 0;
  (RegisterOne<Fs>(names[i++]), ...);
  return true;
}

}  // namespace ray::internal

#define RAY_CONCAT_NAME_INNER(a, b) a##b
#define RAY_CONCAT_NAME(a, b) RAY_CONCAT_NAME_INNER(a, b)

// Registers functions, actor factories and methods under their text's names. Operator
// names like `operator<` can confuse the split: the compiler then says so, and
// RAY_REMOTE_NAMED registers them.
#define RAY_REMOTE(...)                                                                    \
  static_assert(::ray::internal::CountArguments(#__VA_ARGS__) ==                          \
                    ::ray::internal::CountOf<__VA_ARGS__>(),                              \
                "RAY_REMOTE cannot split its arguments into names: register this "        \
                "function with RAY_REMOTE_NAMED(\"name\", function)");                    \
  [[maybe_unused]] static const bool RAY_CONCAT_NAME(ray_registered_, __COUNTER__) =      \
      ::ray::internal::RegisterAll<__VA_ARGS__>(#__VA_ARGS__)

// Registers one function, actor factory or method under an explicit name:
//   RAY_REMOTE_NAMED("sum", Sum<int, int>);
#define RAY_REMOTE_NAMED(name, ...)                                                       \
  [[maybe_unused]] static const bool RAY_CONCAT_NAME(ray_registered_, __COUNTER__) =      \
      ::ray::internal::RegisterOne<__VA_ARGS__>(name)

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
