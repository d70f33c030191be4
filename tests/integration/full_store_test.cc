// A full object store, end to end on real clusters (store_plugin.cc is the job):
// referenced objects spill to <session>/spill and come back identical, to the driver
// and as a task's argument; objects every process maps are not moved, and the
// refusal names the sizes; spill files go when the node stops; a flood of small
// puts leaves the raylet's memory bounded.

#include <fcntl.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>
#include <regex>
#include <string>

#include "tests/integration/ray_harness.h"

namespace ray::testing {
namespace {

constexpr uint64_t kMiB = 1 << 20;

class FullStoreTest : public ::testing::Test {
 protected:
  std::string TempDir() { return dir_.path() + "/cluster"; }
  RunResult Run(uint64_t store_bytes, const std::vector<std::string>& args, int cpus = 2) {
    std::vector<std::string> cmd = {"run",
                                    "--temp-dir",
                                    TempDir(),
                                    "--num-cpus",
                                    std::to_string(cpus),
                                    "--object-store-memory",
                                    std::to_string(store_bytes),
                                    IT_STORE_PLUGIN};
    cmd.insert(cmd.end(), args.begin(), args.end());
    return RunRay(cmd, dir_.path(), 120);
  }

  // The objects the raylets spilled, as their logs say each time they made room.
  int SpilledObjects() {
    int spilled = 0;
    for (const auto& session : Sessions(TempDir())) {
      std::string log = ReadText(session + "/logs/raylet.err");
      std::regex made_room("and spilled (\\d+) objects");
      for (std::sregex_iterator m(log.begin(), log.end(), made_room), end; m != end; ++m) {
        spilled += std::stoi((*m)[1]);
      }
    }
    return spilled;
  }

  testing::TempDir dir_;
};

TEST_F(FullStoreTest, TaskResultsBeyondCapacitySpillAndComeBackIdentical) {
  // 24 MiB of results in an 8 MiB store.
  auto r = Run(8 * kMiB, {"spill", TempDir(), "24", std::to_string(kMiB)});
  ASSERT_EQ(r.exit_code, 0) << r.all();
  EXPECT_EQ(KeyValue(r.out, "made"), "ok") << r.all();
  // At least 16 of them went to disk (the raylet's log says how many each time room
  // was made; files are written in the background, so the files the job counted
  // may be fewer).
  int spilled = SpilledObjects();
  EXPECT_GE(spilled, 16) << r.all();
  EXPECT_EQ(KeyValue(r.out, "driver"), "ok") << r.all();
  EXPECT_EQ(KeyValue(r.out, "argument"), "ok") << r.all();
  // The node removed its spill files when it stopped.
  for (const auto& session : Sessions(TempDir())) {
    auto left = RunCommand({"find", session + "/spill", "-type", "f"}, dir_.path());
    EXPECT_EQ(left.out, "") << "spill files left behind in " << session;
  }
  EXPECT_TRUE(SegmentsOfSessions(TempDir()).empty());
}

TEST_F(FullStoreTest, PutsBeyondCapacitySpillAndComeBackIdentical) {
  // 24 MiB put by the driver, which keeps every ref, into an 8 MiB store: the puts it
  // no longer reads are unmapped, so the store can spill them.
  auto r = Run(8 * kMiB, {"put_spill", TempDir(), "24", std::to_string(kMiB)});
  ASSERT_EQ(r.exit_code, 0) << r.all();
  EXPECT_EQ(KeyValue(r.out, "put"), "ok") << r.all();
  EXPECT_EQ(KeyValue(r.out, "driver"), "ok") << r.all();
  EXPECT_EQ(KeyValue(r.out, "argument"), "ok") << r.all();
  int spilled = SpilledObjects();
  EXPECT_GE(spilled, 16) << r.all();
}

// Reads the named pipe at `path` to its end (at most `size` bytes are expected),
// within 30 s; what was read.
std::string DrainPipe(const std::string& path, size_t size) {
  std::string got;
  int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK);
  if (fd < 0) return got;
  char buf[1 << 16];
  for (int i = 0; i < 3000; ++i) {
    pollfd p{fd, POLLIN, 0};
    ::poll(&p, 1, 10);
    ssize_t n = ::read(fd, buf, sizeof(buf));
    if (n > 0) got.append(buf, static_cast<size_t>(n));
    if (n == 0 && got.size() >= size) break;  // the writer is done
  }
  ::close(fd);
  return got;
}

TEST_F(FullStoreTest, ASpillStuckOnTheDiskDoesNotHoldUpOtherTasks) {
  // The first result's spill file is a named pipe that nobody reads until the small
  // task has run: its spill cannot end before. Then the pipe is read out, the file
  // becomes what was read, and the object comes back intact.
  constexpr uint64_t kSize = 6 * kMiB;
  std::string notes = dir_.path() + "/notes", job_dir = dir_.path() + "/job";
  ASSERT_EQ(::mkdir(notes.c_str(), 0700), 0);
  ASSERT_EQ(::mkdir(job_dir.c_str(), 0700), 0);
  int job = SpawnRay({"run", "--temp-dir", TempDir(), "--num-cpus", "2", "--object-store-memory",
                      std::to_string(8 * kMiB), IT_STORE_PLUGIN, "blocked_spill", notes,
                      std::to_string(kSize)},
                     job_dir);
  auto await_note = [&](const std::string& name, int seconds) {
    for (int i = 0; i < seconds * 10 && ReadText(notes + "/" + name).empty(); ++i) {
      ::usleep(100 * 1000);
    }
    return ReadText(notes + "/" + name);
  };
  std::string id = await_note("first", 60);
  ASSERT_FALSE(id.empty()) << SpawnedOutput(job_dir, ".err");
  // The store's tag is in the object's segment name, /dev/shm/ray-<tag>-<id>.
  std::string tag;
  for (const auto& e : std::filesystem::directory_iterator("/dev/shm")) {
    std::string name = e.path().filename();
    if (name.rfind("ray-", 0) == 0 && name.size() > id.size() + 5 &&
        name.compare(name.size() - id.size(), id.size(), id) == 0) {
      tag = name.substr(4, name.size() - id.size() - 5);
    }
  }
  ASSERT_FALSE(tag.empty()) << "no segment for object " << id;
  std::string spill_dir = TempDir() + "/session_latest/spill";
  ::mkdir(spill_dir.c_str(), 0700);
  std::string pipe = spill_dir + "/" + tag + "-" + id;
  ASSERT_EQ(::mkfifo(pipe.c_str(), 0600), 0) << pipe;
  std::ofstream(notes + "/go") << "go";
  std::string small = await_note("small", 20);
  EXPECT_EQ(small, "ok") << "the small task did not run while the spill was stuck";
  std::string bytes = DrainPipe(pipe, kSize);
  EXPECT_GT(bytes.size(), kSize);  // the value and its header
  {
    std::ofstream(pipe + ".new", std::ios::binary) << bytes;
  }
  ASSERT_EQ(::rename((pipe + ".new").c_str(), pipe.c_str()), 0);
  std::ofstream(notes + "/go2") << "go";
  int status = 0;
  for (int i = 0; i < 600 && ::waitpid(job, &status, WNOHANG) == 0; ++i) ::usleep(100 * 1000);
  if (!WIFEXITED(status)) {
    ::kill(job, SIGKILL);
    ::waitpid(job, nullptr, 0);
    FAIL() << "the job did not end within 60 s";
  }
  std::string out = SpawnedOutput(job_dir, ".out");
  EXPECT_EQ(KeyValue(out, "first"), "ok") << out << SpawnedOutput(job_dir, ".err");
}

TEST_F(FullStoreTest, WhenEverythingIsPinnedThePutIsRefusedNamingTheSizes) {
  auto r = Run(4 * kMiB, {"refuse", std::to_string(kMiB)});
  ASSERT_EQ(r.exit_code, 0) << r.all();
  std::string refused = KeyValue(r.out, "refused");
  // Three objects fill three quarters of the store; the driver maps all three.
  std::smatch m;
  ASSERT_TRUE(std::regex_search(refused, m,
                                std::regex("needs (\\d+) bytes; capacity 4194304, in use (\\d+), "
                                           "pinned (\\d+)")))
      << r.all();
  EXPECT_EQ(m[2], m[3]) << "everything in use is pinned: " << refused;
  EXPECT_GT(std::stoull(m[1]) + std::stoull(m[2]), 4194304u) << refused;
  EXPECT_NE(refused.find("--object-store-memory"), std::string::npos) << refused;
}

TEST_F(FullStoreTest, AFloodOfSmallPutsLeavesTheRayletsMemoryBounded) {
  // Four processes put 30000 objects of 90 KiB each: 10 GiB through the raylet's
  // socket, faster than it reads. Without backpressure the raylet's queues grew to
  // 500-700 MiB at 20000 puts each; with it, it holds about 100 MiB (the frames
  // queued, and the objects put but not yet freed: see ReferenceCounter::kFreeBatch).
  auto r = Run(64 * kMiB, {"flood", "4", "30000", std::to_string(90 * 1024)}, 3);
  ASSERT_EQ(r.exit_code, 0) << r.all();
  const int64_t before = std::stoll("0" + KeyValue(r.out, "raylet_before_kib"));
  const int64_t peak = std::stoll("0" + KeyValue(r.out, "raylet_peak_kib"));
  ASSERT_GT(before, 0) << r.all();
  EXPECT_LT(peak - before, 300 * 1024)
      << "the raylet grew from " << before / 1024 << " to " << peak / 1024 << " MiB";
  std::printf("raylet: %lld MiB before, %lld MiB at peak\n", static_cast<long long>(before / 1024),
              static_cast<long long>(peak / 1024));
}

// Two nodes; the second (with the "Special" resource) has a small store. Copies of the
// driver's objects pulled there for its tasks are referenced by nobody there: when
// the store fills they are evicted, least recently used first, and pulled again when
// needed. Without eviction, a task's argument there fails with ObjectStoreFullError.
class FullStoreTwoNodesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    head_ = dir_.path() + "/head";
    worker_ = dir_.path() + "/worker";
    auto head = RunRay({"start", "--head", "--port", "0", "--num-cpus", "1", "--temp-dir", head_},
                       dir_.path());
    ASSERT_EQ(head.exit_code, 0) << head.all();
    auto status = RunRay({"status", "--json", "--temp-dir", head_}, dir_.path());
    ASSERT_EQ(status.exit_code, 0) << status.all();
    address_ = nlohmann::json::parse(status.out)["address"];
    auto join = RunRay(
        {"start", "--address", address_, "--token", ReadText(head_ + "/session_latest/token"),
         "--num-cpus", "1", "--resources", "{\"Special\": 1}", "--object-store-memory",
         std::to_string(8 * kMiB), "--temp-dir", worker_},
        dir_.path());
    ASSERT_EQ(join.exit_code, 0) << join.all();
  }
  void TearDown() override {
    RunRay({"stop", "--temp-dir", worker_}, dir_.path());
    RunRay({"stop", "--temp-dir", head_}, dir_.path());
    EXPECT_TRUE(AwaitNoProcessesMentioning(dir_.path()).empty());
  }

  testing::TempDir dir_;
  std::string head_, worker_, address_;
};

TEST_F(FullStoreTwoNodesTest, CopiesNobodyReferencesAreEvictedAndPulledAgain) {
  // 16 MiB of copies through an 8 MiB store.
  auto r = RunRay({"submit", "--address", address_, "--temp-dir", head_, IT_STORE_PLUGIN, "copies",
                   "16", std::to_string(kMiB)},
                  dir_.path(), 120);
  ASSERT_EQ(r.exit_code, 0) << r.all();
  EXPECT_EQ(KeyValue(r.out, "first"), "ok") << r.all();
  EXPECT_EQ(KeyValue(r.out, "again"), "ok") << r.all();
  // Made room by evicting alone: copies are never spilled.
  std::string log = ReadText(worker_ + "/session_latest/logs/raylet.err");
  EXPECT_TRUE(std::regex_search(log, std::regex("object store full: evicted [1-9]"))) << log;
  EXPECT_EQ(CountLines(log, "and spilled 0 objects"), CountLines(log, "object store full")) << log;
}

}  // namespace
}  // namespace ray::testing
