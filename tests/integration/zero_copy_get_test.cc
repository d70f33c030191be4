// A 1 GiB object read on the node that holds it is mapped, not copied: the reader's
// bytes lie in the object's /dev/shm segment and its memory does not grow by the
// object's size (checked inside the job, zero_copy_plugin.cc). Skipped when the
// machine has too little shared or free memory for the object and the driver's copy
// of it while putting.

#include <gtest/gtest.h>
#include <sys/statvfs.h>

#include <cstdint>
#include <fstream>
#include <string>

#include "tests/integration/ray_harness.h"

namespace ray::testing {
namespace {

constexpr uint64_t kObjectBytes = 1ull << 30;

uint64_t FreeShmBytes() {
  struct statvfs fs {};
  if (::statvfs("/dev/shm", &fs) != 0) return 0;
  return static_cast<uint64_t>(fs.f_bavail) * fs.f_frsize;
}

uint64_t AvailableMemoryBytes() {
  std::ifstream in("/proc/meminfo");
  for (std::string key; in >> key;) {
    uint64_t kib = 0;
    in >> kib;
    if (key == "MemAvailable:") return kib * 1024;
    in.ignore(256, '\n');
  }
  return 0;
}

class ZeroCopyGetTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (FreeShmBytes() < kObjectBytes + (256ull << 20)) {
      GTEST_SKIP() << "/dev/shm has " << (FreeShmBytes() >> 20) << " MiB free; needs 1.25 GiB";
    }
    // The segment, plus the driver's value and its packed copy while it puts.
    if (AvailableMemoryBytes() < 4 * kObjectBytes) {
      GTEST_SKIP() << "only " << (AvailableMemoryBytes() >> 20) << " MiB available; needs 4 GiB";
    }
  }
  // Runs one case of the plugin on a cluster of its own, with room for the object.
  RunResult Run(const std::string& which) {
    return RunRay({"run", "--temp-dir", dir_.path() + "/cluster", "--object-store-memory",
                   std::to_string(2 * kObjectBytes), IT_ZERO_COPY_PLUGIN, which,
                   std::to_string(kObjectBytes)},
                  dir_.path(), 80);
  }

  TempDir dir_;
};

TEST_F(ZeroCopyGetTest, DriverAndTaskGetMapTheSegment) {
  auto r = Run("get");
  ASSERT_EQ(r.exit_code, 0) << r.all();
  EXPECT_EQ(KeyValue(r.out, "driver"), "ok") << r.all();
  EXPECT_EQ(KeyValue(r.out, "task"), "ok") << r.all();
}

TEST_F(ZeroCopyGetTest, TaskArgumentMapsTheSegment) {
  auto r = Run("argument");
  ASSERT_EQ(r.exit_code, 0) << r.all();
  EXPECT_EQ(KeyValue(r.out, "argument"), "ok") << r.all();
}

}  // namespace
}  // namespace ray::testing
