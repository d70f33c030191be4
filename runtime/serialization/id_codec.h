#pragma once
// Typed ids (runtime/ids/ids.h) in messages: each travels as a msgpack bin of exactly
// its size. Decoding anything else (another type, another length) throws
// std::invalid_argument naming the kind of id and the size found, which DecodeBody
// turns into InvalidArgument: a daemon drops such a frame with a warning.

#include <stdexcept>
#include <string>

#include <msgpack.hpp>

#include "runtime/ids/ids.h"

namespace ray::protocol {

// Throws std::invalid_argument unless `o` is a bin of exactly `size` bytes.
void CheckIdObject(const msgpack::object& o, size_t size, const char* name);

}  // namespace ray::protocol

namespace msgpack {
MSGPACK_API_VERSION_NAMESPACE(MSGPACK_DEFAULT_API_NS) {
namespace adaptor {

template <typename Id>
struct FixedIdConvert {
  const msgpack::object& operator()(const msgpack::object& o, Id& v) const {
    ray::protocol::CheckIdObject(o, Id::kSize, Id::kName);
    std::memcpy(v.mutable_data(), o.via.bin.ptr, Id::kSize);
    return o;
  }
};

template <typename Id>
struct FixedIdPack {
  template <typename Stream>
  packer<Stream>& operator()(packer<Stream>& pk, const Id& v) const {
    pk.pack_bin(Id::kSize);
    pk.pack_bin_body(reinterpret_cast<const char*>(v.data()), Id::kSize);
    return pk;
  }
};

template <typename Tag, size_t N>
struct convert<ray::BaseId<Tag, N>> : FixedIdConvert<ray::BaseId<Tag, N>> {};
template <typename Tag, size_t N>
struct pack<ray::BaseId<Tag, N>> : FixedIdPack<ray::BaseId<Tag, N>> {};
template <>
struct convert<ray::ObjectId> : FixedIdConvert<ray::ObjectId> {};
template <>
struct pack<ray::ObjectId> : FixedIdPack<ray::ObjectId> {};

}  // namespace adaptor
}  // MSGPACK_API_VERSION_NAMESPACE(MSGPACK_DEFAULT_API_NS)
}  // namespace msgpack
