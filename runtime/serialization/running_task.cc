#include "runtime/serialization/running_task.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstring>

#include "runtime/base/util.h"

namespace ray::protocol {

static_assert(std::atomic<uint64_t>::is_always_lock_free, "shared between processes");

struct RunningTaskSlot::Layout {
  std::atomic<uint64_t> seq;  // odd while the writer writes
  int64_t start_ms;           // 0: no task running
  uint32_t task_id_size, job_id_size, function_size;
  char task_id[64];
  char job_id[64];
  char function[512];
};

namespace {

// Copies at most `cap` bytes of `s` into `field`; returns the size kept.
uint32_t Put(char* field, size_t cap, const std::string& s) {
  size_t n = std::min(cap, s.size());
  std::memcpy(field, s.data(), n);
  return static_cast<uint32_t>(n);
}

// The field's bytes, however its size was (mis)written.
std::string Get(const char* field, size_t cap, uint32_t size) {
  return std::string(field, std::min<size_t>(cap, size));
}

}  // namespace

std::string RunningTaskPath(const std::string& session_dir, const std::string& worker_id) {
  return session_dir + "/sockets/w-" + ToHex(worker_id).substr(0, 16) + ".task";
}

std::unique_ptr<RunningTaskSlot> RunningTaskSlot::Map(const std::string& path, bool create) {
  int flags = create ? O_RDWR | O_CREAT | O_TRUNC : O_RDONLY | O_NOFOLLOW;
  int fd = ::open(path.c_str(), flags | O_CLOEXEC, 0600);
  if (fd < 0) return nullptr;
  struct stat st;
  // Allocated, not sparse: a full disk fails here, not as SIGBUS on a write.
  bool ok = create ? ::posix_fallocate(fd, 0, sizeof(Layout)) == 0
                   : ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size == sizeof(Layout);
  int prot = create ? PROT_READ | PROT_WRITE : PROT_READ;
  void* p = ok ? ::mmap(nullptr, sizeof(Layout), prot, MAP_SHARED, fd, 0) : MAP_FAILED;
  ::close(fd);
  if (p == MAP_FAILED) return nullptr;
  return std::unique_ptr<RunningTaskSlot>(new RunningTaskSlot(static_cast<Layout*>(p)));
}

std::unique_ptr<RunningTaskSlot> RunningTaskSlot::Create(const std::string& path) {
  return Map(path, /*create=*/true);
}

std::unique_ptr<RunningTaskSlot> RunningTaskSlot::Open(const std::string& path) {
  return Map(path, /*create=*/false);
}

RunningTaskSlot::~RunningTaskSlot() { ::munmap(slot_, sizeof(Layout)); }

void RunningTaskSlot::Begin(const RunningTask& task) {
  uint64_t seq = slot_->seq.load(std::memory_order_relaxed);
  slot_->seq.store(seq + 1, std::memory_order_relaxed);
  std::atomic_thread_fence(std::memory_order_release);
  slot_->task_id_size = Put(slot_->task_id, sizeof(slot_->task_id), task.task_id);
  slot_->job_id_size = Put(slot_->job_id, sizeof(slot_->job_id), task.job_id);
  slot_->function_size = Put(slot_->function, sizeof(slot_->function), task.function);
  slot_->start_ms = task.start_ms;
  slot_->seq.store(seq + 2, std::memory_order_release);
}

void RunningTaskSlot::End() {
  uint64_t seq = slot_->seq.load(std::memory_order_relaxed);
  slot_->seq.store(seq + 1, std::memory_order_relaxed);
  std::atomic_thread_fence(std::memory_order_release);
  slot_->start_ms = 0;
  slot_->seq.store(seq + 2, std::memory_order_release);
}

std::optional<RunningTask> RunningTaskSlot::Read() const {
  uint64_t before = slot_->seq.load(std::memory_order_acquire);
  if (before % 2 != 0) return std::nullopt;
  RunningTask t;
  t.start_ms = slot_->start_ms;
  t.task_id = Get(slot_->task_id, sizeof(slot_->task_id), slot_->task_id_size);
  t.job_id = Get(slot_->job_id, sizeof(slot_->job_id), slot_->job_id_size);
  t.function = Get(slot_->function, sizeof(slot_->function), slot_->function_size);
  std::atomic_thread_fence(std::memory_order_acquire);
  if (slot_->seq.load(std::memory_order_relaxed) != before || t.start_ms == 0) return std::nullopt;
  return t;
}

}  // namespace ray::protocol
