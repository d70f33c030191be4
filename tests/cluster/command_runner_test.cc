#include "runtime/cluster/command_runner.h"

#include <dirent.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <filesystem>
#include <thread>

#include "runtime/base/util.h"
#include "tests/test_util/temp_dir.h"

namespace ray::cluster {
namespace {

using Strings = std::vector<std::string>;

Strings Lines(const std::string& text) {
  Strings out;
  size_t start = 0;
  while (start < text.size()) {
    size_t nl = text.find('\n', start);
    if (nl == std::string::npos) nl = text.size();
    out.push_back(text.substr(start, nl - start));
    start = nl + 1;
  }
  return out;
}

// Pids of this user's processes whose environment holds `entry` ("KEY=value").
std::vector<int> ProcessesWithEnv(const std::string& entry) {
  std::vector<int> pids;
  DIR* proc = ::opendir("/proc");
  if (proc == nullptr) return pids;
  while (dirent* e = ::readdir(proc)) {
    int pid = std::atoi(e->d_name);
    if (pid <= 0) continue;
    auto environ = ReadFile("/proc/" + std::string(e->d_name) + "/environ");
    if (!environ.ok()) continue;
    for (const auto& var : Split(*environ, '\0')) {
      if (var == entry) pids.push_back(pid);
    }
  }
  ::closedir(proc);
  return pids;
}

TEST(ShellQuoteTest, RoundTripsThroughBash) {
  test_util::TempDir dir;
  const Strings cases = {"plain",
                         "two words",
                         "it's",
                         "'",
                         "''",
                         "\"double\"",
                         "$HOME $(id)",
                         "`id`",
                         "back\\slash\\",
                         "a\nnew\nline\n",
                         "*?[glob]",
                         "tab\there",
                         "",
                         "-n",
                         "!bang; exit 1",
                         "a\\'b"};
  for (const std::string& s : cases) {
    std::string out = dir.path() + "/out";
    auto r =
        RunProcess({"bash", "-c", "printf %s " + ShellQuote(s) + " > " + ShellQuote(out)}, {}, 10);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_EQ(r->exit_code, 0) << s << ": " << r->tail;
    auto got = ReadFile(out);
    ASSERT_TRUE(got.ok());
    EXPECT_EQ(*got, s) << "quoted as " << ShellQuote(s);
  }
}

TEST(RunProcessTest, ReturnsTheExitCode) {
  auto ok = RunProcess({"true"}, {}, 10);
  ASSERT_TRUE(ok.ok());
  EXPECT_EQ(ok->exit_code, 0);
  auto three = RunProcess({"bash", "-c", "exit 3"}, {}, 10);
  ASSERT_TRUE(three.ok());
  EXPECT_EQ(three->exit_code, 3);
  auto killed = RunProcess({"bash", "-c", "kill -9 $$"}, {}, 10);
  ASSERT_TRUE(killed.ok());
  EXPECT_EQ(killed->exit_code, 128 + SIGKILL);
}

TEST(RunProcessTest, MissingProgramIs127) {
  auto r = RunProcess({"no-such-program-ray-test"}, {}, 10);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->exit_code, 127);
  EXPECT_NE(r->tail.find("no-such-program-ray-test"), std::string::npos) << r->tail;
}

TEST(RunProcessTest, EmptyArgvIsRefused) {
  EXPECT_EQ(RunProcess({}, {}, 10).status().code(), StatusCode::kInvalidArgument);
}

TEST(RunProcessTest, AddsTheEnvironment) {
  auto r = RunProcess({"bash", "-c", "echo \"$RAY_TEST_A|$RAY_TEST_B\""},
                      {{"RAY_TEST_A", "one two"}, {"RAY_TEST_B", "$x"}}, 10);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->tail, "one two|$x\n");
}

TEST(RunProcessTest, MergesStdoutAndStderrInOrder) {
  auto r = RunProcess({"bash", "-c", "echo out1; echo err1 >&2; echo out2; echo err2 >&2"}, {}, 10);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(Lines(r->tail), (Strings{"out1", "err1", "out2", "err2"}));
}

TEST(RunProcessTest, StreamsEveryLineAndKeepsATail) {
  Strings streamed;
  auto r = RunProcess({"bash", "-c", "for i in $(seq 1 500); do echo line$i; done; printf last"},
                      {}, 10, [&](const std::string& line) { streamed.push_back(line); });
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(streamed.size(), 501u);
  for (int i = 1; i <= 500; ++i) ASSERT_EQ(streamed[i - 1], "line" + std::to_string(i));
  EXPECT_EQ(streamed.back(), "last");  // a last line without its newline still counts

  Strings tail = Lines(r->tail);
  ASSERT_FALSE(tail.empty());
  EXPECT_LT(tail.size(), 100u);
  EXPECT_EQ(tail.back(), "last");
  // The tail is the end of the output, in order.
  Strings expected(streamed.end() - static_cast<long>(tail.size()), streamed.end());
  EXPECT_EQ(tail, expected);
}

TEST(RunProcessTest, DeadlineKillsTheCommandAndItsChildren) {
  std::string marker = "RAY_CLUSTER_TEST_MARKER=" + ToHex(RandomBytes(8));
  size_t eq = marker.find('=');
  Env env = {{marker.substr(0, eq), marker.substr(eq + 1)}};
  size_t running_at_start = 0;
  int64_t start = MonoMillis();
  auto r = RunProcess({"bash", "-c", "sleep 30 & echo started; sleep 30"}, env, 1,
                      [&](const std::string& line) {
                        if (line != "started") return;
                        // (A child caught in exec may be missed for a moment: look again.)
                        for (int i = 0; i < 30 && running_at_start < 2; ++i) {
                          running_at_start = ProcessesWithEnv(marker).size();
                          if (running_at_start < 2) {
                            std::this_thread::sleep_for(std::chrono::milliseconds(10));
                          }
                        }
                      });
  int64_t elapsed = MonoMillis() - start;
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kDeadlineExceeded);
  EXPECT_NE(r.status().message().find("started"), std::string::npos) << r.status().message();
  EXPECT_LT(elapsed, 3000);
  // bash and both sleeps were seen running, and none of them survives.
  EXPECT_GE(running_at_start, 2u);
  std::vector<int> left = ProcessesWithEnv(marker);
  for (int i = 0; i < 40 && !left.empty(); ++i) {  // killed ones may take a moment to go
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    left = ProcessesWithEnv(marker);
  }
  EXPECT_TRUE(left.empty()) << left.size() << " processes of the command survive";
  for (int pid : left) ::kill(pid, SIGKILL);
}

TEST(RunProcessTest, ADetachedChildDoesNotHoldItUp) {
  int64_t start = MonoMillis();
  auto r = RunProcess({"bash", "-c", "sleep 20 >/dev/null 2>&1 & echo $!"}, {}, 10);
  int64_t elapsed = MonoMillis() - start;
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->exit_code, 0);
  EXPECT_LT(elapsed, 1500);
  int child = std::atoi(r->tail.c_str());
  if (child > 0) ::kill(child, SIGKILL);
}

class LocalRunnerTest : public ::testing::Test {
 protected:
  std::string Home() const { return dir_.path() + "/home"; }
  std::string Here() const { return dir_.path() + "/here"; }
  test_util::TempDir dir_;
};

TEST_F(LocalRunnerTest, RunsWithTheNodesEnvironment) {
  auto runner = MakeLocalRunner(Home(), {{"RAY_HEAD_IP", "127.0.0.1"}, {"SPACED", "a b"}});
  EXPECT_TRUE(std::filesystem::is_directory(Home() + "/tmp"));
  Strings streamed;
  auto r = runner->Run(
      "echo \"$HOME\"; echo \"$RAY_TMPDIR\"; echo \"$RAY_HEAD_IP\"; echo \"$SPACED\"; "
      "echo \"$RAY_CLUSTER_TOKEN_FILE\"; echo \"${PATH%%:*}\"; cd ~ && pwd",
      10, [&](const std::string& line) { streamed.push_back(line); });
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->exit_code, 0);
  EXPECT_EQ(streamed,
            (Strings{Home(), Home() + "/tmp", "127.0.0.1", "a b", Home() + "/.ray/cluster_token",
                     Home() + "/.ray/runtime/bin", Home()}));
  EXPECT_EQ(Lines(r->tail), streamed);
  EXPECT_NE(runner->Describe().find(Home()), std::string::npos);
}

TEST_F(LocalRunnerTest, ExitCodesAndDeadlines) {
  auto runner = MakeLocalRunner(Home(), {});
  auto r = runner->Run("echo failing; exit 4", 10);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->exit_code, 4);
  EXPECT_EQ(r->tail, "failing\n");
  EXPECT_EQ(runner->Run("sleep 30", 1).status().code(), StatusCode::kDeadlineExceeded);
}

TEST_F(LocalRunnerTest, RsyncUpAFileMakesItsDirectory) {
  auto runner = MakeLocalRunner(Home(), {});
  std::filesystem::create_directories(Here());
  ASSERT_TRUE(WriteFile(Here() + "/a.txt", "alpha").ok());
  ASSERT_TRUE(runner->RsyncUp(Here() + "/a.txt", "~/deep/dir/a.txt", 10).ok());
  EXPECT_EQ(ReadFile(Home() + "/deep/dir/a.txt").value(), "alpha");
  // An absolute remote path is taken as it is.
  ASSERT_TRUE(runner->RsyncUp(Here() + "/a.txt", dir_.path() + "/abs/a.txt", 10).ok());
  EXPECT_EQ(ReadFile(dir_.path() + "/abs/a.txt").value(), "alpha");
}

TEST_F(LocalRunnerTest, RsyncUpADirectoryCopiesItsContents) {
  auto runner = MakeLocalRunner(Home(), {});
  std::filesystem::create_directories(Here() + "/tree/sub");
  ASSERT_TRUE(WriteFile(Here() + "/tree/x", "x").ok());
  ASSERT_TRUE(WriteFile(Here() + "/tree/sub/y", "y").ok());
  std::filesystem::create_directories(Home() + "/tree");
  ASSERT_TRUE(WriteFile(Home() + "/tree/stale", "old").ok());

  ASSERT_TRUE(runner->RsyncUp(Here() + "/tree", "~/tree", 10).ok());
  EXPECT_EQ(ReadFile(Home() + "/tree/x").value(), "x");
  EXPECT_EQ(ReadFile(Home() + "/tree/sub/y").value(), "y");
  EXPECT_FALSE(std::filesystem::exists(Home() + "/tree/tree"));   // contents, not nested
  EXPECT_FALSE(std::filesystem::exists(Home() + "/tree/stale"));  // --delete
}

TEST_F(LocalRunnerTest, RsyncDownFilesAndDirectories) {
  auto runner = MakeLocalRunner(Home(), {});
  std::filesystem::create_directories(Home() + "/results/run1");
  ASSERT_TRUE(WriteFile(Home() + "/results/run1/metrics.json", "{}").ok());
  ASSERT_TRUE(WriteFile(Home() + "/log.txt", "log").ok());

  ASSERT_TRUE(runner->RsyncDown("~/log.txt", Here() + "/copy/log.txt", 10).ok());
  EXPECT_EQ(ReadFile(Here() + "/copy/log.txt").value(), "log");
  ASSERT_TRUE(runner->RsyncDown("~/results", Here() + "/results", 10).ok());
  EXPECT_EQ(ReadFile(Here() + "/results/run1/metrics.json").value(), "{}");
  EXPECT_FALSE(std::filesystem::exists(Here() + "/results/results"));
}

TEST_F(LocalRunnerTest, RsyncOfAMissingPathFails) {
  auto runner = MakeLocalRunner(Home(), {});
  Status st = runner->RsyncUp(Here() + "/nothing", "~/x", 10);
  EXPECT_FALSE(st.ok());
  EXPECT_NE(st.message().find(Here() + "/nothing"), std::string::npos) << st.message();
}

TEST_F(LocalRunnerTest, InteractiveArgvRunsTheCommandThere) {
  auto runner = MakeLocalRunner(Home(), {{"RAY_HEAD_IP", "127.0.0.1"}});
  Strings argv = runner->InteractiveArgv("echo \"$HOME $RAY_HEAD_IP\"", {});
  auto r = RunProcess(argv, {}, 10);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->tail, Home() + " 127.0.0.1\n");
}

}  // namespace
}  // namespace ray::cluster
