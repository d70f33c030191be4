#include "runtime/serialization/protocol.h"

#include <fmt/format.h>

#include <cmath>
#include <stdexcept>

#include "runtime/ids/ids.h"

namespace ray::protocol {

namespace {
// Bounds on what a peer can make us allocate while decoding.
msgpack::unpack_limit Limits() {
  return msgpack::unpack_limit(/*array=*/1 << 22, /*map=*/1 << 16, /*str=*/kMaxFrameBytes,
                               /*bin=*/kMaxFrameBytes, /*ext=*/1 << 20, /*depth=*/32);
}
}  // namespace

void PackHeader(msgpack::packer<FrameBuffer>& pk, MessageType type, uint64_t request_id) {
  pk.pack_array(3);
  pk.pack(kProtocolVersion);
  pk.pack(static_cast<uint16_t>(type));
  pk.pack(request_id);
}

std::string Encode(MessageType type, uint64_t request_id, const std::string& body) {
  FrameBuffer buf;
  buf.bytes.reserve(body.size() + 16);
  msgpack::packer<FrameBuffer> pk(buf);
  PackHeader(pk, type, request_id);
  buf.write(body.data(), body.size());
  return std::move(buf.bytes);
}

Result<Envelope> DecodeEnvelope(std::string_view frame) {
  Envelope env;
  try {
    size_t off = 0;
    msgpack::object_handle oh =
        msgpack::unpack(frame.data(), frame.size(), off, nullptr, nullptr, Limits());
    const msgpack::object& o = oh.get();
    if (o.type != msgpack::type::ARRAY || o.via.array.size != 3) {
      return Status::InvalidArgument("frame header is not a 3-element array");
    }
    env.version = o.via.array.ptr[0].as<uint32_t>();
    env.type = static_cast<MessageType>(o.via.array.ptr[1].as<uint16_t>());
    env.request_id = o.via.array.ptr[2].as<uint64_t>();
    env.body = frame.substr(off);
  } catch (const std::exception& e) {
    return Status::InvalidArgument(fmt::format("undecodable frame of {} bytes: {}", frame.size(),
                                               e.what()));
  }
  if (env.version != kProtocolVersion) {
    return Status::InvalidArgument(fmt::format("protocol version {} (this build speaks {})",
                                               env.version, kProtocolVersion));
  }
  return env;
}

std::string EncodeBatch(const std::vector<std::string>& frames) {
  FrameBuffer buf;
  size_t bytes = 16;
  for (const auto& f : frames) bytes += f.size() + 5;
  buf.bytes.reserve(bytes);
  msgpack::packer<FrameBuffer> pk(buf);
  PackHeader(pk, MessageType::kBatch, 0);
  pk.pack_array(static_cast<uint32_t>(frames.size()));
  for (const auto& f : frames) {
    pk.pack_bin(static_cast<uint32_t>(f.size()));
    pk.pack_bin_body(f.data(), f.size());
  }
  return std::move(buf.bytes);
}

Result<std::vector<std::string_view>> DecodeBatch(std::string_view body) {
  std::vector<std::string_view> frames;
  // Bins are referenced, not copied: the views point into `body`.
  auto reference = [](msgpack::type::object_type type, size_t, void*) {
    return type == msgpack::type::BIN;
  };
  try {
    size_t off = 0;
    msgpack::object_handle oh =
        msgpack::unpack(body.data(), body.size(), off, reference, nullptr, Limits());
    const msgpack::object& o = oh.get();
    if (off != body.size() || o.type != msgpack::type::ARRAY) {
      return Status::InvalidArgument("a batch is not one array of frames");
    }
    for (uint32_t i = 0; i < o.via.array.size; ++i) {
      const msgpack::object& f = o.via.array.ptr[i];
      if (f.type != msgpack::type::BIN) return Status::InvalidArgument("a batch holds a non-frame");
      frames.emplace_back(f.via.bin.ptr, f.via.bin.size);
    }
  } catch (const std::exception& e) {
    return Status::InvalidArgument(fmt::format("malformed batch of {} bytes: {}", body.size(),
                                               e.what()));
  }
  return frames;
}

void CheckIdObject(const msgpack::object& o, size_t size, const char* name) {
  if (o.type != msgpack::type::BIN) {
    throw std::invalid_argument(fmt::format("a {} that is not binary (msgpack type {})", name,
                                            static_cast<int>(o.type)));
  }
  if (o.via.bin.size != size) {
    throw std::invalid_argument(
        fmt::format("a {}-byte {} (expected {} bytes)", o.via.bin.size, name, size));
  }
}

Status DecodeBodyInto(std::string_view body, const char* what,
                      const std::function<void(const msgpack::object&)>& convert) {
  try {
    size_t off = 0;
    msgpack::object_handle oh =
        msgpack::unpack(body.data(), body.size(), off, nullptr, nullptr, Limits());
    if (off != body.size()) {
      return Status::InvalidArgument(fmt::format("{}: {} trailing bytes", what, body.size() - off));
    }
    convert(oh.get());
  } catch (const std::exception& e) {
    return Status::InvalidArgument(fmt::format("malformed {}: {}", what, e.what()));
  }
  return Status::Ok();
}

Status CheckTaskSpec(const TaskSpec& t) {
  if (t.task_id.IsNil()) return Status::InvalidArgument("a nil task id");
  if (t.num_returns == 0 || t.num_returns > 1000) {
    return Status::InvalidArgument(fmt::format("{} returns", t.num_returns));
  }
  if (t.kind > ray::internal::kActorTask) return Status::InvalidArgument(fmt::format("kind {}", t.kind));
  // The hash names a file under the session's plugins/ dir: hex only.
  if (t.plugin.empty() || t.plugin.find_first_not_of("0123456789abcdef") != std::string::npos) {
    return Status::InvalidArgument("plugin hash '" + t.plugin + "' is not hex");
  }
  for (const auto& a : t.args) {
    if (a.is_ref && a.data.size() != ObjectId::kSize) {
      return Status::InvalidArgument(fmt::format("a {}-byte ObjectRef argument", a.data.size()));
    }
  }
  if (!t.placement_group_id.empty() &&
      (t.placement_group_id.size() != 36 ||
       t.placement_group_id.find_first_not_of("0123456789abcdef") != std::string::npos)) {
    return Status::InvalidArgument("placement group id '" + t.placement_group_id +
                                   "' is not 36 hex characters");
  }
  if (t.bundle_index < -1) {
    return Status::InvalidArgument(fmt::format("bundle index {} (-1: any bundle)", t.bundle_index));
  }
  return CheckResourceRequest(t.resources);
}

Status CheckResourceRequest(const std::map<std::string, double>& resources) {
  for (const auto& [name, amount] : resources) {
    if (name.empty()) {
      return Status::InvalidArgument(
          fmt::format("a resource with an empty name (amount {}) was requested", amount));
    }
    auto refuse = [&](const char* why) {
      return Status::InvalidArgument(fmt::format("resource '{}' = {}: {}", name, amount, why));
    };
    if (!std::isfinite(amount)) return refuse("the amount is not a finite number");
    if (amount < 0) return refuse("resource quantities may not be negative");
    if (amount > 1 && amount != std::floor(amount)) {
      return refuse("resource quantities >1 must be whole numbers");
    }
    if (amount > 0 && amount < 0.0001) {
      return refuse("the precision of a fractional quantity cannot go beyond 0.0001");
    }
  }
  return Status::Ok();
}


}  // namespace ray::protocol
