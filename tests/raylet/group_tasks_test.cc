#include "runtime/raylet/group_tasks.h"

#include <gtest/gtest.h>

#include <string>

#include "runtime/scheduler/bundle_resources.h"

namespace ray::raylet {
namespace {

namespace ri = ray::internal;

const std::string kGroup(36, 'c');

// A task of `cpus` CPUs in bundle `index` of kGroup, as its submitter renamed it.
protocol::TaskSpec InBundle(double cpus, int32_t index, uint8_t kind = ri::kNormalTask) {
  protocol::TaskSpec t;
  t.kind = kind;
  t.function = "f";
  t.placement_group_id = kGroup;
  t.bundle_index = index;
  t.resources = scheduler::BundleRequest({{"CPU", cpus}}, kGroup, index);
  return t;
}

gcs::PlacementGroupRecord Group(std::string state = gcs::kPgPending) {
  gcs::PlacementGroupRecord pg;
  pg.pg_id = kGroup;
  pg.bundles = {{{"CPU", 1}}, {{"CPU", 4}}};
  pg.state = std::move(state);
  return pg;
}

TEST(GroupTasksTest, WorkThatFitsABundleOfALiveGroupWaits) {
  gcs::PlacementGroupRecord pg = Group();
  EXPECT_FALSE(WhyNeverInGroup(InBundle(1, 0), &pg));
  EXPECT_FALSE(WhyNeverInGroup(InBundle(4, 1), &pg));
  EXPECT_FALSE(WhyNeverInGroup(InBundle(3, -1), &pg)) << "bundle 1 holds it";
  pg.state = gcs::kPgRescheduling;
  EXPECT_FALSE(WhyNeverInGroup(InBundle(1, 0), &pg));
}

TEST(GroupTasksTest, WorkOfAGroupThatIsGoneFailsWithRaysErrorType) {
  auto never = WhyNeverInGroup(InBundle(1, 0), nullptr);
  ASSERT_TRUE(never);
  EXPECT_EQ(never->type, "TaskPlacementGroupRemoved");
  EXPECT_EQ(never->why, "task f cannot run: no placement group " + kGroup);

  gcs::PlacementGroupRecord pg = Group(gcs::kPgRemoved);
  pg.detail = "removed by its job";
  never = WhyNeverInGroup(InBundle(1, 0, ri::kActorCreation), &pg);
  ASSERT_TRUE(never);
  EXPECT_EQ(never->type, "ActorPlacementGroupRemoved");
  EXPECT_EQ(never->why, "actor f cannot run: its placement group " + kGroup +
                            " was removed (removed by its job)");
}

TEST(GroupTasksTest, WorkNoBundleItMayUseCanHoldFails) {
  gcs::PlacementGroupRecord pg = Group();
  auto never = WhyNeverInGroup(InBundle(1, 2), &pg);
  ASSERT_TRUE(never);
  EXPECT_EQ(never->type, "TaskUnschedulableError");
  EXPECT_NE(never->why.find("bundle index 2 is out of range (placement group " + kGroup +
                            " has 2 bundles)"),
            std::string::npos);

  never = WhyNeverInGroup(InBundle(2, 0, ri::kActorCreation), &pg);
  ASSERT_TRUE(never);
  EXPECT_EQ(never->type, "ActorUnschedulableError");
  EXPECT_NE(never->why.find("actor f requires {\"CPU\": 2}, more than bundle 0 ({\"CPU\": 1})"),
            std::string::npos)
      << never->why;

  never = WhyNeverInGroup(InBundle(5, -1), &pg);
  ASSERT_TRUE(never);
  EXPECT_NE(never->why.find("more than any of its bundles"), std::string::npos) << never->why;
}

}  // namespace
}  // namespace ray::raylet
