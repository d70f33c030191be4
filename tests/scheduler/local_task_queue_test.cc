#include "runtime/scheduler/local_task_queue.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/test_util/named_ids.h"

namespace ray::scheduler {
namespace {

using Amounts = std::map<std::string, double>;

ResourceSet Shape(Amounts a) { return ResourceSet::FromDoubles(a); }

TaskSpec Task(std::string id, Amounts resources = {}, std::string job = "j") {
  TaskSpec t;
  t.task_id = test_util::TaskNamed(std::move(id));
  t.job_id = test_util::JobNamed(std::move(job));
  t.resources = std::move(resources);
  return t;
}

// Pushes a task under the shape it runs with.
void Push(LocalTaskQueue& q, TaskSpec t) {
  ResourceSet shape = ResourcesOf(t);
  q.Push(shape, std::move(t));
}

// Starts what fits in `available` with `workers` idle workers; the ids started, in order.
std::vector<std::string> Start(LocalTaskQueue& q, ResourceSet& available, size_t workers) {
  std::vector<std::string> started;
  q.StartFitting(
      available, [](const ResourceSet&) { return true; },
      [&](const ResourceSet&, TaskSpec& t) {
        if (workers == 0) return false;
        --workers;
        started.push_back(test_util::NameOf(t.task_id));
        return true;
      });
  return started;
}

TEST(ResourcesOfTest, NormalTasksTakeOneCpuUnlessTheyNameTheirs) {
  EXPECT_EQ(ResourcesOf(Task("a")), Shape({{"CPU", 1}}));
  EXPECT_EQ(ResourcesOf(Task("a", {{"CPU", 2}, {"GPU", 1}})), Shape({{"CPU", 2}, {"GPU", 1}}));
  EXPECT_EQ(ResourcesOf(Task("a", {{"CPU", 0}})), ResourceSet());
  TaskSpec actor = Task("a");
  actor.kind = ray::internal::kActorCreation;
  EXPECT_EQ(ResourcesOf(actor), ResourceSet());  // actors hold nothing unless they ask
}

TEST(LocalTaskQueueTest, FifoWithinAShape) {
  LocalTaskQueue q;
  for (const char* id : {"a", "b", "c"}) Push(q, Task(id));
  EXPECT_EQ(q.num_ready(), 3u);
  ResourceSet available = Shape({{"CPU", 8}});
  EXPECT_EQ(Start(q, available, 8), (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_TRUE(q.empty());
  EXPECT_EQ(available, Shape({{"CPU", 5}}));  // the started tasks' shapes are taken
}

TEST(LocalTaskQueueTest, RoundRobinOverShapes) {
  LocalTaskQueue q;
  for (const char* id : {"c1", "c2", "c3"}) Push(q, Task(id, {{"CPU", 1}}));
  for (const char* id : {"x1", "x2"}) Push(q, Task(id, {{"CPU", 1}, {"x", 1}}));
  ResourceSet available = Shape({{"CPU", 4}, {"x", 2}});
  // One of each shape per round (shapes in their order), not the whole of the first.
  EXPECT_EQ(Start(q, available, 8), (std::vector<std::string>{"c1", "x1", "c2", "x2"}));
  EXPECT_EQ(q.num_ready(), 1u);
}

TEST(LocalTaskQueueTest, OnlyWhatFitsStarts) {
  LocalTaskQueue q;
  Push(q, Task("big", {{"CPU", 4}}));
  Push(q, Task("small", {{"CPU", 1}}));
  ResourceSet available = Shape({{"CPU", 2}});
  EXPECT_EQ(Start(q, available, 8), (std::vector<std::string>{"small"}));
  EXPECT_TRUE(q.Waiting(Shape({{"CPU", 4}})));
  EXPECT_FALSE(q.Waiting(Shape({{"CPU", 1}})));
}

TEST(LocalTaskQueueTest, FitsVetoesAShape) {
  LocalTaskQueue q;
  Push(q, Task("gpu", {{"CPU", 1}, {"GPU", 1}}));
  Push(q, Task("cpu", {{"CPU", 1}}));
  ResourceSet available = Shape({{"CPU", 4}, {"GPU", 1}});
  std::vector<std::string> started;
  q.StartFitting(
      available, [](const ResourceSet& s) { return s.Amount("GPU") == 0; },
      [&](const ResourceSet&, TaskSpec& t) {
        started.push_back(test_util::NameOf(t.task_id));
        return true;
      });
  EXPECT_EQ(started, (std::vector<std::string>{"cpu"}));
  EXPECT_EQ(q.num_ready(), 1u);
}

TEST(LocalTaskQueueTest, NoWorkerKeepsTheTaskAtTheHead) {
  LocalTaskQueue q;
  for (const char* id : {"a", "b", "c"}) Push(q, Task(id));
  ResourceSet available = Shape({{"CPU", 8}});
  EXPECT_EQ(Start(q, available, 1), (std::vector<std::string>{"a"}));
  EXPECT_EQ(q.num_ready(), 2u);
  EXPECT_EQ(available, Shape({{"CPU", 7}}));  // nothing taken for the task left waiting
  EXPECT_EQ(Start(q, available, 8), (std::vector<std::string>{"b", "c"}));
}

TEST(LocalTaskQueueTest, RequeueGoesBackToTheHeadInOrder) {
  LocalTaskQueue q;
  Push(q, Task("c"));
  std::deque<TaskSpec> back;
  back.push_back(Task("a"));
  back.push_back(Task("b"));
  q.Requeue(std::move(back));
  EXPECT_EQ(q.num_ready(), 3u);
  ResourceSet available = Shape({{"CPU", 8}});
  EXPECT_EQ(Start(q, available, 8), (std::vector<std::string>{"a", "b", "c"}));
}

TEST(LocalTaskQueueTest, RunnableCountsWhatFreeResourcesHoldPerShape) {
  LocalTaskQueue q;
  for (int i = 0; i < 5; ++i) Push(q, Task("c" + std::to_string(i), {{"CPU", 1}}));
  for (int i = 0; i < 3; ++i) Push(q, Task("t" + std::to_string(i), {{"CPU", 2}}));
  ResourceSet available = Shape({{"CPU", 3}});
  // Each shape against all of `available`: 3 of one CPU, 1 of two.
  EXPECT_EQ(q.Runnable(available, 100), 4u);
  EXPECT_EQ(q.Runnable(available, 2), 2u);
  EXPECT_EQ(q.Runnable(Shape({}), 100), 0u);

  LocalTaskQueue free_shape;
  for (int i = 0; i < 3; ++i) free_shape.Push(ResourceSet(), Task("n"));
  EXPECT_EQ(free_shape.Runnable(ResourceSet(), 100), 3u);  // a shape needing nothing: all
}

TEST(LocalTaskQueueTest, TakeWaitingOffersOnlyShapesThatCannotStartHere) {
  LocalTaskQueue q;
  Push(q, Task("fits", {{"CPU", 1}}));
  for (const char* id : {"w1", "w2", "w3"}) Push(q, Task(id, {{"CPU", 4}}));
  std::vector<std::string> offered, taken;
  q.TakeWaiting(Shape({{"CPU", 2}}), [&](const ResourceSet& shape, TaskSpec& t) {
    EXPECT_EQ(shape, Shape({{"CPU", 4}}));
    offered.push_back(test_util::NameOf(t.task_id));
    if (test_util::NameOf(t.task_id) == "w2") return false;
    taken.push_back(test_util::NameOf(t.task_id));
    return true;
  });
  EXPECT_EQ(offered, (std::vector<std::string>{"w1", "w2", "w3"}));
  EXPECT_EQ(taken, (std::vector<std::string>{"w1", "w3"}));
  EXPECT_EQ(q.num_ready(), 2u);
  EXPECT_EQ(q.Front(Shape({{"CPU", 4}}))->task_id, test_util::TaskNamed("w2"));
}

TEST(LocalTaskQueueTest, EraseIfAndPopFrontKeepTheCount) {
  LocalTaskQueue q;
  Push(q, Task("a", {}, "j1"));
  Push(q, Task("b", {}, "j2"));
  Push(q, Task("c", {{"CPU", 2}}, "j1"));
  EXPECT_EQ(q.EraseIf([](const TaskSpec& t) { return t.job_id == test_util::JobNamed("j1"); }), 2u);
  EXPECT_EQ(q.num_ready(), 1u);
  EXPECT_EQ(q.Front(Shape({{"CPU", 2}})), nullptr);
  EXPECT_EQ(q.PopFront(Shape({{"CPU", 1}})).task_id, test_util::TaskNamed("b"));
  EXPECT_TRUE(q.empty());
  size_t shapes = 0;
  q.ForEachShape([&](const ResourceSet&, size_t) { ++shapes; });
  EXPECT_EQ(shapes, 0u);  // empty shapes are not shown
}

}  // namespace
}  // namespace ray::scheduler
