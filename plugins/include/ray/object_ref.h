#pragma once
// Objects: ray::ObjectRef<T>, a typed reference to an immutable value in the
// cluster, and the calls on it: Put stores a value, Get blocks until values exist
// (throwing the error a failed task left, ray/errors.h), Wait returns when some are
// ready. An ObjectRef counts as a reference to its object for as long as it lives, in
// whichever process holds it: an object is freed once no ref to it is left anywhere
// (refs passed to tasks, nested in other objects or results, kept by actors, all
// count; a process that dies lets go of its refs). Calls need an attached runtime
// (ray/context.h); they may be made from any thread (RAY_MAIN's, a task's, the
// threads of a concurrent actor, a callback, or threads of the user's own).
//
// Reacting to results without blocking a thread (Ray's async API): ref.Then(on_value,
// on_error) and ray::GetAsync(ref) -> std::future. Their callbacks run on the
// runtime's callback thread (one per plugin in a process), one at a time, once each,
// soon after the object is ready; not on the caller's thread, and not on the thread
// that reads the runtime's sockets. They may use the ray API (Get, Put, Remote, Then):
// a call that blocks delays the callbacks behind it, nothing else. A failed object
// gives the callback the exception ray::Get would throw (TaskError, ActorDiedError,
// ObjectLostError, ...). Callbacks still waiting when the job ends (RAY_MAIN returns)
// or the worker exits run then, with a RayException saying so.

#include <msgpack.hpp>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <functional>
#include <future>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <typeinfo>
#include <utility>
#include <vector>

#include "ray/abi.h"
#include "ray/context.h"
#include "ray/errors.h"
#include "ray/values.h"
#include "ray/wire.h"

namespace ray {

namespace internal {
// The id an ObjectRef and all its copies share. The runtime counts one reference for
// it while any copy lives, so a copy costs an atomic increment, not a call into the
// runtime (Wait and Get hand back copies of long lists of refs). Thread-safe as a
// shared_ptr is: copies may live and die on different threads.
class SharedRefId {
 public:
  SharedRefId() = default;
  explicit SharedRefId(std::string id) {
    if (id.empty()) return;
    block_ = new Block{std::move(id), {1}};
    RefDelta(block_->id, +1);
  }
  SharedRefId(const SharedRefId& o) noexcept : block_(o.block_) {
    if (block_) block_->copies.fetch_add(1, std::memory_order_relaxed);
  }
  SharedRefId(SharedRefId&& o) noexcept : block_(o.block_) { o.block_ = nullptr; }
  SharedRefId& operator=(SharedRefId o) noexcept {
    std::swap(block_, o.block_);
    return *this;
  }
  ~SharedRefId() {
    if (block_ && block_->copies.fetch_sub(1, std::memory_order_acq_rel) == 1) {
      RefDelta(block_->id, -1);
      delete block_;
    }
  }
  const std::string& Binary() const {
    static const std::string kNone;
    return block_ ? block_->id : kNone;
  }

 private:
  struct Block {
    std::string id;
    std::atomic<uint32_t> copies;
  };
  Block* block_ = nullptr;
};
}  // namespace internal

// A reference to an object. While any ObjectRef to the object is alive, in this
// process or another it was passed to (serialized into a value, a task argument or a
// result), the object is kept.
template <typename T>
class ObjectRef {
 public:
  ObjectRef() = default;
  explicit ObjectRef(std::string id) : id_(std::move(id)) {}
  // The 20-byte id.
  const std::string& Binary() const { return id_.Binary(); }
  // The id as 40 hex characters.
  std::string ID() const {
    static const char* kDigits = "0123456789abcdef";
    std::string out;
    for (unsigned char c : Binary()) {
      out += kDigits[c >> 4];
      out += kDigits[c & 15];
    }
    return out;
  }
  bool operator==(const ObjectRef& o) const { return Binary() == o.Binary(); }

  // Calls on_value(value) once the object exists, or on_error(the exception ray::Get
  // would throw) if it failed, on the runtime's callback thread (see above). Without
  // on_error, a failure is printed to stderr. An exception a callback throws is
  // printed to stderr too (nothing else can catch it). Returns at once; throws
  // RayException if the runtime cannot call back (one older than this SDK).
  void Then(std::function<void(std::shared_ptr<T>)> on_value,
            std::function<void(std::exception_ptr)> on_error = nullptr) const;

  // msgpack: [id], as MSGPACK_DEFINE(id_) would write it.
  template <typename Packer>
  void msgpack_pack(Packer& pk) const {
    internal::RefEscaped(Binary());
    pk.pack_array(1);
    pk.pack(Binary());
  }
  void msgpack_unpack(const msgpack::object& o) {
    if (o.type != msgpack::type::ARRAY || o.via.array.size != 1) throw msgpack::type_error();
    *this = ObjectRef(o.via.array.ptr[0].as<std::string>());
  }

 private:
  internal::SharedRefId id_;
};

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

// The value of a ready object, or throws its error (as ray::Get does).
template <typename T>
std::shared_ptr<T> Decode(const std::shared_ptr<Released>& holder) {
  const RayObject& o = holder->object;
  ErrorInfo error;
  try {
    if (o.kind != RAY_OBJECT_ERROR) return std::make_shared<T>(Unpack<T>(o.data, o.size, holder));
    error = Unpack<ErrorInfo>(o.data, o.size);
  } catch (const msgpack::type_error&) {
    throw RayException("object cannot be decoded as " +
                       (o.kind == RAY_OBJECT_ERROR ? std::string("an error")
                                                   : Demangle(typeid(T).name())));
  } catch (const msgpack::unpack_error& e) {
    throw RayException(std::string("object is corrupt: ") + e.what());
  }
  ThrowError(error);
}

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
    if (objs[i].kind == RAY_OBJECT_PENDING) {
      throw GetTimeoutError("object not ready within " + std::to_string(timeout_ms) + " ms");
    }
    out.push_back(Decode<T>(holders[i]));
  }
  return out;
}

// Calls done(value, nullptr) or done(nullptr, error) once the object is ready, on the
// runtime's callback thread (RayRuntimeApi::get_async). `done` must not throw.
template <typename T>
void OnReady(const ObjectRef<T>& ref,
             std::function<void(std::shared_ptr<T>, std::exception_ptr)> done) {
  const auto& api = CheckedApi();
  if (api.abi_version < 3 || !api.get_async) {
    throw RayException("this ray runtime cannot call back on objects (Then, GetAsync)");
  }
  struct Pending {
    ObjectRef<T> ref;  // keeps the object until the callback ran
    std::function<void(std::shared_ptr<T>, std::exception_ptr)> done;
  };
  auto* pending = new Pending{ref, std::move(done)};
  auto callback = [](void* user, RayObject* object) {
    std::unique_ptr<Pending> self(static_cast<Pending*>(user));
    auto holder = std::make_shared<Released>(*object);
    std::shared_ptr<T> value;
    std::exception_ptr error;
    try {
      value = Decode<T>(holder);
    } catch (...) {
      error = std::current_exception();
    }
    holder.reset();  // (a value that refers to the bytes keeps them)
    self->done(std::move(value), error);
  };
  if (api.get_async(api.ctx, ref.Binary().data(), callback, pending) != 0) {
    delete pending;
    ThrowRuntimeError("cannot call back on object");
  }
}

// What a callback threw, or a failure no one handles: said on stderr.
inline void ReportUnhandled(const char* what, const std::string& id, std::exception_ptr e) {
  std::string message = "unknown exception";
  try {
    std::rethrow_exception(e);
  } catch (const std::exception& x) {
    message = x.what();
  } catch (...) {
  }
  std::fprintf(stderr, "ray: %s (object %s): %s\n", what, id.c_str(), message.c_str());
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
void ObjectRef<T>::Then(std::function<void(std::shared_ptr<T>)> on_value,
                        std::function<void(std::exception_ptr)> on_error) const {
  std::string id = ID();
  internal::OnReady<T>(*this, [on_value = std::move(on_value), on_error = std::move(on_error),
                               id](std::shared_ptr<T> value, std::exception_ptr error) {
    try {
      if (!error) {
        on_value(std::move(value));
      } else if (on_error) {
        on_error(error);
      } else {
        internal::ReportUnhandled("an object failed and its Then has no error callback", id,
                                  error);
      }
    } catch (...) {
      internal::ReportUnhandled("a Then callback threw", id, std::current_exception());
    }
  });
}

// A std::future of the object's value: get() returns it, or throws what ray::Get
// would. Nothing blocks until get() or wait() is called on the future.
template <typename T>
std::future<std::shared_ptr<T>> GetAsync(const ObjectRef<T>& ref) {
  auto promise = std::make_shared<std::promise<std::shared_ptr<T>>>();
  std::future<std::shared_ptr<T>> future = promise->get_future();
  internal::OnReady<T>(ref, [promise](std::shared_ptr<T> value, std::exception_ptr error) {
    if (error) {
      promise->set_exception(error);
    } else {
      promise->set_value(std::move(value));
    }
  });
  return future;
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
  packed.reserve(refs.size() * RAY_OBJECT_ID_SIZE);
  for (const auto& r : refs) packed += r.Binary();
  std::vector<uint8_t> ready(refs.size());
  if (api.wait(api.ctx, packed.data(), refs.size(), num, timeout_ms, ready.data()) != 0) {
    internal::ThrowRuntimeError("cannot wait for objects");
  }
  WaitResult<T> out;
  out.ready.reserve(num);
  out.unready.reserve(refs.size());
  for (size_t i = 0; i < refs.size(); ++i) (ready[i] ? out.ready : out.unready).push_back(refs[i]);
  return out;
}

template <typename T, typename Rep, typename Period>
WaitResult<T> Wait(const std::vector<ObjectRef<T>>& refs, size_t num,
                   std::chrono::duration<Rep, Period> timeout) {
  return Wait(refs, num, internal::ToMillis(timeout));
}

}  // namespace ray
