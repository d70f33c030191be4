#include "runtime/tune/tensorboard.h"

#include <fcntl.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>
#include <ctime>

#include <fmt/format.h>

namespace ray::tune {

namespace {

constexpr std::array<uint32_t, 256> MakeCrcTable() {
  std::array<uint32_t, 256> table{};
  for (uint32_t i = 0; i < 256; ++i) {
    uint32_t c = i;
    for (int k = 0; k < 8; ++k) c = (c & 1) ? 0x82F63B78u ^ (c >> 1) : c >> 1;
    table[i] = c;
  }
  return table;
}
constexpr std::array<uint32_t, 256> kCrcTable = MakeCrcTable();

void PutFixed(std::string& out, uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

void PutVarint(std::string& out, uint64_t v) {
  while (v >= 0x80) {
    out.push_back(static_cast<char>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  out.push_back(static_cast<char>(v));
}

// A length-delimited field (wire type 2).
void PutBytes(std::string& out, int field, std::string_view bytes) {
  PutVarint(out, (static_cast<uint64_t>(field) << 3) | 2);
  PutVarint(out, bytes.size());
  out.append(bytes);
}

std::string EventHeader(double wall_time, int64_t step) {
  std::string event;
  uint64_t bits;
  std::memcpy(&bits, &wall_time, sizeof(bits));
  PutVarint(event, (1 << 3) | 1);  // wall_time: 64-bit
  PutFixed(event, bits, 8);
  PutVarint(event, (2 << 3) | 0);  // step: varint
  PutVarint(event, static_cast<uint64_t>(step));
  return event;
}

void Flatten(const nlohmann::json& j, const std::string& prefix, Scalars& out) {
  for (auto it = j.begin(); it != j.end(); ++it) {
    std::string tag = prefix + "/" + it.key();
    if (it->is_object()) {
      Flatten(*it, tag, out);
    } else if (it->is_number()) {
      out.emplace_back(tag, it->get<float>());
    }
  }
}

}  // namespace

uint32_t Crc32c(std::string_view data) {
  uint32_t crc = 0xffffffffu;
  for (unsigned char b : data) crc = kCrcTable[(crc ^ b) & 0xff] ^ (crc >> 8);
  return crc ^ 0xffffffffu;
}

uint32_t MaskedCrc32c(std::string_view data) {
  uint32_t crc = Crc32c(data);
  return ((crc >> 15) | (crc << 17)) + 0xa282ead8u;
}

std::string FrameRecord(std::string_view data) {
  std::string length;
  PutFixed(length, data.size(), 8);
  std::string record = length;
  PutFixed(record, MaskedCrc32c(length), 4);
  record.append(data);
  PutFixed(record, MaskedCrc32c(data), 4);
  return record;
}

std::string VersionEvent(double wall_time) {
  std::string event = EventHeader(wall_time, 0);
  PutBytes(event, 3, "brain.Event:2");
  return event;
}

std::string ScalarsEvent(double wall_time, int64_t step, const Scalars& scalars) {
  std::string summary;
  for (const auto& [tag, value] : scalars) {
    std::string v;
    PutBytes(v, 1, tag);
    uint32_t bits;
    std::memcpy(&bits, &value, sizeof(bits));
    PutVarint(v, (2 << 3) | 5);  // simple_value: 32-bit
    PutFixed(v, bits, 4);
    PutBytes(summary, 1, v);
  }
  std::string event = EventHeader(wall_time, step);
  PutBytes(event, 5, summary);
  return event;
}

Scalars ResultScalars(const nlohmann::json& result) {
  nlohmann::json kept = result;
  for (const char* key : {"config", "pid", "timestamp", "time_total_s"}) kept.erase(key);
  Scalars out;
  Flatten(kept, "ray/tune", out);
  return out;
}

int64_t ResultStep(const nlohmann::json& result) {
  auto number = [&](const char* key) -> int64_t {
    auto it = result.find(key);
    return it != result.end() && it->is_number() ? it->get<int64_t>() : 0;
  };
  int64_t timesteps = number("timesteps_total");
  return timesteps != 0 ? timesteps : number("training_iteration");
}

Result<std::unique_ptr<EventFileWriter>> EventFileWriter::Create(const std::string& dir) {
  char host[256] = "localhost";
  gethostname(host, sizeof(host) - 1);
  std::string base = fmt::format("{}/events.out.tfevents.{}.{}", dir, std::time(nullptr), host);
  for (int n = 0; n < 1000; ++n) {
    std::string path = n == 0 ? base : fmt::format("{}.{}", base, n);
    int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0 && errno == EEXIST) continue;
    if (fd < 0) return Status::PermissionDenied(fmt::format("cannot create {}: {}", path, std::strerror(errno)));
    std::unique_ptr<EventFileWriter> writer(new EventFileWriter(path, fd));
    RAY_RETURN_IF_ERROR(writer->Write(VersionEvent(static_cast<double>(std::time(nullptr)))));
    return writer;
  }
  return Status::ResourceExhausted("too many event files named " + base + ".*");
}

EventFileWriter::~EventFileWriter() { ::close(fd_); }

Status EventFileWriter::Write(std::string_view event) {
  std::string record = FrameRecord(event);
  for (size_t done = 0; done < record.size();) {
    ssize_t n = ::write(fd_, record.data() + done, record.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Status::ResourceExhausted(fmt::format("cannot append to {}: {}", path_, std::strerror(errno)));
    done += static_cast<size_t>(n);
  }
  return Status::Ok();
}

}  // namespace ray::tune
