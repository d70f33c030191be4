#include "runtime/object_store/object_store.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdint>
#include <fstream>
#include <sstream>

#include "runtime/base/util.h"

namespace ray::object_store {
namespace {

bool SegmentExists(const std::string& name) {
  int fd = ::shm_open(name.c_str(), O_RDONLY, 0);
  if (fd < 0) return false;
  ::close(fd);
  return true;
}

// The permissions column of /proc/self/maps ("r--s") for the mapping starting at
// `addr`, or "" if there is none.
std::string MappingPermissions(const void* addr) {
  std::ifstream maps("/proc/self/maps");
  std::string line;
  auto start = reinterpret_cast<uintptr_t>(addr);
  while (std::getline(maps, line)) {
    std::istringstream in(line);
    std::string range, perms;
    in >> range >> perms;
    if (std::stoull(range.substr(0, range.find('-')), nullptr, 16) == start) return perms;
  }
  return "";
}

class ObjectStoreTest : public ::testing::Test {
 protected:
  void SetUp() override { tag_ = "ut" + ToHex(RandomBytes(6)); }
  void TearDown() override { UnlinkAllSegments(tag_); }

  // A fresh segment name in this test's store.
  std::string NewSegment() { return SegmentName(tag_, ObjectId::FromRandom()); }
  std::string WriteNew(size_t size) {
    std::string name = NewSegment();
    EXPECT_TRUE(WriteSegment(name, std::string(size, 'x')).ok());
    return name;
  }

  std::string tag_;
};

TEST_F(ObjectStoreTest, SegmentNameFormat) {
  ObjectId id = ObjectId::FromRandom();
  EXPECT_EQ(SegmentName("tag", id), "/ray-tag-" + id.Hex());
}

TEST_F(ObjectStoreTest, WriteMapRoundTrip) {
  for (size_t size : {size_t{0}, size_t{1}, size_t{4097}, size_t{10} << 20}) {
    std::string name = NewSegment();
    std::string data = RandomBytes(size);
    ASSERT_TRUE(WriteSegment(name, data).ok()) << size;
    auto mapping = MapSegment(name, size);
    ASSERT_TRUE(mapping.ok()) << mapping.status().ToString();
    ASSERT_EQ((*mapping)->size(), size);
    if (size > 0) {
      EXPECT_EQ(std::string((*mapping)->data(), size), data) << size;
    }
    UnlinkSegment(name);
    EXPECT_FALSE(SegmentExists(name));
  }
}

TEST_F(ObjectStoreTest, SealedSegmentIsReadOnly) {
  std::string name = NewSegment();
  ASSERT_TRUE(WriteSegment(name, "sealed bytes").ok());
  struct stat st {};
  ASSERT_EQ(::stat(("/dev/shm" + name).c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0400);
  auto mapping = MapSegment(name, 12);
  ASSERT_TRUE(mapping.ok());
  // A shared mapping, readable, not writable (a write would fault).
  EXPECT_EQ(MappingPermissions((*mapping)->data()), "r--s");
}

TEST_F(ObjectStoreTest, MappingOutlivesUnlink) {
  std::string name = NewSegment();
  ASSERT_TRUE(WriteSegment(name, "still here").ok());
  auto mapping = MapSegment(name, 10);
  ASSERT_TRUE(mapping.ok());
  const void* addr = (*mapping)->data();
  UnlinkSegment(name);
  EXPECT_EQ(std::string((*mapping)->data(), 10), "still here");
  mapping = Status::NotFound("dropped");  // unmaps
  EXPECT_EQ(MappingPermissions(addr), "");
}

TEST_F(ObjectStoreTest, SecondWriteIsAlreadyExists) {
  std::string name = NewSegment();
  ASSERT_TRUE(WriteSegment(name, "first").ok());
  Status st = WriteSegment(name, "second!");
  EXPECT_EQ(st.code(), StatusCode::kAlreadyExists);
  EXPECT_NE(st.message().find(name), std::string::npos);
  auto mapping = MapSegment(name, 5);
  ASSERT_TRUE(mapping.ok());
  EXPECT_EQ(std::string((*mapping)->data(), 5), "first");
}

TEST_F(ObjectStoreTest, MapMissingIsNotFound) {
  std::string name = NewSegment();
  auto mapping = MapSegment(name, 10);
  ASSERT_FALSE(mapping.ok());
  EXPECT_EQ(mapping.status().code(), StatusCode::kNotFound);
  EXPECT_NE(mapping.status().message().find(name), std::string::npos);
}

TEST_F(ObjectStoreTest, SizeMismatchIsDataLoss) {
  std::string name = NewSegment();
  ASSERT_TRUE(WriteSegment(name, std::string(100, 'a')).ok());
  for (size_t expected : {size_t{0}, size_t{99}, size_t{101}}) {
    auto mapping = MapSegment(name, expected);
    ASSERT_FALSE(mapping.ok());
    EXPECT_EQ(mapping.status().code(), StatusCode::kDataLoss);
    EXPECT_NE(mapping.status().message().find("100 bytes"), std::string::npos)
        << mapping.status().ToString();
    EXPECT_NE(mapping.status().message().find(std::to_string(expected)), std::string::npos);
  }
}

TEST_F(ObjectStoreTest, UnlinkAllRemovesOnlyThisTag) {
  const std::string other_tag = "ut" + ToHex(RandomBytes(6));
  std::string mine1 = WriteNew(10), mine2 = WriteNew(0);
  // Store tags that begin with this one belong to it (a node's stores share the
  // session prefix).
  std::string extended = SegmentName(tag_ + "ab", ObjectId::FromRandom());
  ASSERT_TRUE(WriteSegment(extended, "x").ok());
  std::string other = SegmentName(other_tag, ObjectId::FromRandom());
  ASSERT_TRUE(WriteSegment(other, "x").ok());

  UnlinkAllSegments(tag_);
  EXPECT_FALSE(SegmentExists(mine1));
  EXPECT_FALSE(SegmentExists(mine2));
  EXPECT_FALSE(SegmentExists(extended));
  EXPECT_TRUE(SegmentExists(other));
  UnlinkAllSegments(other_tag);
  EXPECT_FALSE(SegmentExists(other));
}

TEST_F(ObjectStoreTest, UnlinkAllWithEmptyTagRemovesNothing) {
  // An empty tag would match every ray segment on the machine, other sessions' too.
  std::string mine = WriteNew(1);
  UnlinkAllSegments("");
  EXPECT_TRUE(SegmentExists(mine));
}

TEST_F(ObjectStoreTest, AdmitsUpToCapacity) {
  ObjectStore store({tag_, 100});
  EXPECT_EQ(store.tag(), tag_);
  EXPECT_EQ(store.capacity_bytes(), 100u);
  ObjectId a = ObjectId::FromRandom(), b = ObjectId::FromRandom(), c = ObjectId::FromRandom();
  std::string sa = WriteNew(60), sb = WriteNew(50), sc = WriteNew(40);
  ASSERT_TRUE(store.Admit(a, sa, 60).ok());
  EXPECT_EQ(store.used_bytes(), 60u);

  Status refused = store.Admit(b, sb, 50);
  EXPECT_EQ(refused.code(), StatusCode::kResourceExhausted);
  for (const char* part : {"50", "40", "100", "--object-store-memory"}) {
    EXPECT_NE(refused.message().find(part), std::string::npos)
        << "missing '" << part << "' in " << refused.ToString();
  }
  EXPECT_FALSE(SegmentExists(sb)) << "the refused segment must be unlinked";
  EXPECT_FALSE(store.Contains(b));
  EXPECT_EQ(store.used_bytes(), 60u);

  ASSERT_TRUE(store.Admit(c, sc, 40).ok());  // exactly full
  EXPECT_EQ(store.used_bytes(), 100u);
  EXPECT_EQ(store.num_objects(), 2u);
  EXPECT_TRUE(store.Contains(a));
  EXPECT_TRUE(store.Contains(c));
}

TEST_F(ObjectStoreTest, HugeSizeIsRefusedNotWrappedAround) {
  ObjectStore store({tag_, 100});
  ASSERT_TRUE(store.Admit(ObjectId::FromRandom(), WriteNew(10), 10).ok());
  // A (bogus) size that would wrap used + size around to a small number.
  std::string s = WriteNew(1);
  Status st = store.Admit(ObjectId::FromRandom(), s, SIZE_MAX - 5);
  EXPECT_EQ(st.code(), StatusCode::kResourceExhausted);
  EXPECT_EQ(store.used_bytes(), 10u);
  EXPECT_EQ(store.num_objects(), 1u);
}

TEST_F(ObjectStoreTest, DuplicateAdmitKeepsTheFirstSegment) {
  ObjectStore store({tag_, 1000});
  ObjectId id = ObjectId::FromRandom();
  std::string name = SegmentName(tag_, id);
  ASSERT_TRUE(WriteSegment(name, "0123456789").ok());
  ASSERT_TRUE(store.Admit(id, name, 10).ok());
  // The same object admitted again (a retried task): refused, and the segment the
  // store already holds under that name is not removed.
  EXPECT_EQ(store.Admit(id, name, 10).code(), StatusCode::kAlreadyExists);
  EXPECT_TRUE(SegmentExists(name));
  EXPECT_TRUE(MapSegment(name, 10).ok());
  EXPECT_EQ(store.used_bytes(), 10u);
  // A different segment offered for the same id is the caller's to drop: unlinked.
  std::string stray = NewSegment();
  ASSERT_TRUE(WriteSegment(stray, "abc").ok());
  EXPECT_EQ(store.Admit(id, stray, 3).code(), StatusCode::kAlreadyExists);
  EXPECT_FALSE(SegmentExists(stray));
}

TEST_F(ObjectStoreTest, FreeUnlinksAndReleasesCapacity) {
  ObjectStore store({tag_, 100});
  ObjectId a = ObjectId::FromRandom();
  std::string sa = WriteNew(70);
  ASSERT_TRUE(store.Admit(a, sa, 70).ok());
  store.Free(a);
  EXPECT_FALSE(SegmentExists(sa));
  EXPECT_FALSE(store.Contains(a));
  EXPECT_EQ(store.used_bytes(), 0u);
  store.Free(a);                        // twice: no effect
  store.Free(ObjectId::FromRandom());   // unknown: no effect
  EXPECT_EQ(store.used_bytes(), 0u);
  ASSERT_TRUE(store.Admit(ObjectId::FromRandom(), WriteNew(100), 100).ok());
}

TEST_F(ObjectStoreTest, ForgetReleasesCapacityAndKeepsTheSegment) {
  ObjectStore store({tag_, 100});
  ObjectId a = ObjectId::FromRandom();
  std::string sa = WriteNew(70);
  ASSERT_TRUE(store.Admit(a, sa, 70).ok());
  store.Forget(a);
  EXPECT_TRUE(SegmentExists(sa));
  EXPECT_FALSE(store.Contains(a));
  EXPECT_EQ(store.used_bytes(), 0u);
}

TEST_F(ObjectStoreTest, AWritableSegmentIsFilledRenamedAndFilledAgain) {
  std::string first = NewSegment(), second = NewSegment();
  auto w = WritableSegment::Create(first, 11);
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  (*w)->Fill({"hello", " ", "world"});
  auto m = MapSegment(first, 11);
  ASSERT_TRUE(m.ok());
  EXPECT_EQ(std::string((*m)->data(), 11), "hello world");
  EXPECT_EQ(MappingPermissions((*m)->data()), "r--s") << "readers map it read-only";

  ASSERT_TRUE((*w)->Rename(second).ok());
  EXPECT_EQ((*w)->name(), second);
  EXPECT_FALSE(SegmentExists(first));
  (*w)->Fill({"second fill"});
  auto again = MapSegment(second, 11);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(std::string((*again)->data(), 11), "second fill");
  struct stat st {};  // sealed under its new name too
  ASSERT_EQ(::stat(("/dev/shm" + second).c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0400);

  EXPECT_FALSE(WritableSegment::Create(second, 5).ok()) << "the name is taken";
  EXPECT_FALSE((*w)->Rename("/no/such/dir").ok());
}

TEST_F(ObjectStoreTest, DestructorUnlinksEverything) {
  std::vector<std::string> names;
  {
    ObjectStore store({tag_, 1 << 20});
    for (int i = 0; i < 5; ++i) {
      names.push_back(WriteNew(100));
      ASSERT_TRUE(store.Admit(ObjectId::FromRandom(), names.back(), 100).ok());
    }
    for (const auto& n : names) ASSERT_TRUE(SegmentExists(n));
  }
  for (const auto& n : names) EXPECT_FALSE(SegmentExists(n)) << n;
}

}  // namespace
}  // namespace ray::object_store
