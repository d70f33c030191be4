#include "runtime/api/reference_counter.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace ray::core {
namespace {

ObjectId Id(uint32_t i) { return ObjectId::ForPut(TaskId::FromRandom(), i); }

bool Has(const std::vector<ObjectId>& ids, const ObjectId& id) {
  return std::find(ids.begin(), ids.end(), id) != ids.end();
}

TEST(ReferenceCounterTest, FreesAnOwnedObjectWhenItsLastRefGoes) {
  ReferenceCounter refs;
  ObjectId id = Id(1);
  refs.Own(id);
  refs.RefDelta(id, +2);
  refs.RefDelta(id, -1);
  EXPECT_TRUE(refs.TakeUnreferenced(/*all=*/true).empty());
  refs.RefDelta(id, -1);
  auto freed = refs.TakeUnreferenced(/*all=*/true);
  ASSERT_EQ(freed.size(), 1u);
  EXPECT_EQ(freed[0], id);
  // Forgotten: a later delta is not counted, and nothing is freed twice.
  refs.RefDelta(id, -1);
  EXPECT_TRUE(refs.TakeUnreferenced(/*all=*/true).empty());
}

TEST(ReferenceCounterTest, NeverFreesWhatItDoesNotOwnOrWhatEscaped) {
  ReferenceCounter refs;
  ObjectId foreign = Id(1), escaped = Id(2);
  refs.RefDelta(foreign, +1);
  refs.RefDelta(foreign, -1);
  refs.Own(escaped);
  refs.RefDelta(escaped, +1);
  refs.RefEscaped(escaped);
  refs.RefDelta(escaped, -1);
  EXPECT_TRUE(refs.TakeUnreferenced(/*all=*/true).empty());
}

TEST(ReferenceCounterTest, ARefMadeAgainBeforeTheFreeKeepsTheObject) {
  ReferenceCounter refs;
  ObjectId id = Id(1);
  refs.Own(id);
  refs.RefDelta(id, +1);
  refs.RefDelta(id, -1);  // due...
  refs.RefDelta(id, +1);  // ...but referenced again before it is taken
  EXPECT_TRUE(refs.TakeUnreferenced(/*all=*/true).empty());
  refs.RefDelta(id, -1);
  EXPECT_EQ(refs.TakeUnreferenced(/*all=*/true).size(), 1u);
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
      EXPECT_TRUE(refs.TakeUnreferenced(/*all=*/false).empty()) << i;
    }
  }
  auto freed = refs.TakeUnreferenced(/*all=*/false);
  EXPECT_EQ(freed.size(), ReferenceCounter::kFreeBatch);
  EXPECT_TRUE(Has(freed, ids.front()));

  ObjectId one = Id(9999);
  refs.Own(one);
  refs.RefDelta(one, +1);
  refs.RefDelta(one, -1);
  EXPECT_TRUE(refs.TakeUnreferenced(/*all=*/false).empty());
  EXPECT_EQ(refs.TakeUnreferenced(/*all=*/true).size(), 1u);
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
