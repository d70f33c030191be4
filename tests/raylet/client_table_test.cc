#include "runtime/raylet/client_table.h"

#include <gtest/gtest.h>

namespace ray::raylet {
namespace {

// A table with the workers `peers`, started and registered in that order.
ClientTable WithIdleWorkers(const std::vector<std::string>& peers) {
  ClientTable table;
  for (const auto& peer : peers) table.AddStarting(peer);
  for (const auto& peer : peers) table.Register(*table.Find(peer), 100, "ipc://" + peer);
  return table;
}

TEST(ClientTableTest, WorkersCountAsStartingUntilTheyRegisterOrExit) {
  ClientTable table;
  table.AddStarting("w1");
  table.AddStarting("w2");
  EXPECT_EQ(table.starting(), 2u);
  EXPECT_EQ(table.Find("w1")->state, Client::kStarting);
  EXPECT_EQ(table.FirstIdle(), nullptr) << "a starting worker is not idle";

  table.Register(*table.Find("w1"), 41, "ipc://w1");
  EXPECT_EQ(table.starting(), 1u);
  EXPECT_EQ(table.Find("w1")->pid, 41);
  EXPECT_EQ(table.Find("w1")->direct_endpoint, "ipc://w1");
  table.Find("w1")->state = Client::kBusy;
  table.Register(*table.Find("w1"), 41, "ipc://w1");  // (again: changes nothing)
  EXPECT_EQ(table.starting(), 1u);
  EXPECT_EQ(table.Find("w1")->state, Client::kBusy);
  EXPECT_EQ(table.idle().size(), 1u) << "in line once";
  ASSERT_TRUE(table.Take("w1"));  // a registered worker exits
  EXPECT_EQ(table.starting(), 1u);

  ASSERT_TRUE(table.Take("w2"));  // exited before registering
  EXPECT_EQ(table.starting(), 0u);
  EXPECT_FALSE(table.Has("w2"));
  EXPECT_FALSE(table.Take("w2"));
}

TEST(ClientTableTest, DriversAreRegisteredAtOnceAndNeverIdle) {
  ClientTable table;
  Client& d = table.AddDriver("d", 7, JobId::FromBinary("job1"));
  EXPECT_TRUE(d.is_driver);
  EXPECT_TRUE(d.registered);
  EXPECT_EQ(d.job_id, JobId::FromBinary("job1"));
  EXPECT_EQ(table.starting(), 0u);
  EXPECT_EQ(table.FirstIdle(), nullptr);
  ASSERT_TRUE(table.Take("d"));
  EXPECT_EQ(table.starting(), 0u);
}

TEST(ClientTableTest, WorkersIdleAgainAreFirstInLine) {
  ClientTable table = WithIdleWorkers({"w1", "w2", "w3"});
  // Newly registered workers line up in order.
  EXPECT_EQ(table.FirstIdle()->peer, "w1");
  table.TakeFirstIdle();
  table.Find("w1")->state = Client::kBusy;
  EXPECT_EQ(table.FirstIdle()->peer, "w2");
  // A worker that ran a task is warm: it goes first.
  table.MakeIdle(*table.Find("w1"));
  EXPECT_EQ(table.Find("w1")->state, Client::kIdle);
  EXPECT_EQ(table.FirstIdle()->peer, "w1");
}

TEST(ClientTableTest, FirstIdleSkipsOtherEnvironmentsAndDropsStaleEntries) {
  ClientTable table = WithIdleWorkers({"w1", "w2", "w3"});
  table.Find("w1")->env_bound = true;
  table.Find("w1")->runtime_env = "A";
  table.Find("w2")->state = Client::kActor;  // no longer idle
  table.Take("w3");                           // gone
  EXPECT_EQ(table.FirstIdle("B"), nullptr);
  EXPECT_EQ(table.idle().size(), 1u) << "only w1 stays in line";
  ASSERT_NE(table.FirstIdle("A"), nullptr);
  EXPECT_EQ(table.FirstIdle("A")->peer, "w1");

  table.AddStarting("w4");
  table.Register(*table.Find("w4"), 1, "ipc://w4");  // unbound: serves any environment
  ASSERT_NE(table.FirstIdle("B"), nullptr);
  EXPECT_EQ(table.FirstIdle("B")->peer, "w4");
  EXPECT_EQ(table.idle().front(), "w4") << "moved to the head, where TakeFirstIdle takes it";
  table.TakeFirstIdle();
  EXPECT_EQ(table.idle().front(), "w1");
}

TEST(ClientTableTest, ActorsAreCountedByState) {
  ClientTable table = WithIdleWorkers({"w1", "w2", "w3"});
  table.AddDriver("d", 1, JobId::FromBinary("job2"));
  EXPECT_EQ(table.Actors(), 0u);
  table.Find("w1")->state = Client::kActor;
  table.Find("w3")->state = Client::kActor;
  EXPECT_EQ(table.Actors(), 2u);
}

}  // namespace
}  // namespace ray::raylet
