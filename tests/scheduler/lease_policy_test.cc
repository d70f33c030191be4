#include "runtime/scheduler/lease_policy.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "tests/test_util/named_ids.h"

namespace ray::scheduler {
namespace {

using Amounts = std::map<std::string, double>;
using Answer = LeasePolicy::Answer;

ResourceSet Shape(Amounts a) { return ResourceSet::FromDoubles(a); }

const ResourceSet kOneCpu = Shape({{"CPU", 1}});

TaskSpec Task(Amounts resources) {
  TaskSpec t;
  t.task_id = test_util::TaskNamed("t");
  t.resources = std::move(resources);
  return t;
}

TEST(LeasePolicyTest, GrantsWhenResourcesAreFreeAndNothingWaits) {
  LeasePolicy leases;
  LocalTaskQueue queue;
  EXPECT_EQ(leases.Decide(kOneCpu, queue, Shape({{"CPU", 2}})), Answer::kMayGrant);
  EXPECT_EQ(leases.Decide(kOneCpu, queue, Shape({})), Answer::kBusy);
}

TEST(LeasePolicyTest, NoGpuLeases) {
  LeasePolicy leases;
  LocalTaskQueue queue;
  EXPECT_EQ(leases.Decide(Shape({{"CPU", 1}, {"GPU", 0.5}}), queue,
                          Shape({{"CPU", 2}, {"GPU", 1}})),
            Answer::kNotNow);
}

TEST(LeasePolicyTest, QueuedTasksOfTheShapeGoFirst) {
  LeasePolicy leases;
  LocalTaskQueue queue;
  queue.Push(kOneCpu, Task({}));
  EXPECT_EQ(leases.Decide(kOneCpu, queue, Shape({{"CPU", 2}})), Answer::kNotNow);
  // Another shape waiting does not stop the lease unless it waits for leased resources.
  EXPECT_EQ(leases.Decide(Shape({{"CPU", 2}}), queue, Shape({{"CPU", 2}})),
            Answer::kMayGrant);
}

TEST(LeasePolicyTest, QueueWaitsForLeasesOnlyIfTheLeasesWouldMakeRoom) {
  LeasePolicy leases;
  LocalTaskQueue queue;
  queue.Push(Shape({{"CPU", 2}}), Task({{"CPU", 2}}));
  ResourceSet available = kOneCpu;
  EXPECT_FALSE(leases.QueueWaitsForLeases(queue, available));
  leases.Granted("w1", kOneCpu);
  EXPECT_TRUE(leases.QueueWaitsForLeases(queue, available));
  // A leased worker blocked in a Get lends its CPU back: no longer counted as leased.
  leases.Lent(kOneCpu);
  EXPECT_FALSE(leases.QueueWaitsForLeases(queue, available));
  leases.Reacquired(kOneCpu);
  EXPECT_TRUE(leases.QueueWaitsForLeases(queue, available));
  // The shape fits without the leases: it does not wait for them.
  EXPECT_FALSE(leases.QueueWaitsForLeases(queue, Shape({{"CPU", 2}})));
  // No lease while the queue waits for leased resources.
  EXPECT_EQ(leases.Decide(Shape({{"CPU", 0.5}}), queue, available), Answer::kNotNow);
  leases.Ended("w1", kOneCpu);
  EXPECT_EQ(leases.leased().Amount("CPU"), 0);
  EXPECT_FALSE(leases.QueueWaitsForLeases(queue, available));
}

TEST(LeasePolicyTest, LeasedWorkersAreAskedToYieldOnceWhenTheQueueWaitsForThem) {
  LeasePolicy leases;
  LocalTaskQueue queue;
  leases.Granted("w1", kOneCpu);
  leases.Granted("w2", kOneCpu);
  EXPECT_TRUE(leases.TakeToYield(queue, Shape({})).empty());  // nothing waits
  queue.Push(Shape({{"CPU", 2}}), Task({{"CPU", 2}}));
  auto ask = leases.TakeToYield(queue, Shape({}));
  std::sort(ask.begin(), ask.end());
  EXPECT_EQ(ask, (std::vector<std::string>{"w1", "w2"}));
  EXPECT_TRUE(leases.TakeToYield(queue, Shape({})).empty());  // asked already
  // A new lease is asked again; one that ended is not.
  leases.Granted("w3", kOneCpu);
  leases.Granted("w4", kOneCpu);
  leases.Ended("w4", kOneCpu);
  EXPECT_EQ(leases.TakeToYield(queue, Shape({})), (std::vector<std::string>{"w3"}));
}

TEST(LeasePolicyTest, OffersAWantedLeaseOnceResourcesFree) {
  LeasePolicy leases;
  LocalTaskQueue queue;
  leases.Wanted({"c1", kOneCpu, "r1"});
  leases.Wanted({"c1", kOneCpu, "again"});  // the same want: ignored
  EXPECT_TRUE(leases.HasWants());
  EXPECT_FALSE(leases.NextOffer(queue, Shape({})).has_value());  // every CPU taken
  auto offer = leases.NextOffer(queue, kOneCpu);
  ASSERT_TRUE(offer.has_value());
  EXPECT_EQ(offer->caller, "c1");
  EXPECT_EQ(offer->request, "r1");
  leases.Offered("c1", kOneCpu);
  EXPECT_FALSE(leases.HasWants());
  EXPECT_FALSE(leases.NextOffer(queue, kOneCpu).has_value());
}

TEST(LeasePolicyTest, OffersFollowDecide) {
  LeasePolicy leases;
  LocalTaskQueue queue;
  leases.Wanted({"c1", Shape({{"CPU", 2}}), ""});
  leases.Wanted({"c2", kOneCpu, ""});
  // The oldest want that fits goes first; one that does not fit waits.
  auto offer = leases.NextOffer(queue, kOneCpu);
  ASSERT_TRUE(offer.has_value());
  EXPECT_EQ(offer->caller, "c2");
  // Tasks queued in the raylet for the shape go first; no GPU leases.
  queue.Push(kOneCpu, Task({}));
  EXPECT_FALSE(leases.NextOffer(queue, kOneCpu).has_value());
  LeasePolicy gpu;
  gpu.Wanted({"c3", Shape({{"CPU", 1}, {"GPU", 1}}), ""});
  EXPECT_FALSE(gpu.NextOffer(LocalTaskQueue(), Shape({{"CPU", 4}, {"GPU", 4}})).has_value());
}

TEST(LeasePolicyTest, AGoneCallersWantsGo) {
  LeasePolicy leases;
  leases.Wanted({"c1", kOneCpu, ""});
  leases.Wanted({"c1", Shape({{"CPU", 2}}), ""});
  leases.Wanted({"c2", kOneCpu, ""});
  leases.Forget("c1");
  auto offer = leases.NextOffer(LocalTaskQueue(), Shape({{"CPU", 2}}));
  ASSERT_TRUE(offer.has_value());
  EXPECT_EQ(offer->caller, "c2");
}

}  // namespace
}  // namespace ray::scheduler
