#pragma once
// Objects: ray::ObjectRef<T>, a typed reference to an immutable value in the
// cluster, and the calls on it: Put stores a value, Get blocks until values exist
// (throwing the error a failed task left, ray/errors.h), Wait returns when some are
// ready. An ObjectRef counts as a reference to its object for as long as it lives, in
// whichever process holds it: an object is freed once no ref to it is left anywhere
// (refs passed to tasks, nested in other objects or results, kept by actors, all
// count; a process that dies lets go of its refs). Calls need an attached runtime
// (ray/context.h) and are made from the thread running RAY_MAIN or the task.

#include <msgpack.hpp>

#include <chrono>
#include <cstdint>
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

// A reference to an object. While any ObjectRef to the object is alive, in this
// process or another it was passed to (serialized into a value, a task argument or a
// result), the object is kept.
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

}  // namespace ray
