#include "runtime/scheduler/lost_objects.h"

#include <gtest/gtest.h>

#include <string>

#include "runtime/base/hex.h"
#include "tests/test_util/named_ids.h"

namespace ray::scheduler {
namespace {

const ObjectId kResult = ObjectId::ForTaskReturn(test_util::TaskNamed("maker"), 1);
const ObjectId kPut = ObjectId::ForPut(test_util::TaskNamed("putter"), 1);

protocol::TaskSpec Lineage(int max_retries) {
  protocol::TaskSpec t;
  t.task_id = test_util::TaskNamed("maker");
  t.function = "make";
  t.max_retries = max_retries;
  return t;
}

ObjectFacts Facts() {
  ObjectFacts f;
  f.self = "self-node";
  return f;
}

TEST(LostObjectsTest, AResultWhoseLineageIsHereIsMadeAgainWhileItHasRetries) {
  protocol::TaskSpec t = Lineage(/*max_retries=*/2);
  ObjectFacts f = Facts();
  f.lineage = &t;
  f.copies_gone = true;
  EXPECT_EQ(RecoverObject(kResult, f).action, Recovery::kRunAgain);
  t.max_retries = -1;  // (no limit)
  EXPECT_EQ(RecoverObject(kResult, f).action, Recovery::kRunAgain);
  t.max_retries = 0;
  Recovery r = RecoverObject(kResult, f);
  ASSERT_EQ(r.action, Recovery::kLost);
  EXPECT_EQ(r.why,
            "has no copy left on a live node, and its task make has no retries left "
            "to make it again");
  f.rebuilding = true;
  EXPECT_EQ(RecoverObject(kResult, f).action, Recovery::kWait) << "it is being made already";
}

TEST(LostObjectsTest, APutIsLostWithTheNodeThatPutIt) {
  ObjectFacts f = Facts();
  f.putter = std::string("\x01\x02", 2);
  f.putter_alive = true;
  EXPECT_EQ(RecoverObject(kPut, f).action, Recovery::kWait) << "its node lives: it may come";
  f.putter_alive = false;
  Recovery r = RecoverObject(kPut, f);
  ASSERT_EQ(r.action, Recovery::kLost);
  EXPECT_EQ(r.why, "was put by a task on node 0102, which died; a put object cannot be made again");
  protocol::TaskSpec t = Lineage(3);
  f.lineage = &t;
  EXPECT_EQ(RecoverObject(kPut, f).action, Recovery::kLost) << "a put has no lineage";
}

TEST(LostObjectsTest, AResultIsAskedOfItsLiveOwnerOnceItsCopiesAreGone) {
  ObjectFacts f = Facts();
  f.owner = std::string("\xab", 1);
  f.owner_alive = true;
  EXPECT_EQ(RecoverObject(kResult, f).action, Recovery::kWait) << "maybe not reported yet";
  f.copies_gone = true;
  EXPECT_EQ(RecoverObject(kResult, f).action, Recovery::kAskOwner);
  f.copies_gone = false;
  f.evicted_here = true;
  EXPECT_EQ(RecoverObject(kResult, f).action, Recovery::kAskOwner) << "its copy here was evicted";

  f.owner_alive = false;
  Recovery r = RecoverObject(kResult, f);
  ASSERT_EQ(r.action, Recovery::kLost);
  EXPECT_NE(r.why.find("submitted on node ab, its owner, which died"), std::string::npos) << r.why;
}

TEST(LostObjectsTest, ACopyEvictedHereWithNoOwnerElsewhereIsLost) {
  ObjectFacts f = Facts();
  f.owner = f.self;  // (submitted here, its lineage gone: not asked of itself)
  f.evicted_here = true;
  Recovery r = RecoverObject(kResult, f);
  ASSERT_EQ(r.action, Recovery::kLost);
  EXPECT_EQ(r.why, "was evicted from node " + ToHex(f.self) +
                       "'s full object store and no other node holds it");
  f.evicted_here = false;
  f.copies_gone = true;
  EXPECT_EQ(RecoverObject(kResult, f).action, Recovery::kWait);
}

TEST(LostObjectsTest, ObjectsOnlyOnADeadNodeAreMadeAgainOrLostWithTheReason) {
  protocol::TaskSpec t = Lineage(1);
  DeadNodeRecovery r = RecoverFromDeadNode({{kResult, &t}}, "\x0f");
  ASSERT_EQ(r.run_again.size(), 1u);
  EXPECT_EQ(r.run_again[0].first, kResult);
  EXPECT_TRUE(r.lost.empty());

  t.max_retries = 0;
  const ObjectId other = ObjectId::ForTaskReturn(test_util::TaskNamed("elsewhere"), 1);
  r = RecoverFromDeadNode({{kResult, &t}, {other, nullptr}, {kPut, &t}}, "\x0f");
  EXPECT_TRUE(r.run_again.empty());
  ASSERT_EQ(r.lost.size(), 3u);
  EXPECT_EQ(r.lost[0].second,
            "was only on node 0f, which died, and its task make has no retries left");
  EXPECT_EQ(r.lost[1].second,
            "was only on node 0f, which died (its task was not submitted on this node)");
  EXPECT_EQ(r.lost[2].second,
            "was only on node 0f, which died (a put object: it cannot be made again)");
}

TEST(LostObjectsTest, ATaskWhoseResultsWereLostRunsOnceForAllOfThem) {
  protocol::TaskSpec t = Lineage(/*max_retries=*/1);
  const ObjectId second = ObjectId::ForTaskReturn(t.task_id, 2);
  DeadNodeRecovery r = RecoverFromDeadNode({{kResult, &t}, {second, &t}}, "\x0f");
  ASSERT_EQ(r.run_again.size(), 1u) << "one run makes both";
  EXPECT_EQ(r.run_again[0].first, kResult);
  EXPECT_TRUE(r.lost.empty()) << "its one retry covers every result";
}

}  // namespace
}  // namespace ray::scheduler
