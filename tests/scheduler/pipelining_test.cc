#include "runtime/scheduler/pipelining.h"

#include <gtest/gtest.h>

#include "tests/test_util/named_ids.h"

namespace ray::scheduler {
namespace {

using Amounts = std::map<std::string, double>;

ResourceSet Shape(Amounts a) { return ResourceSet::FromDoubles(a); }

const ResourceSet kOneCpu = Shape({{"CPU", 1}});

protocol::TaskSpec Task(std::string job = "j") {
  protocol::TaskSpec t;
  t.job_id = test_util::JobNamed(std::move(job));
  return t;
}

TEST(PipeliningTest, OnlyShapesThatCannotStartAndNeedNoGpu) {
  EXPECT_TRUE(ShapeMayGoAhead(kOneCpu, Shape({})));
  EXPECT_FALSE(ShapeMayGoAhead(kOneCpu, kOneCpu));
  EXPECT_FALSE(ShapeMayGoAhead(Shape({{"CPU", 1}, {"GPU", 0.5}}), Shape({})));
}

TEST(PipeliningTest, WorkersRunningTheShapeTakeTasksAheadUpToTheDepth) {
  protocol::TaskSpec running = Task();
  AheadWorker w{&running, &kOneCpu};
  EXPECT_TRUE(WorkerTakesAhead(w, kOneCpu));
  EXPECT_FALSE(WorkerTakesAhead(w, Shape({{"CPU", 2}})));
  w.queued = kPipelineDepth - 1;
  EXPECT_TRUE(WorkerTakesAhead(w, kOneCpu));
  w.queued = kPipelineDepth;
  EXPECT_FALSE(WorkerTakesAhead(w, kOneCpu));
  EXPECT_FALSE(TaskMayGoAhead(Task(), w, false, {}));
}

TEST(PipeliningTest, WorkersThatMayWaitForTheirTasksTakeNone) {
  protocol::TaskSpec running = Task();
  AheadWorker blocked{&running, &kOneCpu, 0, /*blocked=*/true};
  EXPECT_FALSE(WorkerTakesAhead(blocked, kOneCpu));
  AheadWorker waited{&running, &kOneCpu, 0, false, /*no_pipelining=*/true};
  EXPECT_FALSE(WorkerTakesAhead(waited, kOneCpu));
  AheadWorker idle{nullptr, &kOneCpu};
  EXPECT_FALSE(WorkerTakesAhead(idle, kOneCpu));
  protocol::TaskSpec limited = Task();
  limited.max_calls = 1;
  AheadWorker exits{&limited, &kOneCpu};
  EXPECT_FALSE(WorkerTakesAhead(exits, kOneCpu));
}

TEST(PipeliningTest, OnlyPlainTasksOfTheRunningJobGoAhead) {
  protocol::TaskSpec running = Task("j");
  AheadWorker w{&running, &kOneCpu};
  EXPECT_TRUE(TaskMayGoAhead(Task("j"), w, false, {}));
  EXPECT_FALSE(TaskMayGoAhead(Task("other"), w, false, {}));
  protocol::TaskSpec limited = Task("j");
  limited.max_calls = 3;
  EXPECT_FALSE(TaskMayGoAhead(limited, w, false, {}));
  protocol::TaskSpec actor = Task("j");
  actor.kind = ray::internal::kActorCreation;
  EXPECT_FALSE(TaskMayGoAhead(actor, w, false, {}));
}

TEST(PipeliningTest, WithOtherNodesOnlyTasksKnownToRunShortGoAhead) {
  protocol::TaskSpec running = Task();
  AheadWorker w{&running, &kOneCpu};
  protocol::TaskSpec t = Task();
  t.plugin = "p";
  t.function = "f";
  TaskDurations durations;
  EXPECT_TRUE(TaskMayGoAhead(t, w, /*multi_node=*/false, durations));
  EXPECT_FALSE(TaskMayGoAhead(t, w, /*multi_node=*/true, durations));  // not known yet
  durations.Record(DurationKey(t), 50.0);
  EXPECT_FALSE(TaskMayGoAhead(t, w, /*multi_node=*/true, durations));  // long
  protocol::TaskSpec other = t;
  other.plugin = "q";  // the same name in another plugin is another function
  durations.Record(DurationKey(other), 0.05);
  EXPECT_FALSE(TaskMayGoAhead(t, w, /*multi_node=*/true, durations));
  EXPECT_TRUE(TaskMayGoAhead(other, w, /*multi_node=*/true, durations));
}

}  // namespace
}  // namespace ray::scheduler
