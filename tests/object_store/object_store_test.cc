#include "runtime/object_store/object_store.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <poll.h>

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <fstream>
#include <sstream>

#include "runtime/base/util.h"
#include "runtime/object_store/spill_files.h"
#include "tests/test_util/temp_dir.h"

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
  ObjectStore store({tag_, 100, ""});
  EXPECT_EQ(store.tag(), tag_);
  EXPECT_EQ(store.capacity_bytes(), 100u);
  ObjectId a = ObjectId::FromRandom(), b = ObjectId::FromRandom(), c = ObjectId::FromRandom();
  std::string sa = WriteNew(60), sb = WriteNew(50), sc = WriteNew(40);
  ASSERT_TRUE(store.Admit(a, sa, 60).ok());
  EXPECT_EQ(store.used_bytes(), 60u);

  Status refused = store.Admit(b, sb, 50);
  EXPECT_EQ(refused.code(), StatusCode::kResourceExhausted);
  for (const char* part :
       {"needs 50", "capacity 100", "in use 60", "pinned 0", "--object-store-memory"}) {
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
  ObjectStore store({tag_, 100, ""});
  ASSERT_TRUE(store.Admit(ObjectId::FromRandom(), WriteNew(10), 10).ok());
  // A (bogus) size that would wrap used + size around to a small number.
  std::string s = WriteNew(1);
  Status st = store.Admit(ObjectId::FromRandom(), s, SIZE_MAX - 5);
  EXPECT_EQ(st.code(), StatusCode::kResourceExhausted);
  EXPECT_EQ(store.used_bytes(), 10u);
  EXPECT_EQ(store.num_objects(), 1u);
}

TEST_F(ObjectStoreTest, DuplicateAdmitKeepsTheFirstSegment) {
  ObjectStore store({tag_, 1000, ""});
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
  ObjectStore store({tag_, 100, ""});
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
  ObjectStore store({tag_, 100, ""});
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
    ObjectStore store({tag_, 1 << 20, ""});
    for (int i = 0; i < 5; ++i) {
      names.push_back(WriteNew(100));
      ASSERT_TRUE(store.Admit(ObjectId::FromRandom(), names.back(), 100).ok());
    }
    for (const auto& n : names) ASSERT_TRUE(SegmentExists(n));
  }
  for (const auto& n : names) EXPECT_FALSE(SegmentExists(n)) << n;
}

// --- a full store: eviction, spilling, restore

class FullStoreTest : public ObjectStoreTest {
 protected:
  // Object `id`'s segment in this store, holding `size` bytes of a pattern of `seed`.
  std::string Write(const ObjectId& id, size_t size, char seed) {
    std::string name = SegmentName(tag_, id);
    EXPECT_TRUE(WriteSegment(name, Pattern(size, seed)).ok());
    return name;
  }
  static std::string Pattern(size_t size, char seed) {
    std::string s(size, '\0');
    for (size_t i = 0; i < size; ++i) s[i] = static_cast<char>(seed + i * 31 + i / 4096);
    return s;
  }
  std::string Read(const ObjectId& id, size_t size) {
    auto m = MapSegment(SegmentName(tag_, id), size);
    return m.ok() ? std::string((*m)->data(), size) : "<" + m.status().ToString() + ">";
  }
  std::string SpillDir() { return dir_.path() + "/spill"; }
  StoreOptions Options(size_t capacity) { return {tag_, capacity, SpillDir()}; }

  test_util::TempDir dir_;
  std::unordered_set<std::string> mapped_;  // what the store sees as pinned
  ObjectStore::MappedSegments Mapped() {
    return [this] { return mapped_; };
  }
};

TEST_F(FullStoreTest, EvictsUnreferencedCopiesLeastRecentlyUsedFirst) {
  ObjectStore store(Options(300), Mapped());
  ObjectId a = ObjectId::FromRandom(), b = ObjectId::FromRandom(), c = ObjectId::FromRandom();
  ASSERT_TRUE(store.Admit(a, Write(a, 100, 'a'), 100, /*referenced=*/false).ok());
  ASSERT_TRUE(store.Admit(b, Write(b, 100, 'b'), 100, /*referenced=*/false).ok());
  ASSERT_TRUE(store.Admit(c, Write(c, 100, 'c'), 100, /*referenced=*/true).ok());
  store.Touch(a);  // b is now the least recently used

  ObjectId d = ObjectId::FromRandom();
  ASSERT_TRUE(store.Admit(d, Write(d, 100, 'd'), 100).ok());
  EXPECT_EQ(store.TakeEvicted(), std::vector<ObjectId>{b});
  EXPECT_FALSE(store.Contains(b));
  EXPECT_FALSE(SegmentExists(SegmentName(tag_, b)));
  EXPECT_TRUE(store.Contains(a));
  EXPECT_FALSE(store.Spilled(c)) << "a referenced object spills only when evicting is not enough";
  EXPECT_EQ(store.used_bytes(), 300u);
  EXPECT_EQ(store.spilled_bytes(), 0u);
}

TEST_F(FullStoreTest, SpillsReferencedObjectsAndRestoresTheSameBytes) {
  ObjectStore store(Options(250), Mapped());
  ObjectId a = ObjectId::FromRandom(), b = ObjectId::FromRandom(), c = ObjectId::FromRandom();
  ASSERT_TRUE(store.Admit(a, Write(a, 100, 'a'), 100).ok());
  ASSERT_TRUE(store.Admit(b, Write(b, 100, 'b'), 100).ok());
  ASSERT_TRUE(store.Admit(c, Write(c, 100, 'c'), 100).ok());  // spills a

  EXPECT_TRUE(store.TakeEvicted().empty()) << "referenced objects are never evicted";
  EXPECT_TRUE(store.Spilled(a));
  EXPECT_FALSE(SegmentExists(SegmentName(tag_, a)));
  const std::string file = SpillPath(SpillDir(), tag_, a);
  struct stat st {};
  ASSERT_EQ(::stat(file.c_str(), &st), 0) << file;
  EXPECT_EQ(st.st_mode & 0777, 0600);
  EXPECT_EQ(st.st_size, 100);
  EXPECT_EQ(store.used_bytes(), 200u);
  EXPECT_EQ(store.spilled_bytes(), 100u);

  ASSERT_TRUE(store.Restore(a).ok());  // spills b, the least recently used now
  EXPECT_EQ(Read(a, 100), Pattern(100, 'a'));
  EXPECT_FALSE(store.Spilled(a));
  EXPECT_NE(::stat(file.c_str(), &st), 0) << "a restored object's file is removed";
  EXPECT_TRUE(store.Spilled(b));
  EXPECT_FALSE(store.Spilled(c));
  ASSERT_TRUE(store.Restore(b).ok());
  EXPECT_EQ(Read(b, 100), Pattern(100, 'b'));
  EXPECT_TRUE(store.Restore(b).ok()) << "restoring an object in memory is a no-op";
}

TEST_F(FullStoreTest, FreeingASpilledObjectRemovesItsFile) {
  ObjectStore store(Options(100), Mapped());
  ObjectId a = ObjectId::FromRandom(), b = ObjectId::FromRandom();
  ASSERT_TRUE(store.Admit(a, Write(a, 100, 'a'), 100).ok());
  ASSERT_TRUE(store.Admit(b, Write(b, 100, 'b'), 100).ok());
  ASSERT_TRUE(store.Spilled(a));
  store.Free(a);
  struct stat st {};
  EXPECT_NE(::stat(SpillPath(SpillDir(), tag_, a).c_str(), &st), 0);
  EXPECT_EQ(store.spilled_bytes(), 0u);
  EXPECT_FALSE(store.Contains(a));
}

TEST_F(FullStoreTest, TheStoreRemovesItsSpillFilesWhenItGoes) {
  ObjectId a = ObjectId::FromRandom(), b = ObjectId::FromRandom();
  {
    ObjectStore store(Options(100), Mapped());
    ASSERT_TRUE(store.Admit(a, Write(a, 100, 'a'), 100).ok());
    ASSERT_TRUE(store.Admit(b, Write(b, 100, 'b'), 100).ok());
    ASSERT_TRUE(store.Spilled(a));
  }
  struct stat st {};
  EXPECT_NE(::stat(SpillPath(SpillDir(), tag_, a).c_str(), &st), 0);
}

TEST_F(FullStoreTest, PinnedObjectsStayAndTheRefusalNamesTheSizes) {
  ObjectStore store(Options(200), Mapped());
  ObjectId a = ObjectId::FromRandom(), b = ObjectId::FromRandom(), c = ObjectId::FromRandom();
  ASSERT_TRUE(store.Admit(a, Write(a, 100, 'a'), 100, /*referenced=*/false).ok());
  ASSERT_TRUE(store.Admit(b, Write(b, 100, 'b'), 100).ok());
  mapped_ = {SegmentName(tag_, a), SegmentName(tag_, b)};  // some process maps both

  std::string sc = Write(c, 50, 'c');
  Status refused = store.Admit(c, sc, 50);
  EXPECT_EQ(refused.code(), StatusCode::kResourceExhausted);
  for (const char* part : {"needs 50 bytes", "capacity 200", "in use 200", "pinned 200"}) {
    EXPECT_NE(refused.message().find(part), std::string::npos)
        << "missing '" << part << "' in " << refused.ToString();
  }
  EXPECT_FALSE(SegmentExists(sc));
  EXPECT_TRUE(store.Contains(a));
  EXPECT_FALSE(store.Spilled(b));
  EXPECT_TRUE(store.TakeEvicted().empty());

  mapped_ = {SegmentName(tag_, a)};  // b unmapped: it may spill now
  ASSERT_TRUE(store.Admit(c, Write(c, 50, 'c'), 50).ok());
  EXPECT_TRUE(store.Spilled(b));
  EXPECT_TRUE(store.Contains(a));
}

TEST_F(FullStoreTest, WithoutASpillDirectoryReferencedObjectsAreNeverMoved) {
  ObjectStore store({tag_, 100, ""}, Mapped());
  ObjectId a = ObjectId::FromRandom(), b = ObjectId::FromRandom();
  ASSERT_TRUE(store.Admit(a, Write(a, 100, 'a'), 100).ok());
  EXPECT_EQ(store.Admit(b, Write(b, 10, 'b'), 10).code(), StatusCode::kResourceExhausted);
  EXPECT_FALSE(store.Spilled(a));
  EXPECT_EQ(Read(a, 100), Pattern(100, 'a'));
}

TEST_F(FullStoreTest, ARestoreWithoutRoomLeavesTheObjectSpilled) {
  ObjectStore store(Options(100), Mapped());
  ObjectId a = ObjectId::FromRandom(), b = ObjectId::FromRandom();
  ASSERT_TRUE(store.Admit(a, Write(a, 100, 'a'), 100).ok());
  ASSERT_TRUE(store.Admit(b, Write(b, 100, 'b'), 100).ok());
  mapped_ = {SegmentName(tag_, b)};
  EXPECT_EQ(store.Restore(a).code(), StatusCode::kResourceExhausted);
  EXPECT_TRUE(store.Spilled(a));
  mapped_.clear();
  ASSERT_TRUE(store.Restore(a).ok());
  EXPECT_EQ(Read(a, 100), Pattern(100, 'a'));
}

// --- spilling and restoring on the store's thread (background_io)

// Holds the store's disk jobs until the test opens the gate: the owner's calls must
// return meanwhile (nothing of the store waits for the disk).
class Gate {
 public:
  Status Run(const SpillWorker::Job& job) {
    std::unique_lock<std::mutex> lock(mu_);
    ++started_;
    cv_.notify_all();
    cv_.wait(lock, [&] { return open_; });
    return SpillWorker::RunOnDisk(job);
  }
  void Open() {
    std::lock_guard<std::mutex> lock(mu_);
    open_ = true;
    cv_.notify_all();
  }
  // Waits (at most 10 s) until `n` jobs have started.
  bool Started(int n) {
    std::unique_lock<std::mutex> lock(mu_);
    return cv_.wait_for(lock, std::chrono::seconds(10), [&] { return started_ >= n; });
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  bool open_ = false;
  int started_ = 0;
};

class BackgroundStoreTest : public FullStoreTest {
 protected:
  StoreOptions Background(size_t capacity) {
    StoreOptions o = Options(capacity);
    o.background_io = true;
    o.run_io_job = [this](const SpillWorker::Job& job) { return gate_.Run(job); };
    return o;
  }
  // Ends the store's finished jobs, waiting (at most 10 s) until none is in flight.
  std::vector<ObjectStore::Restored> Settle(ObjectStore& store) {
    std::vector<ObjectStore::Restored> all;
    for (int i = 0; i < 1000 && store.IoPending(); ++i) {
      pollfd p{store.io_fd(), POLLIN, 0};
      ::poll(&p, 1, 10);
      for (auto& r : store.CompleteIo()) all.push_back(std::move(r));
    }
    EXPECT_FALSE(store.IoPending()) << "jobs still in flight after 10 s";
    return all;
  }
  bool FileExists(const ObjectId& id) {
    struct stat st {};
    return ::stat(SpillPath(SpillDir(), tag_, id).c_str(), &st) == 0;
  }
  Gate gate_;
};

TEST_F(BackgroundStoreTest, AnAdmitThatSpillsReturnsWhileTheFileIsWritten) {
  ObjectStore store(Background(210), Mapped());
  ObjectId a = ObjectId::FromRandom(), b = ObjectId::FromRandom(), c = ObjectId::FromRandom();
  ASSERT_TRUE(store.Admit(a, Write(a, 100, 'a'), 100).ok());
  ASSERT_TRUE(store.Admit(b, Write(b, 100, 'b'), 100).ok());
  ASSERT_TRUE(store.Admit(c, Write(c, 100, 'c'), 100).ok());  // spills a: held at the gate
  ASSERT_TRUE(gate_.Started(1));
  // The spill is in progress: a stays in its segment, readable; the rest of the store
  // works (another object comes and goes).
  EXPECT_TRUE(store.IoPending());
  EXPECT_FALSE(store.Spilled(a));
  EXPECT_EQ(Read(a, 100), Pattern(100, 'a'));
  EXPECT_EQ(store.used_bytes(), 200u);
  EXPECT_EQ(store.spilling_bytes(), 100u);
  ObjectId d = ObjectId::FromRandom();
  ASSERT_TRUE(store.Admit(d, Write(d, 10, 'd'), 10, /*referenced=*/false).ok());
  store.Free(d);
  gate_.Open();
  Settle(store);
  // Its file complete, then its segment gone.
  EXPECT_TRUE(store.Spilled(a));
  EXPECT_FALSE(SegmentExists(SegmentName(tag_, a)));
  EXPECT_TRUE(FileExists(a));
  EXPECT_EQ(store.spilled_bytes(), 100u);
  EXPECT_EQ(store.spilling_bytes(), 0u);
  // Restored in the background too, the same bytes.
  mapped_ = {SegmentName(tag_, c)};
  EXPECT_EQ(store.StartRestore(a).code(), StatusCode::kUnavailable);  // spills b meanwhile
  auto restored = Settle(store);
  ASSERT_EQ(restored.size(), 1u);
  EXPECT_EQ(restored[0].id, a);
  EXPECT_TRUE(restored[0].status.ok()) << restored[0].status.ToString();
  EXPECT_FALSE(store.Spilled(a));
  EXPECT_EQ(Read(a, 100), Pattern(100, 'a'));
  EXPECT_FALSE(FileExists(a));
  EXPECT_TRUE(store.Spilled(b));
  EXPECT_EQ(store.StartRestore(c).code(), StatusCode::kOk) << "in memory: nothing to do";
}

TEST_F(BackgroundStoreTest, AReadDuringTheSpillKeepsTheObjectInMemory) {
  ObjectStore store(Background(100), Mapped());
  ObjectId a = ObjectId::FromRandom(), b = ObjectId::FromRandom();
  ASSERT_TRUE(store.Admit(a, Write(a, 100, 'a'), 100).ok());
  ASSERT_TRUE(store.Admit(b, Write(b, 100, 'b'), 100).ok());
  ASSERT_TRUE(gate_.Started(1));
  store.Touch(a);  // a reader was given its segment
  gate_.Open();
  Settle(store);
  EXPECT_FALSE(store.Spilled(a));
  EXPECT_EQ(Read(a, 100), Pattern(100, 'a'));
  EXPECT_FALSE(FileExists(a)) << "the file of a cancelled spill goes";
  EXPECT_EQ(store.used_bytes(), 200u) << "over capacity until the next room is made";
}

TEST_F(BackgroundStoreTest, AnObjectFreedDuringItsSpillOrRestoreLeavesNothing) {
  ObjectStore store(Background(100), Mapped());
  ObjectId a = ObjectId::FromRandom(), b = ObjectId::FromRandom();
  ASSERT_TRUE(store.Admit(a, Write(a, 100, 'a'), 100).ok());
  ASSERT_TRUE(store.Admit(b, Write(b, 100, 'b'), 100).ok());  // spills a
  ASSERT_TRUE(gate_.Started(1));
  store.Free(a);
  EXPECT_FALSE(store.Contains(a));
  EXPECT_EQ(store.Admit(a, SegmentName(tag_, a), 100).code(), StatusCode::kAlreadyExists)
      << "the id is refused until its job ends";
  gate_.Open();
  Settle(store);
  EXPECT_FALSE(FileExists(a));
  EXPECT_FALSE(SegmentExists(SegmentName(tag_, a)));
  EXPECT_EQ(store.spilling_bytes(), 0u);
  EXPECT_EQ(store.spilled_bytes(), 0u);

  ObjectId c = ObjectId::FromRandom();
  ASSERT_TRUE(store.Admit(c, Write(c, 100, 'c'), 100).ok());  // spills b
  Settle(store);
  ASSERT_TRUE(store.Spilled(b));
  store.Free(c);
  EXPECT_EQ(store.StartRestore(b).code(), StatusCode::kUnavailable);
  store.Free(b);
  auto restored = Settle(store);
  ASSERT_EQ(restored.size(), 1u);
  EXPECT_FALSE(restored[0].status.ok());
  EXPECT_FALSE(FileExists(b));
  EXPECT_FALSE(SegmentExists(SegmentName(tag_, b)));
  EXPECT_EQ(store.used_bytes(), 0u);
  EXPECT_EQ(store.num_objects(), 0u);
}

TEST_F(FullStoreTest, AMissingSpillFileIsDataLoss) {
  ObjectStore store(Options(100), Mapped());
  ObjectId a = ObjectId::FromRandom(), b = ObjectId::FromRandom();
  ASSERT_TRUE(store.Admit(a, Write(a, 100, 'a'), 100).ok());
  ASSERT_TRUE(store.Admit(b, Write(b, 100, 'b'), 100).ok());
  ::unlink(SpillPath(SpillDir(), tag_, a).c_str());
  Status st = store.Restore(a);
  EXPECT_EQ(st.code(), StatusCode::kDataLoss) << st.ToString();
  EXPECT_NE(st.message().find(a.Hex()), std::string::npos) << st.ToString();
}

TEST_F(ObjectStoreTest, SegmentsMappedByNamesThisStoresMappedSegments) {
  std::string name = WriteNew(4096);
  auto m = MapSegment(name, 4096);
  ASSERT_TRUE(m.ok());
  EXPECT_EQ(SegmentsMappedBy(::getpid(), tag_).count(name), 1u);
  EXPECT_TRUE(SegmentsMappedBy(::getpid(), "other" + tag_).empty());
  m->reset();
  EXPECT_EQ(SegmentsMappedBy(::getpid(), tag_).count(name), 0u);
}

}  // namespace
}  // namespace ray::object_store
