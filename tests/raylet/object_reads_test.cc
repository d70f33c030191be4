#include "runtime/raylet/object_reads.h"

#include <gtest/gtest.h>
#include <poll.h>

#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "runtime/base/clock.h"
#include "runtime/base/util.h"
#include "runtime/object_store/spill_files.h"
#include "runtime/raylet/local_leases.h"
#include "tests/raylet/sent_frames.h"
#include "tests/test_util/named_ids.h"
#include "tests/test_util/temp_dir.h"

namespace ray::raylet {
namespace {

using protocol::MessageType;
using protocol::ObjectState;

ObjectId Obj(const std::string& name) {
  return ObjectId::ForTaskReturn(test_util::TaskNamed(name), 1);
}

// The readers of a node whose store holds 100 bytes in shared memory (spilling to a
// directory on the store's thread), with busy worker w1, and what they were answered.
class ObjectReadsTest : public ::testing::Test {
 protected:
  ObjectReadsTest()
      : store_({"rt" + ToHex(RandomBytes(4)), 100, dir_.path() + "/spill", /*background_io=*/true}),
        objects_(clock_),
        leases_({clients_, available_, ready_, outbox_, clock_, [](size_t) {}, [] {}}),
        lending_({clients_, available_, leases_, [] {}}),
        reads_({objects_, store_, outbox_, lending_, [this] { ++evictions_; },
                [this](const ObjectId& id, const std::string& hint) { located_[id] = hint; },
                [this](Waiter& w) { args_ready_.push_back(w.task.task_id); },
                [this](Waiter& w) { pulls_ready_.push_back(w.peer); }}) {
    clients_.AddStarting("w1");
    clients_.Register(*clients_.Find("w1"), 100, "ipc://w1");
    clients_.TakeFirstIdle();
    Client& w = *clients_.Find("w1");
    w.state = Client::kBusy;
    w.held = ResourceSet::FromDoubles({{"CPU", 1}});
    w.running = protocol::TaskSpec();
    w.running->resources = {{"CPU", 1}};
  }
  ~ObjectReadsTest() override { object_store::UnlinkAllSegments(store_.tag()); }

  std::shared_ptr<Waiter> Reader(Waiter::Kind kind, std::vector<ObjectId> ids,
                                 int64_t timeout_ms = -1) {
    auto w = std::make_shared<Waiter>();
    w->kind = kind;
    w->peer = "w1";
    w->request_id = ++next_request_;
    w->ids = std::move(ids);
    w->deadline_ms = timeout_ms < 0 ? -1 : clock_.MonoMillis() + timeout_ms;
    return w;
  }
  // As the raylet's Get: the reader waits, and its worker lends its CPU meanwhile.
  void Get(const std::shared_ptr<Waiter>& w) {
    reads_.Await(w);
    lending_.Blocked(*clients_.Find("w1"), w);
  }

  void Insert(const ObjectId& id, const std::string& inline_data) {
    objects_.Insert(id, StoredObject{ObjectState::kInline, inline_data, "", 0},
                    [&](const std::shared_ptr<Waiter>& w) { reads_.Complete(w); });
  }
  // An object of `size` bytes in its own segment, admitted to the store.
  void Put(const ObjectId& id, size_t size, char fill) {
    std::string name = object_store::SegmentName(store_.tag(), id);
    ASSERT_TRUE(object_store::WriteSegment(name, std::string(size, fill)).ok());
    ASSERT_TRUE(store_.Admit(id, name, size).ok());
    objects_.Insert(id, StoredObject{ObjectState::kShared, "", name, size},
                    [&](const std::shared_ptr<Waiter>& w) { reads_.Complete(w); });
  }
  // Runs the store's background jobs to their end (at most 10 s), as the raylet's loop.
  void Settle() {
    for (int i = 0; i < 1000 && store_.IoPending(); ++i) {
      pollfd p{store_.io_fd(), POLLIN, 0};
      ::poll(&p, 1, 10);
      reads_.OnStoreIo();
    }
    ASSERT_FALSE(store_.IoPending()) << "jobs still in flight after 10 s";
  }

  std::vector<protocol::GetReply> GetReplies() {
    std::vector<protocol::GetReply> out;
    for (const auto& f : FlushFrames(outbox_)) {
      EXPECT_EQ(f.type, MessageType::kGetReply);
      auto reply = protocol::DecodeBody<protocol::GetReply>(f.body, "GetReply");
      EXPECT_TRUE(reply.ok());
      if (reply.ok()) out.push_back(std::move(*reply));
    }
    return out;
  }

  test_util::TempDir dir_;
  ManualClock clock_{1000};
  object_store::ObjectStore store_;
  ObjectTable objects_;
  ClientTable clients_;
  ResourceSet available_;
  scheduler::LocalTaskQueue ready_;
  Outbox outbox_;
  LocalLeases leases_;
  CpuLending lending_;
  int evictions_ = 0;
  std::map<ObjectId, std::string> located_;
  std::vector<TaskId> args_ready_;
  std::vector<std::string> pulls_ready_;
  uint64_t next_request_ = 0;
  ObjectReads reads_;
};

TEST_F(ObjectReadsTest, AGetIsAnsweredOnceAllItsObjectsAreHere) {
  auto w = Reader(Waiter::kGet, {Obj("a"), Obj("b")});
  w->origin = "nodeB";
  Get(w);
  EXPECT_EQ(located_, (std::map<ObjectId, std::string>{{Obj("a"), "nodeB"}, {Obj("b"), "nodeB"}}));
  EXPECT_TRUE(clients_.Find("w1")->blocked);
  Insert(Obj("a"), "A");
  EXPECT_TRUE(GetReplies().empty());
  Insert(Obj("b"), "B");
  auto replies = GetReplies();
  ASSERT_EQ(replies.size(), 1u);
  ASSERT_EQ(replies[0].objects.size(), 2u);
  EXPECT_EQ(replies[0].objects[0].id, Obj("a"));
  EXPECT_EQ(replies[0].objects[0].data, "A");
  EXPECT_EQ(replies[0].objects[1].data, "B");
  EXPECT_EQ(replies[0].objects[1].state, static_cast<uint8_t>(ObjectState::kInline));
  EXPECT_FALSE(clients_.Find("w1")->blocked) << "its CPU is back once answered";
  reads_.Complete(w);
  EXPECT_TRUE(GetReplies().empty()) << "answered once";
}

TEST_F(ObjectReadsTest, AtItsDeadlineAReaderGetsWhatIsReady) {
  Insert(Obj("a"), "A");
  auto get = Reader(Waiter::kGet, {Obj("a"), Obj("b")}, /*timeout_ms=*/50);
  Get(get);
  auto wait = Reader(Waiter::kWait, {Obj("a"), Obj("b")}, /*timeout_ms=*/80);
  wait->task.num_returns = 2;
  reads_.Await(wait);
  clock_.Advance(50);
  reads_.ExpireDeadlines();
  auto replies = GetReplies();
  ASSERT_EQ(replies.size(), 1u) << "the Wait's deadline has not come";
  EXPECT_EQ(replies[0].objects[0].data, "A");
  EXPECT_EQ(replies[0].objects[1].state, static_cast<uint8_t>(ObjectState::kMissing));

  clock_.Advance(30);
  reads_.ExpireDeadlines();
  auto frames = FlushFrames(outbox_);
  ASSERT_EQ(frames.size(), 1u);
  ASSERT_EQ(frames[0].type, MessageType::kWaitReply);
  auto reply = protocol::DecodeBody<protocol::WaitReply>(frames[0].body, "WaitReply");
  ASSERT_TRUE(reply.ok());
  EXPECT_EQ(reply->ready, (std::vector<uint8_t>{1, 0}));
}

TEST_F(ObjectReadsTest, TasksAndPullsWhoseObjectsAreHereGoToTheRaylet) {
  auto task = Reader(Waiter::kTask, {Obj("a")});
  task->task.task_id = test_util::TaskNamed("waits");
  reads_.Await(task);
  auto pull = Reader(Waiter::kPeerPull, {Obj("a")});
  pull->peer = "nodeB-peer";
  reads_.Await(pull);
  EXPECT_TRUE(args_ready_.empty());
  EXPECT_TRUE(pulls_ready_.empty());
  Insert(Obj("a"), "A");
  EXPECT_EQ(args_ready_, std::vector<TaskId>{test_util::TaskNamed("waits")});
  EXPECT_EQ(pulls_ready_, std::vector<std::string>{"nodeB-peer"});
  EXPECT_TRUE(FlushFrames(outbox_).empty()) << "no client is answered for them";
}

TEST_F(ObjectReadsTest, ASpilledObjectIsRestoredOnTheStoresThreadBeforeItsReaderIsAnswered) {
  Put(Obj("a"), 100, 'a');
  Put(Obj("b"), 100, 'b');  // spills a
  Settle();
  ASSERT_TRUE(store_.Spilled(Obj("a")));

  Get(Reader(Waiter::kGet, {Obj("a")}));
  EXPECT_TRUE(GetReplies().empty()) << "not before a is back in memory";
  Settle();
  auto replies = GetReplies();
  ASSERT_EQ(replies.size(), 1u);
  const protocol::ObjectPayload& a = replies[0].objects.at(0);
  EXPECT_EQ(a.state, static_cast<uint8_t>(ObjectState::kShared));
  EXPECT_EQ(a.shm_name, object_store::SegmentName(store_.tag(), Obj("a")));
  EXPECT_FALSE(store_.Spilled(Obj("a")));
  auto mapped = object_store::MapSegment(a.shm_name, 100);
  ASSERT_TRUE(mapped.ok());
  EXPECT_EQ(std::string((*mapped)->data(), 100), std::string(100, 'a'));
  EXPECT_TRUE(store_.Spilled(Obj("b"))) << "b made room for it";
}

TEST_F(ObjectReadsTest, AnObjectThatCannotBeRestoredIsAnErrorForItsReader) {
  Put(Obj("a"), 100, 'a');
  Put(Obj("b"), 100, 'b');  // spills a
  Settle();
  ASSERT_TRUE(store_.Spilled(Obj("a")));
  ::unlink(object_store::SpillPath(dir_.path() + "/spill", store_.tag(), Obj("a")).c_str());
  Get(Reader(Waiter::kGet, {Obj("a")}));
  Settle();
  auto replies = GetReplies();
  ASSERT_EQ(replies.size(), 1u);
  const protocol::ObjectPayload& a = replies[0].objects.at(0);
  ASSERT_EQ(a.state, static_cast<uint8_t>(ObjectState::kError));
  auto error = ray::internal::Unpack<ray::internal::ErrorInfo>(a.data.data(), a.data.size());
  EXPECT_NE(error.message.find("cannot restore spilled object " + Obj("a").Hex()),
            std::string::npos)
      << error.message;
}

TEST_F(ObjectReadsTest, AReaderOfObjectsOneOfWhichCannotBeRestoredGetsTheOthers) {
  Put(Obj("a"), 100, 'a');
  Put(Obj("b"), 100, 'b');  // spills a
  Put(Obj("c"), 100, 'c');  // spills b
  Settle();
  ASSERT_TRUE(store_.Spilled(Obj("a")));
  ASSERT_TRUE(store_.Spilled(Obj("b")));
  ::unlink(object_store::SpillPath(dir_.path() + "/spill", store_.tag(), Obj("a")).c_str());
  Get(Reader(Waiter::kGet, {Obj("a"), Obj("b")}));
  Settle();
  auto replies = GetReplies();
  ASSERT_EQ(replies.size(), 1u) << "answered once, after b is back";
  ASSERT_EQ(replies[0].objects.size(), 2u);
  EXPECT_EQ(replies[0].objects[0].state, static_cast<uint8_t>(ObjectState::kError));
  const protocol::ObjectPayload& b = replies[0].objects[1];
  ASSERT_EQ(b.state, static_cast<uint8_t>(ObjectState::kShared));
  auto mapped = object_store::MapSegment(b.shm_name, 100);
  ASSERT_TRUE(mapped.ok());
  EXPECT_EQ(std::string((*mapped)->data(), 100), std::string(100, 'b'));
}

}  // namespace
}  // namespace ray::raylet
