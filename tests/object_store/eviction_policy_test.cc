#include "runtime/object_store/eviction_policy.h"

#include <gtest/gtest.h>

#include <unordered_set>

namespace ray::object_store {
namespace {

class EvictionPolicyTest : public ::testing::Test {
 protected:
  ObjectId Add(size_t size, bool referenced) {
    ObjectId id = ObjectId::FromRandom();
    policy_.Add(id, size, referenced);
    return id;
  }
  std::optional<EvictionPolicy::Plan> MakeRoom(size_t needed) {
    return policy_.MakeRoom(needed, [&](const ObjectId& id) { return pinned_.count(id) > 0; });
  }

  EvictionPolicy policy_;
  std::unordered_set<ObjectId, IdHash> pinned_;
};

using Ids = std::vector<ObjectId>;

TEST_F(EvictionPolicyTest, NothingNeededIsAnEmptyPlan) {
  Add(10, false);
  auto plan = MakeRoom(0);
  ASSERT_TRUE(plan);
  EXPECT_TRUE(plan->evict.empty());
  EXPECT_TRUE(plan->spill.empty());
  EXPECT_TRUE(EvictionPolicy().MakeRoom(0, [](const ObjectId&) { return false; }));
}

TEST_F(EvictionPolicyTest, EvictsLeastRecentlyUsedFirstAndStopsWhenEnough) {
  ObjectId a = Add(10, false), b = Add(10, false), c = Add(10, false);
  auto plan = MakeRoom(15);
  ASSERT_TRUE(plan);
  EXPECT_EQ(plan->evict, (Ids{a, b}));
  EXPECT_TRUE(plan->spill.empty());
  EXPECT_EQ(plan->freed_bytes, 20u);
  (void)c;
}

TEST_F(EvictionPolicyTest, TouchMakesAnObjectTheMostRecentlyUsed) {
  ObjectId a = Add(10, false), b = Add(10, false), c = Add(10, false);
  policy_.Touch(a);
  EXPECT_EQ(MakeRoom(25)->evict, (Ids{b, c, a}));
  policy_.Touch(ObjectId::FromRandom());  // unknown: no effect
  EXPECT_EQ(policy_.size(), 3u);
}

TEST_F(EvictionPolicyTest, EvictsEveryUnreferencedObjectBeforeSpillingAReferencedOne) {
  ObjectId r1 = Add(10, true), u1 = Add(10, false), r2 = Add(10, true), u2 = Add(10, false);
  auto plan = MakeRoom(20);
  ASSERT_TRUE(plan);
  EXPECT_EQ(plan->evict, (Ids{u1, u2}));
  EXPECT_TRUE(plan->spill.empty());

  plan = MakeRoom(30);
  ASSERT_TRUE(plan);
  EXPECT_EQ(plan->evict, (Ids{u1, u2}));
  EXPECT_EQ(plan->spill, (Ids{r1})) << "then referenced ones, least recently used first";
  (void)r2;
}

TEST_F(EvictionPolicyTest, PinnedObjectsAreNeverChosen) {
  ObjectId u1 = Add(10, false), r1 = Add(10, true), u2 = Add(10, false), r2 = Add(10, true);
  pinned_ = {u1, r1};
  auto plan = MakeRoom(20);
  ASSERT_TRUE(plan);
  EXPECT_EQ(plan->evict, (Ids{u2}));
  EXPECT_EQ(plan->spill, (Ids{r2}));
  EXPECT_EQ(policy_.PinnedBytes([&](const ObjectId& id) { return pinned_.count(id) > 0; }), 20u);
}

TEST_F(EvictionPolicyTest, NoPlanWhenTheUnpinnedObjectsHoldTooLittle) {
  ObjectId a = Add(10, false);
  Add(10, true);
  pinned_ = {a};
  EXPECT_FALSE(MakeRoom(11));
  EXPECT_TRUE(MakeRoom(10));
}

TEST_F(EvictionPolicyTest, RemovedObjectsAreForgotten) {
  ObjectId a = Add(10, false), b = Add(10, false);
  policy_.Remove(a);
  policy_.Remove(a);  // twice: no effect
  EXPECT_EQ(policy_.size(), 1u);
  EXPECT_EQ(MakeRoom(10)->evict, (Ids{b}));
  EXPECT_FALSE(MakeRoom(11));
}

TEST_F(EvictionPolicyTest, AddingAgainReplacesTheEntry) {
  ObjectId a = Add(10, false), b = Add(10, false);
  policy_.Add(a, 30, true);  // now referenced, larger, most recently used
  auto plan = MakeRoom(40);
  ASSERT_TRUE(plan);
  EXPECT_EQ(plan->evict, (Ids{b}));
  EXPECT_EQ(plan->spill, (Ids{a}));
  EXPECT_EQ(plan->freed_bytes, 40u);
}

}  // namespace
}  // namespace ray::object_store
