#include "runtime/scheduler/autoscaling_policy.h"

#include <gtest/gtest.h>

namespace ray::scheduler {
namespace {

using Amounts = std::map<std::string, double>;
using Launches = std::map<std::string, int>;

NodeTypeSpec Type(std::string name, Amounts resources, int min_workers, int max_workers) {
  return {std::move(name), std::move(resources), min_workers, max_workers};
}

WorkerNodeView Running(std::string id, std::string type, Amounts total, Amounts available,
                       double idle_s = 0) {
  WorkerNodeView w;
  w.id = std::move(id);
  w.type = std::move(type);
  w.ray_running = true;
  w.total = std::move(total);
  w.available = std::move(available);
  w.idle_s = idle_s;
  return w;
}

WorkerNodeView Idle(std::string id, std::string type, Amounts total, double idle_s) {
  return Running(std::move(id), std::move(type), total, total, idle_s);
}

WorkerNodeView Launching(std::string id, std::string type) {
  WorkerNodeView w;
  w.id = std::move(id);
  w.type = std::move(type);
  return w;
}

std::vector<Amounts> Times(int n, const Amounts& shape) { return std::vector<Amounts>(n, shape); }

// A config with one worker type and a head whose CPUs are all in use.
struct Cluster {
  AutoscalingConfig config;
  AutoscalingInput input;
};

Cluster BusyHead(std::vector<NodeTypeSpec> types, int max_workers = 10) {
  Cluster c;
  c.config.worker_types = std::move(types);
  c.config.max_workers = max_workers;
  c.input.head_total = {{"CPU", 2}};
  c.input.head_available = {{"CPU", 0}};
  return c;
}

std::map<std::string, std::string> Reasons(const AutoscalingDecision& d) {
  std::map<std::string, std::string> out;
  for (const auto& t : d.to_terminate) out[t.node_id] = t.reason;
  return out;
}

TEST(AutoscalingPolicyTest, MinWorkersAreLaunchedThenStableOnceListed) {
  Cluster c = BusyHead({Type("w", {{"CPU", 2}}, 2, 2)}, 2);
  EXPECT_EQ(Decide(c.config, c.input).to_launch, (Launches{{"w", 2}}));

  c.input.launches_in_flight = {{"w", 2}};
  EXPECT_TRUE(Decide(c.config, c.input).to_launch.empty());

  c.input.launches_in_flight.clear();
  c.input.workers = {Launching("a", "w"), Launching("b", "w")};
  EXPECT_TRUE(Decide(c.config, c.input).to_launch.empty());

  c.input.workers = {Idle("a", "w", {{"CPU", 2}}, 1000), Idle("b", "w", {{"CPU", 2}}, 1000)};
  AutoscalingDecision d = Decide(c.config, c.input);
  EXPECT_TRUE(d.to_launch.empty());
  EXPECT_TRUE(d.to_terminate.empty());  // idle, but min_workers keeps them
}

TEST(AutoscalingPolicyTest, NodesLaunchedForMinWorkersAlsoHoldTheDemand) {
  Cluster c = BusyHead({Type("w", {{"CPU", 2}}, 1, 5)});
  c.input.demand = Times(2, {{"CPU", 1}});
  EXPECT_EQ(Decide(c.config, c.input).to_launch, (Launches{{"w", 1}}));

  c.input.demand = Times(3, {{"CPU", 1}});
  EXPECT_EQ(Decide(c.config, c.input).to_launch, (Launches{{"w", 2}}));
}

TEST(AutoscalingPolicyTest, DemandTheHeadCannotHoldLaunchesOneNodeThatFits) {
  Cluster c = BusyHead({Type("cpu4", {{"CPU", 4}}, 0, 5)});
  c.input.demand = {{{"CPU", 3}}};
  EXPECT_EQ(Decide(c.config, c.input).to_launch, (Launches{{"cpu4", 1}}));
}

TEST(AutoscalingPolicyTest, DemandTheHeadCanHoldLaunchesNothing) {
  Cluster c = BusyHead({Type("cpu4", {{"CPU", 4}}, 0, 5)});
  c.input.head_available = {{"CPU", 3}};
  c.input.demand = {{{"CPU", 3}}};
  EXPECT_TRUE(Decide(c.config, c.input).to_launch.empty());
}

TEST(AutoscalingPolicyTest, TenOneCpuTasksOnTwoCpuNodesPackTwoPerNode) {
  Cluster c = BusyHead({Type("w", {{"CPU", 2}}, 0, 10)});
  c.config.max_launch_batch = 10;
  c.input.demand = Times(10, {{"CPU", 1}});
  EXPECT_EQ(Decide(c.config, c.input).to_launch, (Launches{{"w", 5}}));
}

TEST(AutoscalingPolicyTest, TenOneCpuTasksStopAtMaxWorkers) {
  Cluster c = BusyHead({Type("w", {{"CPU", 2}}, 0, 10)}, 3);
  c.input.demand = Times(10, {{"CPU", 1}});
  EXPECT_EQ(Decide(c.config, c.input).to_launch, (Launches{{"w", 3}}));

  c.config.max_workers = 10;
  c.config.worker_types[0].max_workers = 2;  // the type's own max
  EXPECT_EQ(Decide(c.config, c.input).to_launch, (Launches{{"w", 2}}));
}

TEST(AutoscalingPolicyTest, LargerDemandsArePackedFirst) {
  // First-fit of 2, 2, 1 onto free {2} and {3} fits; in the order 1, 2, 2 it would not.
  Cluster c = BusyHead({Type("w", {{"CPU", 3}}, 0, 10)});
  c.input.head_available = {{"CPU", 2}};
  c.input.workers = {Running("a", "w", {{"CPU", 3}}, {{"CPU", 3}})};
  c.input.demand = {{{"CPU", 1}}, {{"CPU", 2}}, {{"CPU", 2}}};
  EXPECT_TRUE(Decide(c.config, c.input).to_launch.empty());
}

TEST(AutoscalingPolicyTest, GpuDemandPicksTheGpuType) {
  Cluster c =
      BusyHead({Type("cpu", {{"CPU", 4}}, 0, 5), Type("gpu", {{"CPU", 4}, {"GPU", 1}}, 0, 5)});
  c.input.demand = {{{"CPU", 1}, {"GPU", 1}}};
  EXPECT_EQ(Decide(c.config, c.input).to_launch, (Launches{{"gpu", 1}}));
}

TEST(AutoscalingPolicyTest, CpuDemandAvoidsTheGpuType) {
  Cluster c =
      BusyHead({Type("gpu", {{"CPU", 16}, {"GPU", 1}}, 0, 5), Type("cpu", {{"CPU", 2}}, 0, 5)});
  c.input.demand = Times(4, {{"CPU", 1}});
  EXPECT_EQ(Decide(c.config, c.input).to_launch, (Launches{{"cpu", 2}}));
}

TEST(AutoscalingPolicyTest, ACpuNodeIsPreferredForWorkWithoutGpusEvenIfTheGpuNodeMatchesMore) {
  // The GPU node shares two kinds with the demand (CPU, ssd), the CPU node one; without
  // the GPU rule one GPU node would take both demands.
  Cluster c = BusyHead(
      {Type("cpu", {{"CPU", 4}}, 0, 5), Type("gpu", {{"CPU", 4}, {"GPU", 1}, {"ssd", 1}}, 0, 5)});
  c.input.demand = {{{"CPU", 1}}, {{"CPU", 1}, {"ssd", 1}}};
  EXPECT_EQ(Decide(c.config, c.input).to_launch, (Launches{{"cpu", 1}, {"gpu", 1}}));
}

TEST(AutoscalingPolicyTest, ATypeMatchingMoreResourceKindsWins) {
  // "plain" fills its CPUs better for the first demand, but "mem" holds both kinds.
  Cluster c =
      BusyHead({Type("plain", {{"CPU", 4}}, 0, 5), Type("mem", {{"CPU", 4}, {"mem", 4}}, 0, 5)});
  c.input.demand = {{{"CPU", 2}}, {{"CPU", 1}, {"mem", 1}}};
  EXPECT_EQ(Decide(c.config, c.input).to_launch, (Launches{{"mem", 1}}));
}

TEST(AutoscalingPolicyTest, TheTypeTheDemandFillsBestWins) {
  Cluster c = BusyHead({Type("big", {{"CPU", 16}}, 0, 5), Type("small", {{"CPU", 2}}, 0, 5)});
  c.input.demand = Times(2, {{"CPU", 1}});
  EXPECT_EQ(Decide(c.config, c.input).to_launch, (Launches{{"small", 1}}));

  c.input.demand = Times(16, {{"CPU", 1}});
  EXPECT_EQ(Decide(c.config, c.input).to_launch, (Launches{{"big", 1}}));
}

TEST(AutoscalingPolicyTest, FullNodesBeatALargerNodeLeftPartlyEmpty) {
  // Utilisation counts cubed: 2 x 4 CPUs at 100% beat 1 x 8 CPUs at 75%.
  Cluster c = BusyHead({Type("cpu8", {{"CPU", 8}}, 0, 5), Type("cpu4", {{"CPU", 4}}, 0, 5)});
  c.input.demand = Times(6, {{"CPU", 1}});
  EXPECT_EQ(Decide(c.config, c.input).to_launch, (Launches{{"cpu4", 2}}));
}

TEST(AutoscalingPolicyTest, TheLeastUsedResourceDecidesBeforeTheMean) {
  // "skewed" uses all its CPUs but a quarter of its memory (higher mean, lower min).
  Cluster c = BusyHead({Type("skewed", {{"CPU", 2}, {"mem", 8}}, 0, 5),
                        Type("even", {{"CPU", 4}, {"mem", 4}}, 0, 5)});
  c.input.demand = Times(2, {{"CPU", 1}, {"mem", 1}});
  EXPECT_EQ(Decide(c.config, c.input).to_launch, (Launches{{"even", 1}}));
}

TEST(AutoscalingPolicyTest, InfeasibleShapesAreReportedOnceAndNothingIsLaunched) {
  Cluster c = BusyHead({Type("w", {{"CPU", 4}}, 0, 5)});
  c.input.demand = {{{"CPU", 100}}, {{"CPU", 100}}, {{"GPU", 1}}};
  AutoscalingDecision d = Decide(c.config, c.input);
  EXPECT_TRUE(d.to_launch.empty());
  EXPECT_EQ(d.infeasible, (std::vector<Amounts>{{{"CPU", 100}}, {{"GPU", 1}}}));
}

TEST(AutoscalingPolicyTest, DemandOnlyATypeWithMaxZeroFitsIsInfeasible) {
  Cluster c = BusyHead({Type("w", {{"CPU", 4}}, 0, 5), Type("gpu", {{"GPU", 1}}, 0, 0)});
  c.input.demand = {{{"GPU", 1}}, {{"CPU", 2}}};
  AutoscalingDecision d = Decide(c.config, c.input);
  EXPECT_EQ(d.infeasible, (std::vector<Amounts>{{{"GPU", 1}}}));
  EXPECT_EQ(d.to_launch, (Launches{{"w", 1}}));
}

TEST(AutoscalingPolicyTest, DemandThatFitsOnlyTheHeadIsNotInfeasible) {
  Cluster c = BusyHead({Type("w", {{"CPU", 1}}, 0, 5)});
  c.input.demand = {{{"CPU", 2}}};  // the head has 2 CPUs, busy now
  AutoscalingDecision d = Decide(c.config, c.input);
  EXPECT_TRUE(d.infeasible.empty());
  EXPECT_TRUE(d.to_launch.empty());
}

TEST(AutoscalingPolicyTest, AnIdleNodeIsRemovedOnlyAfterTheTimeout) {
  Cluster c = BusyHead({Type("w", {{"CPU", 2}}, 0, 5)});
  c.input.workers = {Idle("a", "w", {{"CPU", 2}}, 299)};
  EXPECT_TRUE(Decide(c.config, c.input).to_terminate.empty());

  c.input.workers = {Idle("a", "w", {{"CPU", 2}}, 300)};
  EXPECT_EQ(Reasons(Decide(c.config, c.input)),
            (std::map<std::string, std::string>{{"a", "idle"}}));
}

TEST(AutoscalingPolicyTest, ANodeWithSomethingInUseIsNotIdle) {
  Cluster c = BusyHead({Type("w", {{"CPU", 2}}, 0, 5)});
  c.input.workers = {Running("a", "w", {{"CPU", 2}}, {{"CPU", 1}}, 1000)};
  EXPECT_TRUE(Decide(c.config, c.input).to_terminate.empty());
}

TEST(AutoscalingPolicyTest, IdleNodesAreNotRemovedBelowMinWorkersLongestIdleGoesFirst) {
  Cluster c = BusyHead({Type("w", {{"CPU", 2}}, 2, 5)});
  c.input.workers = {Idle("a", "w", {{"CPU", 2}}, 400), Idle("b", "w", {{"CPU", 2}}, 900),
                     Idle("c", "w", {{"CPU", 2}}, 500)};
  AutoscalingDecision d = Decide(c.config, c.input);
  EXPECT_EQ(Reasons(d), (std::map<std::string, std::string>{{"b", "idle"}}));
  EXPECT_TRUE(d.to_launch.empty());
}

TEST(AutoscalingPolicyTest, AnIdleNodeTheDemandNeedsIsKept) {
  Cluster c = BusyHead({Type("w", {{"CPU", 2}}, 0, 5)});
  c.input.workers = {Idle("a", "w", {{"CPU", 2}}, 1000), Idle("b", "w", {{"CPU", 2}}, 2000)};
  c.input.demand = {{{"CPU", 1}}};
  AutoscalingDecision d = Decide(c.config, c.input);
  // The most recently used candidate takes the demand; the other one goes.
  EXPECT_EQ(Reasons(d), (std::map<std::string, std::string>{{"b", "idle"}}));
  EXPECT_TRUE(d.to_launch.empty());
}

TEST(AutoscalingPolicyTest, BrokenNodesAreRemovedAndReplacedForMinWorkers) {
  Cluster c = BusyHead({Type("w", {{"CPU", 2}}, 3, 5)});
  WorkerNodeView failed = Launching("f", "w");
  failed.failed = true;
  WorkerNodeView outdated = Running("o", "w", {{"CPU", 2}}, {{"CPU", 0}});
  outdated.outdated = true;
  c.input.workers = {failed, outdated, Launching("u", "gone"), Launching("e", ""),
                     Launching("ok", "w")};
  AutoscalingDecision d = Decide(c.config, c.input);
  EXPECT_EQ(Reasons(d), (std::map<std::string, std::string>{{"f", "launch failed"},
                                                            {"o", "outdated"},
                                                            {"u", "unknown type"},
                                                            {"e", "unknown type"}}));
  EXPECT_EQ(d.to_launch, (Launches{{"w", 2}}));
}

TEST(AutoscalingPolicyTest, LoweringMaxWorkersRemovesTheExcessNotRunningAndIdleFirst) {
  Cluster c = BusyHead({Type("w", {{"CPU", 2}}, 0, 10)}, 2);
  c.input.workers = {Running("busy1", "w", {{"CPU", 2}}, {{"CPU", 0}}),
                     Idle("idle", "w", {{"CPU", 2}}, 10), Launching("new", "w"),
                     Running("busy2", "w", {{"CPU", 2}}, {{"CPU", 1}})};
  AutoscalingDecision d = Decide(c.config, c.input);
  EXPECT_EQ(Reasons(d),
            (std::map<std::string, std::string>{{"new", "max workers"}, {"idle", "max workers"}}));
  EXPECT_TRUE(d.to_launch.empty());
}

TEST(AutoscalingPolicyTest, ATypesMaxWorkersRemovesTheExcessOfThatType) {
  Cluster c = BusyHead({Type("a", {{"CPU", 2}}, 0, 1), Type("b", {{"CPU", 2}}, 0, 5)});
  c.input.workers = {Running("a1", "a", {{"CPU", 2}}, {{"CPU", 0}}),
                     Idle("a2", "a", {{"CPU", 2}}, 5),
                     Running("b1", "b", {{"CPU", 2}}, {{"CPU", 0}})};
  EXPECT_EQ(Reasons(Decide(c.config, c.input)),
            (std::map<std::string, std::string>{{"a2", "max workers"}}));
}

TEST(AutoscalingPolicyTest, MinWorkersLaunchInWavesOfTheConcurrencyLimit) {
  Cluster c = BusyHead({Type("w", {{"CPU", 2}}, 10, 10)});
  c.config.max_concurrent_launches = 5;
  EXPECT_EQ(Decide(c.config, c.input).to_launch, (Launches{{"w", 5}}));

  c.input.launches_in_flight = {{"w", 5}};
  EXPECT_TRUE(Decide(c.config, c.input).to_launch.empty());

  c.input.launches_in_flight.clear();
  for (int i = 0; i < 5; ++i) c.input.workers.push_back(Launching("n" + std::to_string(i), "w"));
  EXPECT_EQ(Decide(c.config, c.input).to_launch, (Launches{{"w", 5}}));
}

TEST(AutoscalingPolicyTest, MinWorkersLaunchesBypassTheRateLimitButNotTheGlobalMax) {
  Cluster c = BusyHead({Type("w", {{"CPU", 2}}, 8, 10)});
  EXPECT_EQ(Decide(c.config, c.input).to_launch, (Launches{{"w", 8}}));

  c.config.max_workers = 3;
  EXPECT_EQ(Decide(c.config, c.input).to_launch, (Launches{{"w", 3}}));
}

TEST(AutoscalingPolicyTest, DemandLaunchesComeInWavesOfTheBatchWhileNodesArePending) {
  Cluster c = BusyHead({Type("w", {{"CPU", 1}}, 0, 10)});
  c.input.demand = Times(10, {{"CPU", 1}});
  EXPECT_EQ(Decide(c.config, c.input).to_launch, (Launches{{"w", 5}}));

  for (int i = 0; i < 5; ++i) c.input.workers.push_back(Launching("n" + std::to_string(i), "w"));
  EXPECT_TRUE(Decide(c.config, c.input).to_launch.empty());

  c.input.workers.clear();
  for (int i = 0; i < 5; ++i) {
    c.input.workers.push_back(Running("n" + std::to_string(i), "w", {{"CPU", 1}}, {{"CPU", 0}}));
  }
  c.input.demand = Times(5, {{"CPU", 1}});  // the other five run now
  EXPECT_EQ(Decide(c.config, c.input).to_launch, (Launches{{"w", 5}}));
}

TEST(AutoscalingPolicyTest, LaunchesInFlightAndLaunchingNodesCountAsCapacity) {
  Cluster c = BusyHead({Type("cpu4", {{"CPU", 4}}, 0, 5)});
  c.input.demand = {{{"CPU", 3}}};
  c.input.launches_in_flight = {{"cpu4", 1}};
  EXPECT_TRUE(Decide(c.config, c.input).to_launch.empty());

  c.input.launches_in_flight.clear();
  c.input.workers = {Launching("a", "cpu4")};
  EXPECT_TRUE(Decide(c.config, c.input).to_launch.empty());

  c.input.demand = {{{"CPU", 3}}, {{"CPU", 3}}};
  EXPECT_EQ(Decide(c.config, c.input).to_launch, (Launches{{"cpu4", 1}}));
}

TEST(AutoscalingPolicyTest, UpscalingSpeedScalesThePendingLimitWithRunningNodes) {
  Cluster c = BusyHead({Type("w", {{"CPU", 1}}, 0, 100)}, 100);
  for (int i = 0; i < 10; ++i) {
    c.input.workers.push_back(Running("r" + std::to_string(i), "w", {{"CPU", 1}}, {{"CPU", 0}}));
  }
  c.input.demand = Times(50, {{"CPU", 1}});
  c.config.max_concurrent_launches = 100;
  EXPECT_EQ(Decide(c.config, c.input).to_launch, (Launches{{"w", 10}}));

  c.config.upscaling_speed = 2;
  EXPECT_EQ(Decide(c.config, c.input).to_launch, (Launches{{"w", 20}}));

  c.config.upscaling_speed = 0.1;  // never below max_launch_batch
  EXPECT_EQ(Decide(c.config, c.input).to_launch, (Launches{{"w", 5}}));

  c.config.upscaling_speed = 1;
  c.input.launches_in_flight = {{"w", 3}};  // pending nodes use up the allowance
  EXPECT_EQ(Decide(c.config, c.input).to_launch, (Launches{{"w", 7}}));
}

Cluster UtilizationCluster() {
  Cluster c = BusyHead({Type("w", {{"CPU", 2}}, 0, 10)});
  c.config.target_utilization_fraction = 0.5;
  return c;
}

TEST(AutoscalingPolicyTest, UtilizationRuleWithABusyHeadLaunchesOneWorker) {
  Cluster c = UtilizationCluster();
  EXPECT_EQ(Decide(c.config, c.input).to_launch, (Launches{{"w", 1}}));

  c.input.head_available = {{"CPU", 2}};  // nothing in use: no target
  EXPECT_TRUE(Decide(c.config, c.input).to_launch.empty());
}

TEST(AutoscalingPolicyTest, UtilizationRuleWithTheHeadAndOneWorkerBusyGrowsToThree) {
  Cluster c = UtilizationCluster();
  c.input.workers = {Running("a", "w", {{"CPU", 2}}, {{"CPU", 0}})};
  EXPECT_EQ(Decide(c.config, c.input).to_launch, (Launches{{"w", 2}}));
}

TEST(AutoscalingPolicyTest, UtilizationRuleKeepsIdleWorkersUpToItsTarget) {
  Cluster c = UtilizationCluster();
  c.input.workers = {Idle("a", "w", {{"CPU", 2}}, 1000), Idle("b", "w", {{"CPU", 2}}, 2000)};
  AutoscalingDecision d = Decide(c.config, c.input);
  EXPECT_EQ(Reasons(d), (std::map<std::string, std::string>{{"b", "idle"}}));
  EXPECT_TRUE(d.to_launch.empty());

  c.config.target_utilization_fraction = 0;
  EXPECT_EQ(Decide(c.config, c.input).to_terminate.size(), 2u);
}

TEST(AutoscalingPolicyTest, UnknownTypeResourcesComeFromARunningWorkerOfTheType) {
  Cluster c = BusyHead({Type("w", {}, 0, 10)});
  c.config.head_resources = {{"CPU", 1}};
  c.input.workers = {Running("a", "w", {{"CPU", 8}}, {{"CPU", 0}})};
  c.input.demand = Times(8, {{"CPU", 1}});
  EXPECT_EQ(Decide(c.config, c.input).to_launch, (Launches{{"w", 1}}));
}

TEST(AutoscalingPolicyTest, UnknownTypeResourcesFallBackToTheHeads) {
  Cluster c = BusyHead({Type("w", {}, 0, 10)});
  c.config.head_resources = {{"CPU", 4}};
  c.input.demand = Times(8, {{"CPU", 1}});
  EXPECT_EQ(Decide(c.config, c.input).to_launch, (Launches{{"w", 2}}));
}

TEST(AutoscalingPolicyTest, SummaryMentionsLaunchesTerminationsAndInfeasibleShapes) {
  Cluster c = BusyHead({Type("w", {{"CPU", 2}}, 1, 5)});
  c.input.workers = {Launching("u", "gone")};
  c.input.demand = {{{"CPU", 100}}};
  std::string summary = Decide(c.config, c.input).Summary();
  EXPECT_EQ(summary, "launch 1 x w; terminate u (unknown type); infeasible {\"CPU\": 100}");
}

TEST(AutoscalingPolicyTest, SummaryOfNothingToDoSaysSo) {
  Cluster c = BusyHead({Type("w", {{"CPU", 2}}, 0, 5)});
  EXPECT_EQ(Decide(c.config, c.input).Summary(), "no change");
}

TEST(AutoscalingPolicyTest, TheSameInputGivesTheSameDecision) {
  Cluster c = BusyHead({Type("a", {{"CPU", 2}}, 0, 5), Type("b", {{"CPU", 2}}, 0, 5)});
  c.input.workers = {Idle("x", "a", {{"CPU", 2}}, 500), Idle("y", "b", {{"CPU", 2}}, 500)};
  c.input.demand = Times(7, {{"CPU", 1}});
  std::string first = Decide(c.config, c.input).Summary();
  EXPECT_EQ(first, "launch 2 x a");  // ties go to the first type in the config
  for (int i = 0; i < 5; ++i) EXPECT_EQ(Decide(c.config, c.input).Summary(), first);
}

}  // namespace
}  // namespace ray::scheduler
