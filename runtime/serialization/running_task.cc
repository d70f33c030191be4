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

struct RunningTaskSlot::Entry {
  std::atomic<uint64_t> seq;  // odd while the writer writes
  int64_t start_ms;           // 0: no task running
  uint32_t task_id_size, job_id_size, function_size;
  char task_id[64];
  char job_id[64];
  char function[512];
};

struct RunningTaskSlot::Layout {
  Entry entries[kEntries];
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

int RunningTaskSlot::Begin(const RunningTask& task) {
  int index = 0;
  while (index < kEntries && (taken_[index / 64] >> (index % 64) & 1)) ++index;
  if (index == kEntries) return -1;
  taken_[index / 64] |= uint64_t{1} << (index % 64);
  Entry& e = slot_->entries[index];
  uint64_t seq = e.seq.load(std::memory_order_relaxed);
  e.seq.store(seq + 1, std::memory_order_relaxed);
  std::atomic_thread_fence(std::memory_order_release);
  e.task_id_size = Put(e.task_id, sizeof(e.task_id), task.task_id.Binary());
  e.job_id_size = Put(e.job_id, sizeof(e.job_id), task.job_id.Binary());
  e.function_size = Put(e.function, sizeof(e.function), task.function);
  e.start_ms = task.start_ms;
  e.seq.store(seq + 2, std::memory_order_release);
  return index;
}

void RunningTaskSlot::End(int index) {
  if (index < 0 || index >= kEntries) return;
  taken_[index / 64] &= ~(uint64_t{1} << (index % 64));
  Entry& e = slot_->entries[index];
  uint64_t seq = e.seq.load(std::memory_order_relaxed);
  e.seq.store(seq + 1, std::memory_order_relaxed);
  std::atomic_thread_fence(std::memory_order_release);
  e.start_ms = 0;
  e.seq.store(seq + 2, std::memory_order_release);
}

std::optional<RunningTask> RunningTaskSlot::ReadEntry(const Entry& e) {
  uint64_t before = e.seq.load(std::memory_order_acquire);
  if (before % 2 != 0) return std::nullopt;
  RunningTask t;
  t.start_ms = e.start_ms;
  if (t.start_ms == 0) return std::nullopt;
  t.task_id = TaskId::FromBinary(Get(e.task_id, sizeof(e.task_id), e.task_id_size));
  t.job_id = JobId::FromBinary(Get(e.job_id, sizeof(e.job_id), e.job_id_size));
  t.function = Get(e.function, sizeof(e.function), e.function_size);
  std::atomic_thread_fence(std::memory_order_acquire);
  if (e.seq.load(std::memory_order_relaxed) != before) return std::nullopt;
  return t;
}

std::vector<RunningTask> RunningTaskSlot::ReadAll() const {
  std::vector<RunningTask> out;
  for (const Entry& e : slot_->entries) {
    if (auto t = ReadEntry(e)) out.push_back(std::move(*t));
  }
  std::sort(out.begin(), out.end(),
            [](const RunningTask& a, const RunningTask& b) { return a.start_ms < b.start_ms; });
  return out;
}

std::optional<RunningTask> RunningTaskSlot::Read() const {
  auto all = ReadAll();
  if (all.empty()) return std::nullopt;
  return all.front();
}

}  // namespace ray::protocol
