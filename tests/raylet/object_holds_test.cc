#include "runtime/raylet/object_holds.h"

#include <gtest/gtest.h>

#include "tests/test_util/named_ids.h"

namespace ray::raylet {
namespace {

ObjectId Id(uint32_t i) { return ObjectId::ForPut(TaskId::FromRandom(), i); }

TEST(ObjectHoldsTest, AnObjectNobodyElseHoldsIsFreedWhenItsOwnerLetsGo) {
  ObjectHolds holds;
  EXPECT_TRUE(holds.OwnerReleased(Id(1)));
}

TEST(ObjectHoldsTest, TheLastHolderFreesAnObjectItsOwnerLetGo) {
  ObjectHolds holds;
  ObjectId id = Id(1);
  const std::string task = ObjectHolds::Task(test_util::TaskNamed("t1")), worker = ObjectHolds::Process("w1");
  holds.Add(id, task);
  holds.Add(id, worker);
  EXPECT_FALSE(holds.OwnerReleased(id));
  std::vector<ObjectId> freed;
  holds.RemoveHolder(task, freed);
  EXPECT_TRUE(freed.empty());
  EXPECT_TRUE(holds.Held(id));
  holds.Remove(id, worker, freed);
  EXPECT_EQ(freed, std::vector<ObjectId>{id});
  EXPECT_FALSE(holds.Held(id));
  EXPECT_TRUE(holds.empty());
}

TEST(ObjectHoldsTest, HoldsGoneBeforeTheOwnerLetsGoLeaveItToTheOwner) {
  ObjectHolds holds;
  ObjectId id = Id(1);
  holds.Add(id, ObjectHolds::Process("w1"));
  std::vector<ObjectId> freed;
  holds.Remove(id, ObjectHolds::Process("w1"), freed);
  EXPECT_TRUE(freed.empty());  // the owner still refers to it
  EXPECT_TRUE(holds.OwnerReleased(id));
}

TEST(ObjectHoldsTest, AHolderCountsEachOfItsHolds) {
  ObjectHolds holds;
  ObjectId id = Id(1);
  const std::string w = ObjectHolds::Process("w1");
  holds.Add(id, w);
  holds.Add(id, w);
  EXPECT_FALSE(holds.OwnerReleased(id));
  std::vector<ObjectId> freed;
  holds.Remove(id, w, freed);
  EXPECT_TRUE(freed.empty());
  holds.Remove(id, w, freed);
  EXPECT_EQ(freed.size(), 1u);
  holds.Remove(id, w, freed);  // one too many: ignored
  EXPECT_EQ(freed.size(), 1u);
}

TEST(ObjectHoldsTest, ADeadBorrowerLetsGoOfEverything) {
  ObjectHolds holds;
  ObjectId a = Id(1), b = Id(2);
  const std::string dead = ObjectHolds::Process("w1"), alive = ObjectHolds::Process("w2");
  holds.Add(a, dead);
  holds.Add(a, dead);
  holds.Add(b, dead);
  holds.Add(b, alive);
  EXPECT_FALSE(holds.OwnerReleased(a));
  EXPECT_FALSE(holds.OwnerReleased(b));
  std::vector<ObjectId> freed;
  holds.RemoveHolder(dead, freed);
  EXPECT_EQ(freed, std::vector<ObjectId>{a});
  EXPECT_TRUE(holds.Held(b));
}

TEST(ObjectHoldsTest, ForgettingAJobDropsItsObjectsAndTheirHolds) {
  ObjectHolds holds;
  JobId job = JobId::FromRandom();
  ObjectId mine = ObjectId::ForPut(NewTaskId(job), 1), other = Id(2);
  const std::string w = ObjectHolds::Process("w1");
  holds.Add(mine, w);
  holds.Add(other, w);
  holds.EraseJob(job);
  EXPECT_FALSE(holds.Held(mine));
  EXPECT_TRUE(holds.Held(other));
  EXPECT_FALSE(holds.OwnerReleased(other));
  std::vector<ObjectId> freed;
  holds.RemoveHolder(w, freed);
  EXPECT_EQ(freed, std::vector<ObjectId>{other});
}

TEST(ObjectHoldsTest, AddSaysWhetherTheObjectWasUnheldAndOneOwnedElsewhereIsFreedWithItsLastHolder) {
  ObjectHolds holds;
  ObjectId id = Id(1);
  const std::string task = ObjectHolds::Task(test_util::TaskNamed("t1")), worker = ObjectHolds::Process("w1");
  EXPECT_TRUE(holds.Add(id, task, /*owner_elsewhere=*/true));
  EXPECT_FALSE(holds.Add(id, worker, true));
  std::vector<ObjectId> freed;
  holds.RemoveHolder(task, freed);
  EXPECT_TRUE(freed.empty());
  holds.Remove(id, worker, freed);
  EXPECT_EQ(freed, std::vector<ObjectId>{id});  // no owner here to wait for
  EXPECT_TRUE(holds.Add(id, worker, true));      // held again: a new first hold
}

TEST(ObjectHoldsTest, ANodeIsOneHolderPerBorrowItSaid) {
  ObjectHolds holds;
  ObjectId id = Id(1);
  const std::string node = ObjectHolds::Node("n1");
  holds.Add(id, node);
  holds.Add(id, node);  // borrowed again after an unborrow not yet come (counts, not a set)
  EXPECT_FALSE(holds.OwnerReleased(id));
  std::vector<ObjectId> freed;
  holds.Remove(id, node, freed);
  EXPECT_TRUE(freed.empty());
  holds.Remove(id, node, freed);
  EXPECT_EQ(freed, std::vector<ObjectId>{id});
}

}  // namespace
}  // namespace ray::raylet
