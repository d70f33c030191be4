#include "runtime/api/object_cache.h"

#include <gtest/gtest.h>

namespace ray::core {
namespace {

using protocol::ObjectState;

ObjectId Id(uint32_t i) { return ObjectId::ForPut(TaskId::FromRandom(), i); }

std::shared_ptr<const std::string> Bytes(size_t n, char c = 'x') {
  return std::make_shared<const std::string>(n, c);
}

TEST(ObjectCacheTest, KeepsValuesAndErrorsOnly) {
  ObjectCache cache(10, 1000);
  ObjectId value = Id(1), error = Id(2), shared = Id(3), missing = Id(4);
  cache.Insert(value, ObjectState::kInline, Bytes(3, 'v'));
  cache.Insert(error, ObjectState::kError, Bytes(3, 'e'));
  cache.Insert(shared, ObjectState::kShared, Bytes(3));
  cache.Insert(missing, ObjectState::kMissing, Bytes(0));
  ASSERT_NE(cache.Find(value), nullptr);
  EXPECT_EQ(*cache.Find(value)->data, "vvv");
  EXPECT_EQ(cache.Find(value)->state, ObjectState::kInline);
  ASSERT_NE(cache.Find(error), nullptr);
  EXPECT_EQ(cache.Find(error)->state, ObjectState::kError);
  EXPECT_EQ(cache.Find(shared), nullptr);
  EXPECT_EQ(cache.Find(missing), nullptr);
}

TEST(ObjectCacheTest, TheFirstCopyStays) {
  ObjectCache cache(10, 1000);
  ObjectId id = Id(1);
  cache.Insert(id, ObjectState::kInline, Bytes(2, 'a'));
  cache.Insert(id, ObjectState::kInline, Bytes(2, 'b'));
  EXPECT_EQ(*cache.Find(id)->data, "aa");
  EXPECT_EQ(cache.size(), 1u);
  EXPECT_EQ(cache.bytes(), 2u);
}

TEST(ObjectCacheTest, TheOldestGoFirstWhenCountOrBytesOverflow) {
  ObjectCache cache(3, 100);
  std::vector<ObjectId> ids;
  for (uint32_t i = 0; i < 5; ++i) {
    ids.push_back(Id(i));
    cache.Insert(ids.back(), ObjectState::kInline, Bytes(10));
  }
  EXPECT_EQ(cache.size(), 3u);
  EXPECT_EQ(cache.Find(ids[0]), nullptr);
  EXPECT_EQ(cache.Find(ids[1]), nullptr);
  EXPECT_NE(cache.Find(ids[4]), nullptr);

  ObjectId big = Id(9);
  cache.Insert(big, ObjectState::kInline, Bytes(90));  // 30 + 90 > 100: two old ones go
  EXPECT_NE(cache.Find(big), nullptr);
  EXPECT_EQ(cache.Find(ids[2]), nullptr);
  EXPECT_EQ(cache.Find(ids[3]), nullptr);
  EXPECT_NE(cache.Find(ids[4]), nullptr);
  EXPECT_EQ(cache.bytes(), 100u);

  cache.Insert(Id(10), ObjectState::kInline, Bytes(101));  // larger than the whole cache
  EXPECT_EQ(cache.bytes(), 100u);
}

TEST(ObjectCacheTest, CachedBytesOutliveEviction) {
  ObjectCache cache(1, 100);
  ObjectId first = Id(1);
  cache.Insert(first, ObjectState::kInline, Bytes(5, 'f'));
  auto held = cache.Find(first)->data;
  cache.Insert(Id(2), ObjectState::kInline, Bytes(5));
  EXPECT_EQ(cache.Find(first), nullptr);
  EXPECT_EQ(*held, "fffff");  // a Get result still in use stays valid
}

}  // namespace
}  // namespace ray::core
