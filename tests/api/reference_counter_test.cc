#include "runtime/api/reference_counter.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace ray::core {
namespace {

ObjectId Id(uint32_t i) { return ObjectId::ForPut(TaskId::FromRandom(), i); }

bool Has(const std::vector<ObjectId>& ids, const ObjectId& id) {
  return std::find(ids.begin(), ids.end(), id) != ids.end();
}

std::vector<ObjectId> Freed(ReferenceCounter& refs, bool all) {
  return refs.TakeChanges(all).freed;
}

TEST(ReferenceCounterTest, FreesAnOwnedObjectWhenItsLastRefGoes) {
  ReferenceCounter refs;
  ObjectId id = Id(1);
  refs.Own(id);
  refs.RefDelta(id, +2);
  refs.RefDelta(id, -1);
  EXPECT_TRUE(Freed(refs, /*all=*/true).empty());
  refs.RefDelta(id, -1);
  auto changes = refs.TakeChanges(/*all=*/true);
  ASSERT_EQ(changes.freed.size(), 1u);
  EXPECT_EQ(changes.freed[0], id);
  EXPECT_FALSE(changes.freed_escaped[0]);
  // Forgotten: a later delta is not counted, and nothing is freed twice.
  refs.RefDelta(id, -1);
  EXPECT_TRUE(refs.TakeChanges(/*all=*/true).empty());
}

TEST(ReferenceCounterTest, AnEscapedObjectIsReleasedByItsOwnerToo) {
  // The raylet frees it once the others holding it let go.
  ReferenceCounter refs;
  ObjectId escaped = Id(1);
  refs.Own(escaped);
  refs.RefDelta(escaped, +1);
  refs.RefEscaped(escaped);
  std::vector<ObjectId> contained = refs.TakeContained();
  ASSERT_EQ(contained.size(), 1u);
  refs.CarrierSent(contained);
  refs.RefDelta(escaped, -1);
  auto changes = refs.TakeChanges(/*all=*/true);
  ASSERT_EQ(changes.freed.size(), 1u);
  EXPECT_TRUE(changes.freed_escaped[0]);
}

TEST(ReferenceCounterTest, ReleasesWaitUntilTheCarrierHoldingThemIsSent) {
  ReferenceCounter refs;
  ObjectId owned = Id(1), borrowed = Id(2);
  refs.Own(owned);
  refs.RefDelta(owned, +1);
  refs.RefDelta(borrowed, +1);
  EXPECT_EQ(refs.TakeChanges(true).borrowed.size(), 1u);
  refs.RefEscaped(owned);     // serialized into a task's arguments...
  refs.RefEscaped(borrowed);
  refs.RefDelta(owned, -1);   // ...and dropped before the task went
  refs.RefDelta(borrowed, -1);
  EXPECT_TRUE(refs.TakeChanges(true).empty());
  std::vector<ObjectId> contained = refs.TakeContained();
  EXPECT_EQ(contained.size(), 2u);
  EXPECT_TRUE(refs.TakeChanges(true).empty());  // the task is being sent
  refs.CarrierSent(contained);
  auto changes = refs.TakeChanges(true);
  EXPECT_EQ(changes.freed, std::vector<ObjectId>{owned});
  EXPECT_EQ(changes.unborrowed, std::vector<ObjectId>{borrowed});
}

TEST(ReferenceCounterTest, ABorrowIsToldOnceAndItsEndOnce) {
  ReferenceCounter refs;
  ObjectId id = Id(1);
  refs.RefDelta(id, +1);
  refs.RefDelta(id, +1);
  EXPECT_TRUE(refs.BorrowsPending());
  auto changes = refs.TakeChanges(/*all=*/false);
  EXPECT_EQ(changes.borrowed, std::vector<ObjectId>{id});
  EXPECT_FALSE(refs.BorrowsPending());
  refs.RefDelta(id, -1);
  EXPECT_TRUE(refs.TakeChanges(false).empty());
  refs.RefDelta(id, -1);
  changes = refs.TakeChanges(/*all=*/false);  // (not batched)
  EXPECT_EQ(changes.unborrowed, std::vector<ObjectId>{id});
  EXPECT_TRUE(changes.freed.empty());
  EXPECT_TRUE(refs.TakeChanges(true).empty());
}

TEST(ReferenceCounterTest, ABorrowMadeAndDroppedBetweenSendsCostsNothing) {
  ReferenceCounter refs;
  ObjectId id = Id(1);
  refs.RefDelta(id, +1);
  refs.RefDelta(id, -1);
  EXPECT_FALSE(refs.BorrowsPending());
  EXPECT_TRUE(refs.TakeChanges(true).empty());
}

TEST(ReferenceCounterTest, ARefMadeAgainBeforeTheFreeKeepsTheObject) {
  ReferenceCounter refs;
  ObjectId id = Id(1);
  refs.Own(id);
  refs.RefDelta(id, +1);
  refs.RefDelta(id, -1);  // due...
  refs.RefDelta(id, +1);  // ...but referenced again before it is taken
  EXPECT_TRUE(Freed(refs, /*all=*/true).empty());
  refs.RefDelta(id, -1);
  EXPECT_EQ(Freed(refs, /*all=*/true).size(), 1u);
}

TEST(ReferenceCounterTest, SmallFreesGatherUntilABatchOrAll) {
  ReferenceCounter refs;
  std::vector<ObjectId> ids;
  for (uint32_t i = 0; i < ReferenceCounter::kFreeBatch; ++i) {
    ids.push_back(Id(i + 1));
    refs.Own(ids.back());
    refs.RefDelta(ids.back(), +1);
    refs.RefDelta(ids.back(), -1);
    if (i + 1 < ReferenceCounter::kFreeBatch) {
      EXPECT_TRUE(Freed(refs, /*all=*/false).empty()) << i;
    }
  }
  auto freed = Freed(refs, /*all=*/false);
  EXPECT_EQ(freed.size(), ReferenceCounter::kFreeBatch);
  EXPECT_TRUE(Has(freed, ids.front()));

  ObjectId one = Id(9999);
  refs.Own(one);
  refs.RefDelta(one, +1);
  refs.RefDelta(one, -1);
  EXPECT_TRUE(Freed(refs, /*all=*/false).empty());
  EXPECT_EQ(Freed(refs, /*all=*/true).size(), 1u);
}

TEST(ReferenceCounterTest, EscapedDirectResultsArePromotedOnce) {
  ReferenceCounter refs;
  ObjectId direct = Id(1), via_raylet = Id(2), handed_over = Id(3);
  refs.Own(direct, /*direct=*/true);
  refs.Own(via_raylet);
  refs.Own(handed_over, /*direct=*/true);
  refs.ClearDirect({handed_over});
  refs.RefEscaped(direct);
  refs.RefEscaped(direct);
  refs.RefEscaped(via_raylet);
  refs.RefEscaped(handed_over);
  auto promote = refs.TakeEscapedDirect();
  ASSERT_EQ(promote.size(), 1u);
  EXPECT_EQ(promote[0], direct);
  EXPECT_TRUE(refs.TakeEscapedDirect().empty());
}

}  // namespace
}  // namespace ray::core
