#include "runtime/serialization/start_gate.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>

namespace ray::protocol {

static_assert(std::atomic<uint64_t>::is_always_lock_free, "shared between processes");

struct StartGate::Layout {
  std::atomic<uint64_t> word;  // starts, and kClosed
};

namespace {
// The word: the closed bit, the worker's lease count (23 bits), its starts (40 bits).
constexpr uint64_t kClosed = uint64_t{1} << 63;
constexpr int kLeaseShift = 40;
constexpr uint64_t kStarts = (uint64_t{1} << kLeaseShift) - 1;
constexpr uint64_t kLeases = ~kClosed & ~kStarts;
constexpr std::string_view kIpc = "ipc://";
}  // namespace

std::string StartGatePath(const std::string& endpoint) {
  if (endpoint.rfind(kIpc, 0) != 0) return "";
  return endpoint.substr(kIpc.size()) + ".gate";
}

std::unique_ptr<StartGate> StartGate::Map(const std::string& path, bool create) {
  if (path.empty()) return nullptr;
  int flags = create ? O_RDWR | O_CREAT | O_TRUNC : O_RDWR | O_NOFOLLOW;
  int fd = ::open(path.c_str(), flags | O_CLOEXEC, 0600);
  if (fd < 0) return nullptr;
  struct stat st;
  // Allocated, not sparse: a full disk fails here, not as SIGBUS on a write.
  bool ok = create ? ::posix_fallocate(fd, 0, sizeof(Layout)) == 0
                   : ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size == sizeof(Layout);
  void* p = ok ? ::mmap(nullptr, sizeof(Layout), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0)
               : MAP_FAILED;
  ::close(fd);
  if (p == MAP_FAILED) {
    if (create) ::unlink(path.c_str());
    return nullptr;
  }
  return std::unique_ptr<StartGate>(new StartGate(static_cast<Layout*>(p), create, path));
}

std::unique_ptr<StartGate> StartGate::Create(const std::string& path) { return Map(path, true); }
std::unique_ptr<StartGate> StartGate::Open(const std::string& path) { return Map(path, false); }

StartGate::~StartGate() {
  ::munmap(word_, sizeof(Layout));
  if (owner_) ::unlink(path_.c_str());
}

bool StartGate::TryStart() {
  uint64_t w = word_->word.load();
  while (!(w & kClosed)) {
    uint64_t next = (w & ~kStarts) | (((w & kStarts) + 1) & kStarts);
    if (word_->word.compare_exchange_weak(w, next)) return true;
  }
  return false;
}

bool StartGate::EndLease() {
  uint64_t w = word_->word.load();
  while (!(w & kClosed)) {
    uint64_t next = (w & ~kLeases) | ((w + (uint64_t{1} << kLeaseShift)) & kLeases);
    if (word_->word.compare_exchange_weak(w, next)) return true;
  }
  return false;
}

void StartGate::Reopen() { word_->word.fetch_and(~kClosed); }

uint64_t StartGate::Starts() const { return word_->word.load() & kStarts; }

uint64_t StartGate::Lease() const { return (word_->word.load() & kLeases) >> kLeaseShift; }

uint64_t StartGate::Close() { return word_->word.fetch_or(kClosed) & kStarts; }

std::optional<uint64_t> StartGate::Close(uint64_t lease) {
  uint64_t w = word_->word.load();
  while (!(w & kClosed) && ((w & kLeases) >> kLeaseShift) == lease) {
    if (word_->word.compare_exchange_weak(w, w | kClosed)) return w & kStarts;
  }
  return std::nullopt;
}

}  // namespace ray::protocol
