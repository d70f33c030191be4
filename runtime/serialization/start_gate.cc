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
constexpr uint64_t kClosed = uint64_t{1} << 63;
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
    if (word_->word.compare_exchange_weak(w, w + 1)) return true;
  }
  return false;
}

void StartGate::Reopen() { word_->word.fetch_and(~kClosed); }

uint64_t StartGate::Starts() const { return word_->word.load() & ~kClosed; }

uint64_t StartGate::Close() { return word_->word.fetch_or(kClosed) & ~kClosed; }

}  // namespace ray::protocol
