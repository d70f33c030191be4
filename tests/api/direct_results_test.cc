#include "runtime/api/direct_results.h"

#include <gtest/gtest.h>

namespace ray::core {
namespace {

using protocol::ObjectState;

ObjectId Id(uint32_t i) { return ObjectId::ForPut(TaskId::FromRandom(), i); }

ObjectCache::Entry Value(const std::string& bytes) {
  return {ObjectState::kInline, std::make_shared<const std::string>(bytes)};
}

TEST(DirectResultsTest, APendingResultSettlesOnceAndIsThenFound) {
  DirectResults results;
  ObjectId id = Id(1);
  results.Expect(id);
  EXPECT_TRUE(results.Pending(id));
  EXPECT_TRUE(results.AnyPending());
  EXPECT_EQ(results.Find(id), nullptr);
  EXPECT_TRUE(results.Settle(id));
  EXPECT_FALSE(results.Settle(id));  // a second answer is not awaited
  results.Store(id, Value("v"));
  EXPECT_FALSE(results.AnyPending());
  ASSERT_NE(results.Find(id), nullptr);
  EXPECT_EQ(*results.Find(id)->data, "v");
}

TEST(DirectResultsTest, FailTurnsOnlyThePendingOnesIntoTheError) {
  DirectResults results;
  ObjectId arrived = Id(1), pending = Id(2), freed = Id(3);
  results.Expect(arrived);
  results.Expect(pending);
  results.Expect(freed);
  ASSERT_TRUE(results.Settle(arrived));
  results.Store(arrived, Value("ok"));
  EXPECT_TRUE(results.Forget(freed));
  ray::internal::ErrorInfo boom{ray::internal::kSystem, "ray::Internal", "boom", "", ""};
  results.Fail({arrived, pending, freed}, boom);
  EXPECT_EQ(*results.Find(arrived)->data, "ok");
  ASSERT_NE(results.Find(pending), nullptr);
  EXPECT_EQ(results.Find(pending)->state, ObjectState::kError);
  EXPECT_EQ(*results.Find(pending)->data, ray::internal::Pack(boom));
  EXPECT_EQ(results.Find(freed), nullptr);
}

TEST(DirectResultsTest, ForgetAndHandOverDropTheResult) {
  DirectResults results;
  ObjectId stored = Id(1), handed = Id(2), unknown = Id(3);
  results.Expect(stored);
  ASSERT_TRUE(results.Settle(stored));
  results.Store(stored, Value("v"));
  results.Expect(handed);
  results.HandOver({handed});
  EXPECT_FALSE(results.Pending(handed));
  EXPECT_FALSE(results.Settle(handed));  // the raylet answers for it now
  EXPECT_TRUE(results.Forget(stored));
  EXPECT_EQ(results.Find(stored), nullptr);
  EXPECT_FALSE(results.Forget(unknown));
}

}  // namespace
}  // namespace ray::core
