#include "runtime/ids/ids.h"

#include <gtest/gtest.h>

#include <set>
#include <unordered_map>
#include <unordered_set>

namespace ray {
namespace {

TEST(IdsTest, DefaultIsNil) {
  EXPECT_TRUE(ObjectId().IsNil());
  EXPECT_TRUE(TaskId().IsNil());
  EXPECT_TRUE(JobId().IsNil());
  EXPECT_EQ(ObjectId().Hex(), std::string(40, '0'));
  EXPECT_FALSE(TaskId::FromRandom().IsNil());
}

TEST(IdsTest, SizesAndHexLength) {
  EXPECT_EQ(JobId::kSize, 4u);
  EXPECT_EQ(TaskId::kSize, 16u);
  EXPECT_EQ(ObjectId::kSize, 20u);
  EXPECT_EQ(ObjectId::FromRandom().Hex().size(), 40u);
  EXPECT_EQ(TaskId::FromRandom().Hex().size(), 32u);
  EXPECT_EQ(JobId::FromRandom().Hex().size(), 8u);
  EXPECT_EQ(ObjectId::FromRandom().Binary().size(), 20u);
}

TEST(IdsTest, HexAndBinaryRoundTrip) {
  for (int i = 0; i < 20; ++i) {
    ObjectId id = ObjectId::FromRandom();
    EXPECT_EQ(ObjectId::FromHex(id.Hex()), id);
    EXPECT_EQ(ObjectId::FromBinary(id.Binary()), id);
    NodeId n = NodeId::FromRandom();
    EXPECT_EQ(NodeId::FromHex(n.Hex()), n);
  }
  // Uppercase hex is accepted.
  std::string hex(40, 'A');
  EXPECT_EQ(ObjectId::FromHex(hex).Hex(), std::string(40, 'a'));
}

TEST(IdsTest, BadInputGivesNil) {
  ObjectId id = ObjectId::FromRandom();
  std::string hex = id.Hex();
  EXPECT_TRUE(ObjectId::FromHex("").IsNil());
  EXPECT_TRUE(ObjectId::FromHex(hex.substr(2)).IsNil());  // 19 bytes
  EXPECT_TRUE(ObjectId::FromHex(hex + "00").IsNil());     // 21 bytes
  EXPECT_TRUE(ObjectId::FromHex(hex.substr(1)).IsNil());  // odd length
  std::string bad = hex;
  bad[7] = 'x';
  EXPECT_TRUE(ObjectId::FromHex(bad).IsNil());
  EXPECT_TRUE(ObjectId::FromBinary("short").IsNil());
  EXPECT_TRUE(TaskId::FromBinary(std::string(17, 'x')).IsNil());
}

TEST(IdsTest, ForTaskReturnDerivesTaskAndIndex) {
  TaskId task = TaskId::FromRandom();
  for (uint32_t index : {1u, 2u, 255u, 256u, 65537u, 0x7fffffffu}) {
    ObjectId id = ObjectId::ForTaskReturn(task, index);
    EXPECT_EQ(id.Task(), task);
    EXPECT_EQ(id.Index(), index);
    EXPECT_FALSE(id.IsPut());
    // The task id is a prefix of the object id, the index big-endian after it.
    EXPECT_EQ(id.Hex().substr(0, 32), task.Hex());
  }
  EXPECT_EQ(ObjectId::ForTaskReturn(task, 1).Hex().substr(32), "00000001");
  EXPECT_NE(ObjectId::ForTaskReturn(task, 1), ObjectId::ForTaskReturn(task, 2));
}

TEST(IdsTest, ForPutSetsPutBit) {
  TaskId task = TaskId::FromRandom();
  ObjectId put = ObjectId::ForPut(task, 1);
  EXPECT_TRUE(put.IsPut());
  EXPECT_EQ(put.Index(), 1u);
  EXPECT_EQ(put.Task(), task);
  EXPECT_EQ(put.Hex().substr(32), "80000001");
  // A put and a return with the same index are different objects.
  EXPECT_NE(put, ObjectId::ForTaskReturn(task, 1));
}

TEST(IdsTest, NewTaskIdEmbedsJob) {
  JobId job = JobId::FromRandom();
  std::set<TaskId> seen;
  for (int i = 0; i < 50; ++i) {
    TaskId t = NewTaskId(job);
    EXPECT_EQ(TaskJob(t), job);
    EXPECT_EQ(t.Hex().substr(0, 8), job.Hex());
    seen.insert(t);
  }
  EXPECT_EQ(seen.size(), 50u);
  // Through an object id too.
  EXPECT_EQ(TaskJob(ObjectId::ForPut(NewTaskId(job), 3).Task()), job);
}

TEST(IdsTest, NewTaskIdTagsItsSubmittersNode) {
  JobId job = JobId::FromRandom();
  NodeId node = NodeId::FromRandom();
  TaskId a = NewTaskId(job, node), b = NewTaskId(job, node);
  EXPECT_NE(a, b);
  EXPECT_EQ(TaskJob(a), job);
  EXPECT_EQ(SubmitterTag(a), node.Binary().substr(0, kNodeTagSize));
  EXPECT_EQ(a.Hex().substr(8, 2 * kNodeTagSize), node.Hex().substr(0, 2 * kNodeTagSize));
  // Through a result's id, as a reader on another node sees it.
  EXPECT_EQ(SubmitterTag(ObjectId::ForTaskReturn(a, 2).Task()), SubmitterTag(b));
  EXPECT_NE(SubmitterTag(NewTaskId(job, NodeId::FromRandom())), SubmitterTag(a));
}

TEST(IdsTest, OrderingAndEquality) {
  ObjectId a = ObjectId::FromHex(std::string(39, '0') + "1");
  ObjectId b = ObjectId::FromHex(std::string(39, '0') + "2");
  EXPECT_LT(a, b);
  EXPECT_FALSE(b < a);
  EXPECT_NE(a, b);
  EXPECT_EQ(a, ObjectId::FromBinary(a.Binary()));
}

TEST(IdsTest, HashWorksInUnorderedContainers) {
  std::unordered_map<ObjectId, int, IdHash> m;
  TaskId task = TaskId::FromRandom();
  for (uint32_t i = 1; i <= 100; ++i) m[ObjectId::ForTaskReturn(task, i)] = static_cast<int>(i);
  EXPECT_EQ(m.size(), 100u);
  for (uint32_t i = 1; i <= 100; ++i) EXPECT_EQ(m.at(ObjectId::ForTaskReturn(task, i)), i);
}

// The hash of an ID depends only on its bytes, also for IDs shorter than a size_t.
TEST(IdsTest, ShortIdHashDependsOnlyOnItsBytes) {
  struct Holder {
    uint32_t before;
    JobId id;
  };
  JobId job = JobId::FromHex("01020304");
  Holder a{0x11111111u, job}, b{0x22222222u, job};
  EXPECT_EQ(a.id.Hash(), b.id.Hash());
  EXPECT_EQ(IdHash()(a.id), IdHash()(job));
  std::unordered_set<JobId, IdHash> jobs;
  for (int i = 0; i < 100; ++i) jobs.insert(JobId::FromRandom());
  for (const auto& j : jobs) EXPECT_EQ(jobs.count(JobId::FromBinary(j.Binary())), 1u);
}

// A task's results and puts differ only in their index bytes; all are told apart,
// and a repeat is found wherever it is.
TEST(IdsTest, AllUniqueFindsARepeatAmongOneTasksIds) {
  TaskId task = TaskId::FromRandom();
  std::vector<ObjectId> ids;
  for (uint32_t i = 1; i <= 3000; ++i) {
    ids.push_back(ObjectId::ForTaskReturn(task, i));
    ids.push_back(ObjectId::ForPut(task, i));
  }
  EXPECT_TRUE(AllUnique(ids));
  EXPECT_TRUE(AllUnique({}));
  EXPECT_TRUE(AllUnique({ids[0]}));
  ids.push_back(ids[4321]);
  EXPECT_FALSE(AllUnique(ids));
  EXPECT_FALSE(AllUnique({ids[7], ids[7]}));
}

}  // namespace
}  // namespace ray
