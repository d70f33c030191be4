// Spawn and TerminateProcess against real /bin/sh children. Waits are bounded polls
// on pipes or on process state, never sleeps.

#include "runtime/base/process.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <string>

#include "runtime/base/util.h"
#include "tests/test_util/temp_dir.h"

namespace ray {
namespace {

constexpr int64_t kDeadlineMs = 10000;

// Reads `fd` until EOF or the deadline; closes it.
std::string ReadUntilEof(int fd) {
  std::string out;
  int64_t deadline = MonoMillis() + kDeadlineMs;
  while (MonoMillis() < deadline) {
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, 100) <= 0) continue;
    char buf[4096];
    ssize_t n = ::read(fd, buf, sizeof(buf));
    if (n > 0) {
      out.append(buf, static_cast<size_t>(n));
    } else if (n == 0 || (errno != EAGAIN && errno != EINTR)) {
      break;
    }
  }
  ::close(fd);
  return out;
}

// Reads `fd` until `line` has been seen (or the deadline passes); leaves it open.
bool WaitForOutput(int fd, const std::string& line) {
  std::string out;
  int64_t deadline = MonoMillis() + kDeadlineMs;
  while (MonoMillis() < deadline && out.find(line) == std::string::npos) {
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, 100) <= 0) continue;
    char buf[256];
    ssize_t n = ::read(fd, buf, sizeof(buf));
    if (n == 0) break;
    if (n > 0) out.append(buf, static_cast<size_t>(n));
  }
  return out.find(line) != std::string::npos;
}

// Waits for our child and returns its wait status.
int Wait(int pid) {
  int status = 0;
  EXPECT_EQ(::waitpid(pid, &status, 0), pid);
  return status;
}

// Polls until `pid` is gone (a zombie counts as gone).
bool WaitGone(int pid) {
  int64_t deadline = MonoMillis() + kDeadlineMs;
  while (MonoMillis() < deadline) {
    if (!ProcessAlive(pid)) return true;
    ::usleep(5000);
  }
  return false;
}

TEST(SpawnTest, EmptyArgvIsInvalid) {
  auto child = Spawn(SpawnOptions{});
  ASSERT_FALSE(child.ok());
  EXPECT_EQ(child.status().code(), StatusCode::kInvalidArgument);
}

TEST(SpawnTest, OutputToFilesAppends) {
  test_util::TempDir dir;
  ASSERT_FALSE(dir.path().empty());
  std::string out = dir.path() + "/out.log", err = dir.path() + "/err.log";
  ASSERT_TRUE(WriteFile(out, "before\n").ok());

  SpawnOptions o;
  o.argv = {"/bin/sh", "-c", "echo to-out; echo to-err >&2; echo \"$RAY_T1-$RAY_T2\"; exit 3"};
  o.stdout_path = out;
  o.stderr_path = err;
  o.env = {{"RAY_T1", "one"}, {"RAY_T2", "two"}};
  auto child = Spawn(o);
  ASSERT_TRUE(child.ok()) << child.status().ToString();
  EXPECT_GT(child->pid, 0);
  EXPECT_EQ(child->stdout_fd, -1);
  EXPECT_EQ(child->stderr_fd, -1);
  int status = Wait(child->pid);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 3);
  EXPECT_EQ(*ReadFile(out), "before\nto-out\none-two\n");
  EXPECT_EQ(*ReadFile(err), "to-err\n");
}

TEST(SpawnTest, OutputToPipes) {
  SpawnOptions o;
  // stdin is /dev/null: cat ends at once.
  o.argv = {"/bin/sh", "-c", "cat; echo to-out; echo to-err >&2; echo $RAY_T1"};
  o.pipe_output = true;
  o.env = {{"RAY_T1", "from-env"}};
  auto child = Spawn(o);
  ASSERT_TRUE(child.ok()) << child.status().ToString();
  ASSERT_GE(child->stdout_fd, 0);
  ASSERT_GE(child->stderr_fd, 0);
  EXPECT_TRUE(::fcntl(child->stdout_fd, F_GETFL) & O_NONBLOCK);
  EXPECT_TRUE(::fcntl(child->stderr_fd, F_GETFD) & FD_CLOEXEC);
  EXPECT_EQ(ReadUntilEof(child->stdout_fd), "to-out\nfrom-env\n");
  EXPECT_EQ(ReadUntilEof(child->stderr_fd), "to-err\n");
  int status = Wait(child->pid);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
}

// Descriptors above stderr in this process that a child would inherit.
int InheritableFds() {
  int n = 0;
  for (int fd = 3; fd < 1024; ++fd) {
    int flags = ::fcntl(fd, F_GETFD);
    if (flags >= 0 && !(flags & FD_CLOEXEC)) ++n;
  }
  return n;
}

TEST(SpawnTest, ChildGetsNoExtraDescriptors) {
  SpawnOptions o;
  o.argv = {"/bin/ls", "/proc/self/fd"};
  o.pipe_output = true;
  auto child = Spawn(o);
  ASSERT_TRUE(child.ok());
  std::string listing = ReadUntilEof(child->stdout_fd);
  ::close(child->stderr_fd);
  Wait(child->pid);
  int above_stderr = 0;
  for (const auto& name : Split(listing, '\n')) {
    if (!name.empty() && std::stoi(name) > 2) ++above_stderr;
  }
  // What this process lets children inherit, plus the directory ls is reading.
  EXPECT_LE(above_stderr, InheritableFds() + 1) << listing;
}

TEST(SpawnTest, MissingExecutableExits127) {
  SpawnOptions o;
  o.argv = {"/nonexistent/ray-test-binary"};
  o.pipe_output = true;
  auto child = Spawn(o);
  if (!child.ok()) return;  // reporting the exec failure directly is fine too
  ::close(child->stdout_fd);
  EXPECT_NE(ReadUntilEof(child->stderr_fd).find("cannot exec /nonexistent/ray-test-binary"),
            std::string::npos);
  int status = Wait(child->pid);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 127);
}

TEST(SpawnTest, NewSessionMakesChildSessionLeader) {
  SpawnOptions o;
  o.argv = {"/bin/sh", "-c", "exec sleep 30"};
  o.new_session = true;
  auto child = Spawn(o);
  ASSERT_TRUE(child.ok());
  // setsid() runs between fork and exec; poll until the child has done it.
  int64_t deadline = MonoMillis() + kDeadlineMs;
  while (::getsid(child->pid) != child->pid && MonoMillis() < deadline) ::usleep(1000);
  EXPECT_EQ(::getsid(child->pid), child->pid);
  EXPECT_NE(::getsid(child->pid), ::getsid(0));
  EXPECT_TRUE(TerminateProcess(child->pid, 2000));
}

TEST(SpawnTest, DieWithParentKillsGrandchild) {
  // A forked middle process spawns `sleep` with a parent-death signal, reports its pid and
  // exits; the grandchild must then be killed by the kernel.
  int report[2];
  ASSERT_EQ(::pipe(report), 0);
  pid_t middle = ::fork();
  ASSERT_GE(middle, 0);
  if (middle == 0) {
    ::close(report[0]);
    SpawnOptions o;
    o.argv = {"/bin/sh", "-c", "exec sleep 30"};
    o.parent_death_signal = SIGKILL;
    auto child = Spawn(o);
    int pid = child.ok() ? child->pid : -1;
    (void)!::write(report[1], &pid, sizeof(pid));
    ::_exit(0);
  }
  ::close(report[1]);
  int grandchild = -1;
  ASSERT_EQ(::read(report[0], &grandchild, sizeof(grandchild)),
            static_cast<ssize_t>(sizeof(grandchild)));
  ::close(report[0]);
  ASSERT_GT(grandchild, 0);
  Wait(middle);
  bool gone = WaitGone(grandchild);
  if (!gone) ::kill(grandchild, SIGKILL);
  EXPECT_TRUE(gone) << "grandchild " << grandchild << " outlived its parent";
}

TEST(TerminateProcessTest, ExitsOnSigterm) {
  SpawnOptions o;
  o.argv = {"/bin/sh", "-c", "exec sleep 30"};
  auto child = Spawn(o);
  ASSERT_TRUE(child.ok());
  int64_t start = MonoMillis();
  EXPECT_TRUE(TerminateProcess(child->pid, 5000));
  EXPECT_LT(MonoMillis() - start, 4000);  // did not need the grace period
  // Reaped: no zombie is left behind.
  EXPECT_EQ(::waitpid(child->pid, nullptr, WNOHANG), -1);
  EXPECT_EQ(errno, ECHILD);
}

TEST(TerminateProcessTest, AlwaysReapsOwnChildren) {
  // Many quick terminations: each child is reaped, whatever the timing of its death
  // relative to TerminateProcess's checks.
  for (int i = 0; i < 30; ++i) {
    SpawnOptions o;
    o.argv = {"/bin/sleep", "30"};
    auto child = Spawn(o);
    ASSERT_TRUE(child.ok());
    ASSERT_TRUE(TerminateProcess(child->pid, 2000));
    errno = 0;
    ASSERT_EQ(::waitpid(child->pid, nullptr, WNOHANG), -1)
        << "iteration " << i << ": child was left as a zombie";
    ASSERT_EQ(errno, ECHILD);
  }
}

TEST(TerminateProcessTest, FallsBackToSigkill) {
  SpawnOptions o;
  o.argv = {"/bin/sh", "-c", "trap '' TERM; echo ready; exec sleep 30"};
  o.pipe_output = true;
  auto child = Spawn(o);
  ASSERT_TRUE(child.ok());
  // Only signal once the trap is installed.
  ASSERT_TRUE(WaitForOutput(child->stdout_fd, "ready"));
  constexpr int kGraceMs = 300;
  int64_t start = MonoMillis();
  EXPECT_TRUE(TerminateProcess(child->pid, kGraceMs));
  int64_t took = MonoMillis() - start;
  EXPECT_GE(took, kGraceMs) << "SIGTERM should have been ignored";
  EXPECT_LT(took, kGraceMs + 2000);
  EXPECT_FALSE(ProcessAlive(child->pid));
  ::close(child->stdout_fd);
  ::close(child->stderr_fd);
}

TEST(TerminateProcessTest, GoneOrInvalidPids) {
  EXPECT_TRUE(TerminateProcess(0));
  EXPECT_TRUE(TerminateProcess(-5));
  SpawnOptions o;
  o.argv = {"/bin/true"};
  auto child = Spawn(o);
  ASSERT_TRUE(child.ok());
  Wait(child->pid);
  EXPECT_TRUE(TerminateProcess(child->pid, 100));
}

}  // namespace
}  // namespace ray
