// The start gate: a worker's starts and a sender's close, through one mapped file
// (two mappings of it here, as in two processes).

#include "runtime/serialization/start_gate.h"

#include <gtest/gtest.h>

#include <unistd.h>

#include "tests/test_util/temp_dir.h"

namespace ray::protocol {
namespace {

TEST(StartGateTest, PathFollowsTheIpcEndpoint) {
  EXPECT_EQ(StartGatePath("ipc:///tmp/s/sockets/w-00ff"), "/tmp/s/sockets/w-00ff.gate");
  EXPECT_EQ(StartGatePath("tcp://127.0.0.1:5000"), "");
}

TEST(StartGateTest, ACloseStopsLaterStartsAndCountsEarlierOnes) {
  test_util::TempDir dir;
  std::string path = dir.path() + "/w.gate";
  auto worker = StartGate::Create(path);
  ASSERT_NE(worker, nullptr);
  auto sender = StartGate::Open(path);
  ASSERT_NE(sender, nullptr);
  uint64_t base = sender->Starts();  // the worker is idle
  EXPECT_TRUE(worker->TryStart());   // the task it was dispatched
  EXPECT_TRUE(worker->TryStart());   // one sent ahead
  EXPECT_EQ(sender->Close() - base, 2u);  // so the third and later had not started
  EXPECT_FALSE(worker->TryStart());
  EXPECT_FALSE(worker->TryStart());
  EXPECT_EQ(sender->Starts(), base + 2);
  worker->Reopen();  // the sender's marker came
  EXPECT_TRUE(worker->TryStart());
  EXPECT_EQ(sender->Starts(), base + 3);
}

TEST(StartGateTest, AHolderWhoseLeaseEndedLeavesTheGateAlone) {
  test_util::TempDir dir;
  std::string path = dir.path() + "/w.gate";
  auto worker = StartGate::Create(path);
  auto holder = StartGate::Open(path);
  ASSERT_NE(holder, nullptr);
  uint64_t lease = holder->Lease();
  uint64_t base = holder->Starts();
  EXPECT_TRUE(worker->TryStart());
  EXPECT_TRUE(worker->EndLease());  // idle: the lease is returned
  EXPECT_EQ(holder->Close(lease), std::nullopt);
  EXPECT_TRUE(worker->TryStart());  // the next sender's task runs
  EXPECT_EQ(holder->Starts(), base + 2);
  // Closed within the lease: the lease does not end before the marker.
  lease = holder->Lease();
  EXPECT_EQ(holder->Close(lease), base + 2);
  EXPECT_FALSE(worker->EndLease());
  worker->Reopen();
  EXPECT_TRUE(worker->EndLease());
}

TEST(StartGateTest, OpenRefusesMissingAndForeignFiles) {
  test_util::TempDir dir;
  EXPECT_EQ(StartGate::Open(dir.path() + "/none.gate"), nullptr);
  EXPECT_EQ(StartGate::Open(""), nullptr);
  std::string other = dir.path() + "/other";
  FILE* f = std::fopen(other.c_str(), "w");
  std::fputs("not a gate file", f);
  std::fclose(f);
  EXPECT_EQ(StartGate::Open(other), nullptr);
}

TEST(StartGateTest, TheWorkersGateRemovesItsFile) {
  test_util::TempDir dir;
  std::string path = dir.path() + "/w.gate";
  { auto worker = StartGate::Create(path); }
  EXPECT_NE(::access(path.c_str(), F_OK), 0);
}

}  // namespace
}  // namespace ray::protocol
