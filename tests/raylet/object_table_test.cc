#include "runtime/raylet/object_table.h"

#include <gtest/gtest.h>

namespace ray::raylet {
namespace {

using protocol::ObjectState;

ObjectId Object(int n) {
  static const TaskId task = NewTaskId(JobId::FromBinary("jjjj"));
  return ObjectId::ForTaskReturn(task, n);
}

StoredObject Inline(std::string data) {
  return StoredObject{ObjectState::kInline, std::move(data), "", 0};
}

std::shared_ptr<Waiter> Get(std::vector<ObjectId> ids, int64_t deadline_ms = -1) {
  auto w = std::make_shared<Waiter>();
  w->kind = Waiter::kGet;
  w->ids = std::move(ids);
  w->deadline_ms = deadline_ms;
  return w;
}

std::shared_ptr<Waiter> Wait(std::vector<ObjectId> ids, uint32_t num) {
  auto w = Get(std::move(ids));
  w->kind = Waiter::kWait;
  w->task.num_returns = num;
  return w;
}

// Records what the table hands back.
struct Seen {
  std::vector<ObjectId> missing;
  std::vector<Waiter*> completed;
  auto OnMissing() {
    return [this](const ObjectId& id) { missing.push_back(id); };
  }
  auto OnComplete() {
    return [this](const std::shared_ptr<Waiter>& w) {
      w->done = true;
      completed.push_back(w.get());
    };
  }
};

TEST(ObjectTableTest, FindsWhatWasInserted) {
  ObjectTable table;
  Seen seen;
  EXPECT_FALSE(table.Ready(Object(1)));
  EXPECT_EQ(table.Find(Object(1)), nullptr);
  table.Insert(Object(1), Inline("x"), seen.OnComplete());
  ASSERT_NE(table.Find(Object(1)), nullptr);
  EXPECT_EQ(table.Find(Object(1))->data, "x");
  EXPECT_TRUE(table.Erase(Object(1)));
  EXPECT_FALSE(table.Erase(Object(1)));
  EXPECT_FALSE(table.Ready(Object(1)));
}

TEST(ObjectTableTest, AGetCompletesWhenItsLastDistinctObjectArrives) {
  ObjectTable table;
  Seen seen;
  table.Insert(Object(1), Inline("a"), seen.OnComplete());
  auto w = Get({Object(1), Object(2), Object(2), Object(3)});
  EXPECT_FALSE(table.AddWaiter(w, seen.OnMissing()));
  EXPECT_EQ(w->needed, 2u);  // 2 counted once
  EXPECT_EQ(seen.missing, (std::vector<ObjectId>{Object(2), Object(3)}));
  EXPECT_TRUE(table.Awaited(Object(2)));
  table.Insert(Object(3), Inline("c"), seen.OnComplete());
  EXPECT_TRUE(seen.completed.empty());
  table.Insert(Object(2), Inline("b"), seen.OnComplete());
  EXPECT_EQ(seen.completed, (std::vector<Waiter*>{w.get()}));
  EXPECT_FALSE(table.Awaited(Object(2)));
}

TEST(ObjectTableTest, AWaiterWithNothingMissingCompletesAtOnce) {
  ObjectTable table;
  Seen seen;
  table.Insert(Object(1), Inline("a"), seen.OnComplete());
  EXPECT_TRUE(table.AddWaiter(Get({Object(1)}), seen.OnMissing()));
  EXPECT_TRUE(table.AddWaiter(Get({}), seen.OnMissing()));
  EXPECT_TRUE(seen.missing.empty());
}

TEST(ObjectTableTest, AWaitNeedsOnlyNumOfItsObjects) {
  ObjectTable table;
  Seen seen;
  table.Insert(Object(1), Inline("a"), seen.OnComplete());
  // One ready of the two wanted: one more.
  auto w = Wait({Object(1), Object(2), Object(3)}, 2);
  EXPECT_FALSE(table.AddWaiter(w, seen.OnMissing()));
  EXPECT_EQ(w->needed, 1u);
  table.Insert(Object(3), Inline("c"), seen.OnComplete());
  EXPECT_EQ(seen.completed, (std::vector<Waiter*>{w.get()}));
  // Enough ready already; and num beyond the ids means all of them.
  EXPECT_TRUE(table.AddWaiter(Wait({Object(1), Object(2)}, 1), seen.OnMissing()));
  auto all = Wait({Object(1), Object(4)}, 5);
  EXPECT_FALSE(table.AddWaiter(all, seen.OnMissing()));
  EXPECT_EQ(all->needed, 1u);
}

TEST(ObjectTableTest, DeadlinesExpireInOrderAndSkipCompletedWaiters) {
  ManualClock clock(0);
  ObjectTable table(clock);
  Seen seen;
  auto late = Get({Object(1)}, 200);
  auto early = Get({Object(2)}, 100);
  auto done = Get({Object(3)}, 50);
  auto never = Get({Object(4)});
  for (const auto& w : {late, early, done, never}) EXPECT_FALSE(table.AddWaiter(w, seen.OnMissing()));
  EXPECT_EQ(table.NextDeadline(), 50);
  table.Insert(Object(3), Inline("c"), seen.OnComplete());
  ASSERT_EQ(seen.completed.size(), 1u);

  std::vector<Waiter*> expired;
  auto expire = [&](const std::shared_ptr<Waiter>& w) { expired.push_back(w.get()); };
  clock.Advance(99);
  table.ExpireWaiters(expire);
  EXPECT_TRUE(expired.empty());  // the completed one is not expired again
  clock.Advance(101);
  table.ExpireWaiters(expire);
  EXPECT_EQ(expired, (std::vector<Waiter*>{early.get(), late.get()}));
  EXPECT_EQ(table.NextDeadline(), std::nullopt);  // `never` has none
}

TEST(ObjectTableTest, CompletingAWaiterMayAddAnother) {
  ObjectTable table;
  Seen seen;
  auto first = Get({Object(1)});
  auto second = Get({Object(1), Object(2)});
  EXPECT_FALSE(table.AddWaiter(first, seen.OnMissing()));
  table.Insert(Object(1), Inline("a"), [&](const std::shared_ptr<Waiter>& w) {
    w->done = true;
    EXPECT_FALSE(table.AddWaiter(second, seen.OnMissing()));
  });
  EXPECT_TRUE(first->done);
  EXPECT_EQ(second->needed, 1u);
  EXPECT_TRUE(table.Awaited(Object(2)));
}

TEST(ObjectTableTest, FreedBeforeArrivalIsAskedOnce) {
  ObjectTable table;
  table.FreeOnArrival(Object(1));
  EXPECT_TRUE(table.TakeFreedOnArrival(Object(1)));
  EXPECT_FALSE(table.TakeFreedOnArrival(Object(1)));
  EXPECT_FALSE(table.TakeFreedOnArrival(Object(2)));
}

TEST(ObjectTableTest, EraseJobRemovesOnlyThatJobsObjects) {
  ObjectTable table;
  Seen seen;
  ObjectId other = ObjectId::ForTaskReturn(NewTaskId(JobId::FromBinary("kkkk")), 1);
  table.Insert(Object(1), Inline("a"), seen.OnComplete());
  table.Insert(other, Inline("b"), seen.OnComplete());
  table.FreeOnArrival(Object(2));
  std::vector<ObjectId> freed;
  table.EraseJob(JobId::FromBinary("jjjj"), [&](const ObjectId& id, const StoredObject&) { freed.push_back(id); });
  EXPECT_EQ(freed, (std::vector<ObjectId>{Object(1)}));
  EXPECT_FALSE(table.Ready(Object(1)));
  EXPECT_TRUE(table.Ready(other));
  EXPECT_FALSE(table.TakeFreedOnArrival(Object(2)));
}

// Inline objects and errors are published in the node's index while the table holds
// them; objects in shared-memory segments are not.
TEST(ObjectTableTest, SmallObjectsArePublishedInTheIndexWhileHeld) {
  const std::string name = object_store::ObjectIndexName("tabletest" + Object(1).Hex().substr(0, 8));
  auto index = object_store::ObjectIndexWriter::Create(name);
  ASSERT_TRUE(index.ok()) << index.status().message();
  auto reader = object_store::ObjectIndexReader::Open(name);
  ASSERT_NE(reader, nullptr);
  ObjectTable table;
  table.PublishIn(index->get());
  Seen seen;
  ObjectId other_job = ObjectId::ForTaskReturn(NewTaskId(JobId::FromBinary("kkkk")), 1);
  table.Insert(Object(1), Inline("one"), seen.OnComplete());
  table.Insert(Object(2), StoredObject{ObjectState::kError, "why", "", 0}, seen.OnComplete());
  table.Insert(Object(3), StoredObject{ObjectState::kShared, "", "/ray-x-3", 4096}, seen.OnComplete());
  table.Insert(other_job, Inline("kept"), seen.OnComplete());
  auto one = reader->Find(Object(1));
  ASSERT_TRUE(one);
  EXPECT_EQ(one->bytes, "one");
  EXPECT_EQ(one->kind, static_cast<uint8_t>(ObjectState::kInline));
  auto error = reader->Find(Object(2));
  ASSERT_TRUE(error);
  EXPECT_EQ(error->kind, static_cast<uint8_t>(ObjectState::kError));
  EXPECT_FALSE(reader->Contains(Object(3)));
  table.Erase(Object(1));
  EXPECT_FALSE(reader->Contains(Object(1)));
  table.EraseJob(JobId::FromBinary("jjjj"), [](const ObjectId&, const StoredObject&) {});
  EXPECT_FALSE(reader->Contains(Object(2)));
  EXPECT_TRUE(reader->Contains(other_job));
  EXPECT_EQ((*index)->size(), 1u);
}

}  // namespace
}  // namespace ray::raylet
