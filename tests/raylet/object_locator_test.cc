// ObjectLocator on the raylet's real tables (remote nodes, placement, object table).
// The pulls it starts, what it asks the GCS's directory, the objects it declares lost
// and the tasks it runs again are kept, as the raylet would carry them out.

#include "runtime/raylet/object_locator.h"

#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "runtime/base/hex.h"

namespace ray::raylet {
namespace {

class ObjectLocatorTest : public ::testing::Test {
 protected:
  ObjectLocatorTest()
      : locator_({self_, remote_, placement_, objects_, evicted_,
                  [this](const ObjectId& id, const std::string& node) {
                    pulls_.push_back({id, node});
                    return true;
                  },
                  [this](const ObjectId& id) {
                    for (const auto& [pulled, node] : pulls_) {
                      if (pulled == id) return true;
                    }
                    return false;
                  },
                  [this](const std::vector<std::string>& ids) {
                    ++directory_asks_;
                    std::vector<std::vector<std::string>> where;
                    for (const auto& id : ids) where.push_back(listed_[ObjectId::FromBinary(id)]);
                    return Result<std::vector<std::vector<std::string>>>(std::move(where));
                  },
                  [this](const ObjectId& id, const std::string& why) { lost_[id] = why; },
                  [this](protocol::TaskSpec t) { placed_.push_back(std::move(t)); }}) {}

  // Another node, alive, known here.
  void Join(const std::string& node) { placement_.UpdateNode(node, true, true, {}, {}, 0); }
  void Die(const std::string& node) { placement_.UpdateNode(node, false, true, {}, {}, 0); }

  // A normal task submitted here (this node owns its results), `returns` results.
  protocol::TaskSpec Task(uint32_t returns, int max_retries) {
    protocol::TaskSpec t;
    t.task_id = NewTaskId(job_, self_id_);
    t.function = "make";
    t.num_returns = returns;
    t.max_retries = max_retries;
    return t;
  }

  // A reader here waits for `id`.
  void Await(const ObjectId& id) {
    auto w = std::make_shared<Waiter>();
    w->kind = Waiter::kGet;
    w->ids = {id};
    readers_.push_back(w);
    objects_.AddWaiter(w, [](const ObjectId&) {});
  }

  const JobId job_ = JobId::FromBinary("jjjj");
  const NodeId self_id_ = NodeId::FromRandom();
  const std::string self_ = self_id_.Binary();
  const std::string b_ = NodeId::FromRandom().Binary();
  const std::string c_ = NodeId::FromRandom().Binary();
  RemoteNodes remote_;
  scheduler::Placement placement_{scheduler::ResourceSet{}};
  ObjectTable objects_;
  std::unordered_set<ObjectId, IdHash> evicted_;
  std::vector<std::pair<ObjectId, std::string>> pulls_;
  std::map<ObjectId, std::vector<std::string>> listed_;  // the GCS's directory
  int directory_asks_ = 0;
  std::map<ObjectId, std::string> lost_;
  std::vector<protocol::TaskSpec> placed_;
  std::vector<std::shared_ptr<Waiter>> readers_;
  ObjectLocator locator_;
};

TEST_F(ObjectLocatorTest, AnObjectIsPulledFromTheNodeItsTaskWentToBeforeTheHint) {
  Join(b_);
  Join(c_);
  auto t = Task(1, 3);
  const ObjectId result = ObjectId::ForTaskReturn(t.task_id, 1);
  remote_.Forwarded(t, b_);
  locator_.Locate(result, c_);
  ASSERT_EQ(pulls_.size(), 1u);
  EXPECT_EQ(pulls_[0].second, b_);
  locator_.Locate(result, c_);
  EXPECT_EQ(pulls_.size(), 1u) << "a pull of it runs: not pulled twice";
  // Nothing known of it: the hint says where.
  const ObjectId other = ObjectId::ForTaskReturn(Task(1, 3).task_id, 1);
  locator_.Locate(other, c_);
  ASSERT_EQ(pulls_.size(), 2u);
  EXPECT_EQ(pulls_[1].second, c_);
}

TEST_F(ObjectLocatorTest, AnObjectNobodyKnowsOfIsLookedUpInBulkOnACluster) {
  const ObjectId id = ObjectId::ForTaskReturn(Task(1, 3).task_id, 1);
  Await(id);
  locator_.Locate(id, self_);  // (a hint naming this node is no hint)
  locator_.LocateInBulk();
  EXPECT_EQ(directory_asks_, 0) << "a single node has nowhere else to look";
  Join(b_);
  Join(c_);
  Die(c_);
  locator_.Locate(id, "");
  EXPECT_TRUE(pulls_.empty());
  // Listed on a dead node, this one, a node that said it lost its copy, and a live
  // one: pulled from the live one.
  const std::string d = NodeId::FromRandom().Binary();
  Join(d);
  remote_.LostAt(id, d);
  listed_[id] = {c_, self_, d, b_};
  locator_.LocateInBulk();
  ASSERT_EQ(pulls_.size(), 1u);
  EXPECT_EQ(pulls_[0].second, b_);
  locator_.LocateInBulk();
  EXPECT_EQ(directory_asks_, 1) << "located: not asked again";
}

TEST_F(ObjectLocatorTest, AnObjectNoLongerAwaitedIsNotLookedUp) {
  Join(b_);
  const ObjectId id = ObjectId::ForTaskReturn(Task(1, 3).task_id, 1);
  locator_.Locate(id, "");
  locator_.LocateInBulk();
  EXPECT_EQ(directory_asks_, 0);
}

TEST_F(ObjectLocatorTest, AResultWithNoCopyLeftIsMadeAgainOnceFromItsLineage) {
  Join(b_);
  auto t = Task(1, /*max_retries=*/2);
  const ObjectId result = ObjectId::ForTaskReturn(t.task_id, 1);
  remote_.Forwarded(t, b_);
  remote_.FinishedOn(t.task_id, b_);
  Die(b_);
  Await(result);
  remote_.Unlocated(result);
  listed_[result] = {b_};  // only on the dead node
  locator_.LocateInBulk();
  ASSERT_EQ(placed_.size(), 1u);
  EXPECT_EQ(placed_[0].task_id, t.task_id);
  EXPECT_EQ(placed_[0].max_retries, 1) << "one retry used";
  locator_.LocateInBulk();
  EXPECT_EQ(placed_.size(), 1u) << "it is being made: not run again";
  EXPECT_TRUE(lost_.empty());
}

TEST_F(ObjectLocatorTest, APutWhoseNodeDiedIsLostForGood) {
  Join(b_);
  const ObjectId put = ObjectId::ForPut(NewTaskId(job_, NodeId::FromBinary(b_)), 1);
  Die(b_);
  Await(put);
  remote_.Unlocated(put);
  listed_[put] = {b_};
  locator_.LocateInBulk();
  ASSERT_EQ(lost_.count(put), 1u);
  EXPECT_EQ(lost_[put], "was put by a task on node " + ToHex(b_) +
                            ", which died; a put object cannot be made again");
}

TEST_F(ObjectLocatorTest, ObjectsLostWithANodeAreMadeAgainOncePerTask) {
  Join(b_);
  Join(c_);
  auto two = Task(2, /*max_retries=*/1);  // one retry: enough for both results
  auto elsewhere = Task(1, 1);
  remote_.Forwarded(two, b_);
  remote_.FinishedOn(two.task_id, b_);
  remote_.Forwarded(elsewhere, b_);
  remote_.FinishedOn(elsewhere.task_id, b_);
  const ObjectId copied = ObjectId::ForTaskReturn(elsewhere.task_id, 1);
  listed_[copied] = {c_};  // a copy lives on c
  Await(copied);
  Die(b_);
  locator_.RecoverObjectsOf(b_);
  ASSERT_EQ(placed_.size(), 1u);
  EXPECT_EQ(placed_[0].task_id, two.task_id);
  EXPECT_TRUE(lost_.empty()) << "both results come from the one run";
  // The copy on c is fetched when the heartbeat looks it up.
  locator_.LocateInBulk();
  ASSERT_EQ(pulls_.size(), 1u);
  EXPECT_EQ(pulls_[0].second, c_);
}

TEST_F(ObjectLocatorTest, AnEvictedCopyIsLookedForElsewhereOnlyWhereItMayBeHad) {
  Join(b_);
  Join(c_);
  auto mine = Task(1, 3);
  const ObjectId result = ObjectId::ForTaskReturn(mine.task_id, 1);
  remote_.Forwarded(mine, b_);
  EXPECT_TRUE(locator_.LookElsewhere(result, b_)) << "its lineage is here";
  EXPECT_TRUE(remote_.WasLostAt(result, b_));
  // A result owned by node c, evicted on b: c is asked.
  protocol::TaskSpec theirs;
  theirs.task_id = NewTaskId(job_, NodeId::FromBinary(c_));
  EXPECT_TRUE(locator_.LookElsewhere(ObjectId::ForTaskReturn(theirs.task_id, 1), b_));
  // ...but c's own word that it is lost is final.
  EXPECT_FALSE(locator_.LookElsewhere(ObjectId::ForTaskReturn(theirs.task_id, 1), c_));
  EXPECT_FALSE(locator_.LookElsewhere(ObjectId::ForPut(theirs.task_id, 1), b_));
  EXPECT_EQ(locator_.OwnerNode(result), self_);
}

}  // namespace
}  // namespace ray::raylet
