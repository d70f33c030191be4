#include "runtime/base/util.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <set>
#include <thread>

#include "tests/test_util/temp_dir.h"

namespace ray {
namespace {

using test_util::TempDir;

TEST(HexTest, RoundTripsEveryByte) {
  std::string all;
  for (int i = 0; i < 256; ++i) all.push_back(static_cast<char>(i));
  std::string hex = ToHex(all);
  ASSERT_EQ(hex.size(), 512u);
  EXPECT_EQ(hex.substr(0, 8), "00010203");
  EXPECT_EQ(hex.substr(504), "fcfdfeff");
  auto back = FromHex(hex);
  ASSERT_TRUE(back.has_value());
  EXPECT_EQ(*back, all);
}

TEST(HexTest, EmptyAndUppercase) {
  EXPECT_EQ(ToHex(""), "");
  ASSERT_TRUE(FromHex("").has_value());
  EXPECT_EQ(*FromHex(""), "");
  auto upper = FromHex("ABcdEF");
  ASSERT_TRUE(upper.has_value());
  EXPECT_EQ(*upper, std::string("\xab\xcd\xef"));
}

TEST(HexTest, RejectsBadHex) {
  EXPECT_FALSE(FromHex("abc").has_value());   // odd length
  EXPECT_FALSE(FromHex("zz").has_value());    // not a digit
  EXPECT_FALSE(FromHex("0g").has_value());
  EXPECT_FALSE(FromHex("g0").has_value());
  EXPECT_FALSE(FromHex("12 4").has_value());
  EXPECT_FALSE(FromHex("0x12").has_value());
  EXPECT_FALSE(FromHex(std::string("a\0", 2)).has_value());
}

TEST(RandomBytesTest, LengthAndVariety) {
  for (size_t n : {0u, 1u, 7u, 8u, 9u, 20u, 1000u}) EXPECT_EQ(RandomBytes(n).size(), n);
  std::set<std::string> seen;
  for (int i = 0; i < 100; ++i) seen.insert(RandomBytes(16));
  EXPECT_EQ(seen.size(), 100u);
}

TEST(ClockTest, MonotonicDoesNotGoBackwards) {
  int64_t prev = MonoMillis();
  for (int i = 0; i < 1000; ++i) {
    int64_t now = MonoMillis();
    ASSERT_GE(now, prev);
    prev = now;
  }
  // Wall clock in seconds and milliseconds agree (to a second).
  EXPECT_NEAR(NowSeconds() * 1000.0, static_cast<double>(NowMillis()), 1000.0);
  EXPECT_GT(NowMillis(), 1600000000000);  // after 2020
}

class FileTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_FALSE(dir_.path().empty()); }
  std::string Path(const std::string& name) const { return dir_.path() + "/" + name; }
  static int Mode(const std::string& path) {
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) return -1;
    return st.st_mode & 0777;
  }
  size_t NumEntries() const {
    size_t n = 0;
    for (const auto& e : std::filesystem::directory_iterator(dir_.path())) {
      (void)e;
      ++n;
    }
    return n;
  }

  TempDir dir_;
};

TEST_F(FileTest, WriteThenReadRoundTrip) {
  std::string data = RandomBytes(100000);
  ASSERT_TRUE(WriteFile(Path("f"), data).ok());
  auto back = ReadFile(Path("f"));
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(*back, data);
  EXPECT_EQ(Mode(Path("f")), 0644);
  EXPECT_EQ(NumEntries(), 1u) << "the temp file was left behind";
}

TEST_F(FileTest, EmptyFile) {
  ASSERT_TRUE(WriteFile(Path("empty"), "").ok());
  auto back = ReadFile(Path("empty"));
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(*back, "");
}

TEST_F(FileTest, SetsModeEvenOverUmaskAndExistingFile) {
  ASSERT_TRUE(WriteFile(Path("secret"), "token", 0600).ok());
  EXPECT_EQ(Mode(Path("secret")), 0600);

  // Replacing a world-readable file with a private one leaves it private.
  ASSERT_TRUE(WriteFile(Path("f"), "a", 0644).ok());
  ASSERT_TRUE(WriteFile(Path("f"), "b", 0600).ok());
  EXPECT_EQ(Mode(Path("f")), 0600);
  EXPECT_EQ(*ReadFile(Path("f")), "b");

  // The mode is exact, not filtered by the umask.
  mode_t old = ::umask(077);
  Status st = WriteFile(Path("shared"), "x", 0644);
  ::umask(old);
  ASSERT_TRUE(st.ok());
  EXPECT_EQ(Mode(Path("shared")), 0644);
}

TEST_F(FileTest, ReplacesAtomicallyForReaders) {
  // A reader never sees a partial or mixed file while a writer replaces it.
  const std::string a(1 << 20, 'a'), b(1 << 20, 'b');
  ASSERT_TRUE(WriteFile(Path("f"), a).ok());
  std::atomic<bool> done{false};
  std::atomic<int> reads{0}, bad{0};
  std::thread reader([&] {
    while (!done.load()) {
      auto r = ReadFile(Path("f"));
      if (!r.ok() || (*r != a && *r != b)) bad.fetch_add(1);
      reads.fetch_add(1);
    }
  });
  for (int i = 0; i < 40; ++i) ASSERT_TRUE(WriteFile(Path("f"), i % 2 ? a : b).ok());
  // Let the reader overlap at least a few writes before stopping it.
  while (reads.load() < 5) std::this_thread::yield();
  done = true;
  reader.join();
  EXPECT_EQ(bad.load(), 0);
}

TEST_F(FileTest, ConcurrentWritersInOneProcess) {
  // Threads of one process (the GCS, the raylet) may write the same file at once:
  // every write succeeds and the result is one of the complete contents.
  constexpr int kThreads = 4, kWrites = 50;
  std::vector<std::string> contents;
  for (int t = 0; t < kThreads; ++t) contents.push_back(std::string(64 << 10, 'a' + t));
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kWrites; ++i) {
        if (!WriteFile(Path("f"), contents[t]).ok()) failures.fetch_add(1);
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(failures.load(), 0);
  auto final_content = ReadFile(Path("f"));
  ASSERT_TRUE(final_content.ok());
  EXPECT_NE(std::find(contents.begin(), contents.end(), *final_content), contents.end());
  EXPECT_EQ(NumEntries(), 1u) << "temp files were left behind";
}

TEST_F(FileTest, WriteIntoMissingDirectoryFails) {
  Status st = WriteFile(Path("no/such/dir/f"), "x");
  EXPECT_FALSE(st.ok());
  EXPECT_NE(st.message().find("no/such/dir"), std::string::npos) << st.ToString();
}

TEST_F(FileTest, ReadMissingFileIsNotFoundNamingThePath) {
  auto r = ReadFile(Path("missing.txt"));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kNotFound);
  EXPECT_NE(r.status().message().find(Path("missing.txt")), std::string::npos)
      << r.status().ToString();
}

TEST(ContentHashTest, StableAndSensitiveToOneByte) {
  // FNV-1a 64 of "" and "a" (published test vectors).
  EXPECT_EQ(ContentHash(""), "cbf29ce484222325");
  EXPECT_EQ(ContentHash("a"), "af63dc4c8601ec8c");
  std::string data = RandomBytes(4096);
  std::string h = ContentHash(data);
  EXPECT_EQ(h.size(), 16u);
  EXPECT_EQ(ContentHash(data), h);
  for (size_t i : {size_t{0}, size_t{2048}, size_t{4095}}) {
    std::string changed = data;
    changed[i] ^= 1;
    EXPECT_NE(ContentHash(changed), h) << "byte " << i;
  }
  EXPECT_NE(ContentHash(data + '\0'), h);
}

TEST(SplitTest, Pieces) {
  EXPECT_EQ(Split("a,b,c", ','), (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_EQ(Split("abc", ','), (std::vector<std::string>{"abc"}));
  EXPECT_EQ(Split("", ','), (std::vector<std::string>{""}));
  EXPECT_EQ(Split(",a,,b,", ','), (std::vector<std::string>{"", "a", "", "b", ""}));
  EXPECT_EQ(Split("10.0.0.1:6379", ':'), (std::vector<std::string>{"10.0.0.1", "6379"}));
}

TEST(ProcessInfoTest, SelfIsAliveWithCmdline) {
  EXPECT_TRUE(ProcessAlive(::getpid()));
  EXPECT_FALSE(ProcessAlive(0));
  EXPECT_FALSE(ProcessAlive(-1));
  std::string exe = SelfExecutable();
  EXPECT_EQ(exe.front(), '/');
  EXPECT_NE(exe.find("util_test"), std::string::npos) << exe;
  EXPECT_NE(ProcessCmdline(::getpid()).find("util_test"), std::string::npos);
  EXPECT_EQ(ProcessCmdline(1 << 30), "");  // beyond pid_max
}

}  // namespace
}  // namespace ray

TEST(LocalAddressTest, TowardLoopbackIsLoopbackAndBadHostsHaveNone) {
  EXPECT_EQ(ray::LocalAddressToward("127.0.0.1"), std::optional<std::string>("127.0.0.1"));
  EXPECT_EQ(ray::LocalAddressToward("not-an-ip"), std::nullopt);
}
