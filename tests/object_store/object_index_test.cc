#include "runtime/object_store/object_index.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <random>
#include <thread>
#include <unordered_map>
#include <vector>

#include "runtime/base/hex.h"
#include "runtime/object_store/object_store.h"

namespace ray::object_store {
namespace {

std::string RandomName() { return ObjectIndexName("test" + ToHex(ObjectId::FromRandom().Binary()).substr(0, 12)); }

// Bytes that say which object they belong to, of a size that varies with it.
std::string BytesOf(const ObjectId& id) {
  std::string one = id.Binary();
  std::string out;
  for (size_t n = 1 + id.data()[0] % 6; n > 0; --n) out += one;
  return out;
}

class ObjectIndexTest : public ::testing::Test {
 protected:
  void Make(ObjectIndexOptions options = {}) {
    auto w = ObjectIndexWriter::Create(name_, options);
    ASSERT_TRUE(w.ok()) << w.status().message();
    writer_ = std::move(*w);
    reader_ = ObjectIndexReader::Open(name_);
    ASSERT_NE(reader_, nullptr);
  }
  std::string name_ = RandomName();
  std::unique_ptr<ObjectIndexWriter> writer_;
  std::unique_ptr<ObjectIndexReader> reader_;
};

TEST_F(ObjectIndexTest, PublishedObjectsAreFoundThroughAnotherMapping) {
  Make();
  std::vector<ObjectId> ids(2000);
  for (auto& id : ids) {
    id = ObjectId::FromRandom();
    ASSERT_TRUE(writer_->Publish(id, 3, BytesOf(id)));
  }
  EXPECT_FALSE(writer_->Publish(ids[0], 4, "other")) << "an id is published once";
  for (const auto& id : ids) {
    auto found = reader_->Find(id);
    ASSERT_TRUE(found) << id.Hex();
    EXPECT_EQ(found->kind, 3);
    EXPECT_EQ(found->bytes, BytesOf(id));
    EXPECT_TRUE(reader_->Contains(id));
  }
  EXPECT_FALSE(reader_->Find(ObjectId::FromRandom()));
  EXPECT_TRUE(writer_->Publish(ObjectId::FromRandom(), 0, "")) << "an empty object";
}

TEST_F(ObjectIndexTest, WithdrawnObjectsGoAndTheOthersStayFindable) {
  // A small table: long probe runs, so withdrawals move entries back (CloseGap).
  Make({.num_slots = 64, .arena_bytes = 1 << 16});
  std::mt19937 rng(11);
  std::unordered_map<ObjectId, std::string, IdHash> live;
  std::vector<ObjectId> gone;
  for (int step = 0; step < 5000; ++step) {
    if (live.size() < 40 && rng() % 2 == 0) {
      ObjectId id = ObjectId::FromRandom();
      if (writer_->Publish(id, 1, BytesOf(id))) live.emplace(id, BytesOf(id));
    } else if (!live.empty()) {
      auto it = std::next(live.begin(), rng() % live.size());
      writer_->Withdraw(it->first);
      gone.push_back(it->first);
      live.erase(it);
    }
    if (step % 50 != 0) continue;
    for (const auto& [id, bytes] : live) {
      auto found = reader_->Find(id);
      ASSERT_TRUE(found) << "step " << step;
      ASSERT_EQ(found->bytes, bytes);
    }
    for (const auto& id : gone) ASSERT_FALSE(reader_->Contains(id)) << "step " << step;
  }
  EXPECT_EQ(writer_->size(), live.size());
}

TEST_F(ObjectIndexTest, WhatDoesNotFitIsNotIndexed) {
  Make({.num_slots = 16, .arena_bytes = 4096, .max_object_bytes = 1024});
  EXPECT_FALSE(writer_->Publish(ObjectId::FromRandom(), 1, std::string(1025, 'x'))) << "too large";
  std::vector<ObjectId> ids;
  for (int i = 0; i < 12; ++i) {  // 3/4 of the slots
    ids.push_back(ObjectId::FromRandom());
    ASSERT_TRUE(writer_->Publish(ids.back(), 1, "v"));
  }
  ObjectId extra = ObjectId::FromRandom();
  EXPECT_FALSE(writer_->Publish(extra, 1, "v")) << "the table is 3/4 full";
  EXPECT_FALSE(reader_->Find(extra));
  writer_->Withdraw(ids[0]);
  EXPECT_TRUE(writer_->Publish(extra, 1, "v"));
  for (size_t i = 1; i < ids.size(); ++i) writer_->Withdraw(ids[i]);
  // The arena: 4 KiB.
  ObjectId a = ObjectId::FromRandom(), b = ObjectId::FromRandom(), c = ObjectId::FromRandom();
  EXPECT_TRUE(writer_->Publish(a, 1, std::string(1024, 'a')));
  EXPECT_TRUE(writer_->Publish(b, 1, std::string(1024, 'b')));
  EXPECT_TRUE(writer_->Publish(c, 1, std::string(1024, 'c')));
  EXPECT_FALSE(writer_->Publish(ObjectId::FromRandom(), 1, std::string(1024, 'd'))) << "arena full";
  writer_->Withdraw(b);
  ObjectId d = ObjectId::FromRandom();
  EXPECT_TRUE(writer_->Publish(d, 1, std::string(1024, 'd')));  // in b's bytes
  EXPECT_EQ(reader_->Find(d)->bytes, std::string(1024, 'd'));
  EXPECT_FALSE(reader_->Find(b));
}

// Readers race the writer reusing slots and arena bytes: a hit is always the right
// object's bytes.
TEST_F(ObjectIndexTest, ReadersRacingTheWriterNeverGetAnotherObjectsBytes) {
  Make({.num_slots = 256, .arena_bytes = 8192});
  std::vector<ObjectId> ids(400);
  for (auto& id : ids) id = ObjectId::FromRandom();
  std::atomic<bool> stop{false};
  std::atomic<long> hits{0}, wrong{0};
  std::vector<std::thread> readers;
  for (int r = 0; r < 2; ++r) {
    readers.emplace_back([&, r] {
      std::mt19937 rng(r);
      while (!stop.load(std::memory_order_relaxed)) {
        const ObjectId& id = ids[rng() % ids.size()];
        if (auto found = reader_->Find(id)) {
          hits.fetch_add(1, std::memory_order_relaxed);
          if (found->bytes != BytesOf(id) || found->kind != id.data()[1] % 2) wrong.fetch_add(1);
        }
      }
    });
  }
  std::mt19937 rng(99);
  std::vector<bool> in(ids.size());
  for (int step = 0; step < 300000; ++step) {
    size_t k = rng() % ids.size();
    if (in[k]) {
      writer_->Withdraw(ids[k]);
      in[k] = false;
    } else {
      in[k] = writer_->Publish(ids[k], ids[k].data()[1] % 2, BytesOf(ids[k]));
    }
  }
  stop = true;
  for (auto& t : readers) t.join();
  EXPECT_EQ(wrong.load(), 0) << "of " << hits.load() << " hits";
  EXPECT_GT(hits.load(), 0);
}

TEST_F(ObjectIndexTest, OnlyAnIndexOpensAsOne) {
  EXPECT_EQ(ObjectIndexReader::Open(name_), nullptr) << "no segment";
  ASSERT_TRUE(WriteSegment(name_, std::string(8192, 'j')).ok());
  EXPECT_EQ(ObjectIndexReader::Open(name_), nullptr) << "not an index";
  // A raylet that crashed left it: a new one replaces it.
  Make();
  EXPECT_TRUE(writer_->Publish(ObjectId::FromRandom(), 1, "v"));
  writer_.reset();
  EXPECT_EQ(ObjectIndexReader::Open(name_), nullptr) << "removed with its writer";
}

}  // namespace
}  // namespace ray::object_store
