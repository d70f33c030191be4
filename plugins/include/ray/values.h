#pragma once
// Values as tasks take and return them. Anything msgpack can encode travels (built-in
// types, STL containers, user types with MSGPACK_DEFINE); on top of that:
// - ray::Blob, bytes that travel as msgpack bin. Decoded from an object in the
//   node's shared-memory store (ray::Get, a task's arguments) it points into the
//   mapping instead of copying, and keeps the mapping alive while any Blob refers to
//   it. Decoded from anything else it owns a copy.
// - ray::Returns<A, B, ...>, several results of one task, each its own object.
// Not thread-safe beyond what the contained values are: a decode in progress is
// tracked per thread.

#include <msgpack.hpp>

#include <cstddef>
#include <memory>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>

#include "ray/abi.h"
#include "ray/context.h"
#include "ray/wire.h"

namespace ray {

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

// Several results from one task; each element becomes its own object.
template <typename... Ts>
struct Returns : std::tuple<Ts...> {
  using tuple_type = std::tuple<Ts...>;
  using std::tuple<Ts...>::tuple;
};

namespace internal {

template <typename R>
struct IsReturns : std::false_type {};
template <typename... Ts>
struct IsReturns<Returns<Ts...>> : std::true_type {};

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

// Unpack (ray/wire.h) of bytes that `keep` keeps alive: Blobs in the value refer to
// them instead of copying.
template <typename T>
T Unpack(const char* data, size_t size, KeepAlive keep) {
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
