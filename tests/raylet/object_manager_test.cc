// ObjectManager's pulls against a node that stops sending: a ZeroMQ ROUTER in the test
// plays the serving node (real sockets on loopback, a real shared-memory segment);
// time comes from a ManualClock.

#include "runtime/raylet/object_manager.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <memory>
#include <string>

#include "runtime/base/clock.h"
#include "runtime/base/hex.h"
#include "runtime/object_store/object_store.h"
#include "runtime/transport/transport.h"
#include "tests/test_util/named_ids.h"

namespace ray::raylet {
namespace {

using protocol::MessageType;

constexpr const char* kToken = "pull-token";

class StalledPullTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto endpoint = sender_.Bind("tcp://127.0.0.1:*");
    ASSERT_TRUE(endpoint.ok());
    manager_ = std::make_unique<ObjectManager>(NodeId::FromRandom(), kToken, tag_,
                                               ObjectManager::Handlers{}, clock_);
    sender_node_ = NodeId::FromRandom().Binary();
    manager_->SetPeerAddress(sender_node_, *endpoint);
  }

  // The next message of type `type` the puller sent (skipping others), or its peer
  // identity "" if none came within 5 s.
  std::string AwaitFromPuller(MessageType type) {
    for (int i = 0; i < 50; ++i) {
      manager_->Poll();
      while (auto in = sender_.Recv(100)) {
        auto env = protocol::DecodeEnvelope(in->frame);
        if (env.ok() && env->type == type) return in->peer;
      }
    }
    return "";
  }

  // Sends chunk `index` of a shared-memory object of `chunks` chunks to `peer`.
  void SendChunk(const std::string& peer, const ObjectId& id, uint64_t index, uint64_t chunks) {
    protocol::ObjectChunk chunk;
    chunk.object_id = id;
    chunk.state = static_cast<uint8_t>(protocol::ObjectState::kShared);
    chunk.total = chunks * protocol::kChunkBytes;
    chunk.offset = index * protocol::kChunkBytes;
    auto bytes = std::make_shared<std::string>(protocol::kChunkBytes, 'x');
    ASSERT_TRUE(sender_.SendWithPayload(peer, protocol::Encode(MessageType::kObjectChunk, 0, chunk),
                                        bytes->data(), bytes->size(), bytes));
  }

  bool SegmentExists(const ObjectId& id) const {
    return std::filesystem::exists("/dev/shm/" + object_store::SegmentName(tag_, id));
  }

  ManualClock clock_{1000};
  const std::string tag_ = "t" + ToHex(RandomBytes(3));  // this test's segments
  transport::Router sender_;
  std::string sender_node_;
  std::unique_ptr<ObjectManager> manager_;
};

TEST_F(StalledPullTest, ATransferThatStopsIsDroppedToBePulledAgain) {
  ObjectId id = ObjectId::ForTaskReturn(test_util::TaskNamed("t"), 1);
  ASSERT_TRUE(manager_->Pull(id, sender_node_));
  std::string peer = AwaitFromPuller(MessageType::kPullObject);
  ASSERT_FALSE(peer.empty()) << "the pull was not asked";
  SendChunk(peer, id, 0, 2);
  ASSERT_FALSE(AwaitFromPuller(MessageType::kChunkAck).empty()) << "the first chunk was not taken";
  EXPECT_TRUE(SegmentExists(id));

  clock_.Advance(ObjectManager::kStalledPullMs - 1);
  EXPECT_TRUE(manager_->TakeStalledPulls().empty()) << "not stalled yet";
  clock_.Advance(1);
  auto stalled = manager_->TakeStalledPulls();
  ASSERT_EQ(stalled.size(), 1u);
  EXPECT_EQ(stalled[0], id);
  EXPECT_FALSE(manager_->Pulling(id));
  EXPECT_FALSE(SegmentExists(id)) << "the part written is removed";
  ASSERT_TRUE(manager_->Pull(id, sender_node_)) << "it can be pulled again";
  ASSERT_FALSE(AwaitFromPuller(MessageType::kPullObject).empty());

  // The sender wakes up: the rest of the old transfer comes before the new one.
  SendChunk(peer, id, 1, 2);
  SendChunk(peer, id, 0, 2);
  ASSERT_FALSE(AwaitFromPuller(MessageType::kChunkAck).empty()) << "the new transfer's chunk";
  EXPECT_TRUE(manager_->Pulling(id)) << "the stale chunk did not fail the pull";
  EXPECT_TRUE(SegmentExists(id));
}

TEST_F(StalledPullTest, EachChunkThatComesPutsTheDeadlineOff) {
  ObjectId id = ObjectId::ForTaskReturn(test_util::TaskNamed("slow"), 1);
  ASSERT_TRUE(manager_->Pull(id, sender_node_));
  std::string peer = AwaitFromPuller(MessageType::kPullObject);
  ASSERT_FALSE(peer.empty());
  SendChunk(peer, id, 0, 3);
  ASSERT_FALSE(AwaitFromPuller(MessageType::kChunkAck).empty());
  clock_.Advance(ObjectManager::kStalledPullMs - 1000);
  SendChunk(peer, id, 1, 3);
  ASSERT_FALSE(AwaitFromPuller(MessageType::kChunkAck).empty());
  clock_.Advance(ObjectManager::kStalledPullMs - 1000);
  EXPECT_TRUE(manager_->TakeStalledPulls().empty()) << "measured from the last chunk";
  clock_.Advance(1000);
  EXPECT_EQ(manager_->TakeStalledPulls().size(), 1u);
}

TEST_F(StalledPullTest, APullNotBegunWaitsForItsObjectHoweverLong) {
  ObjectId id = ObjectId::ForTaskReturn(test_util::TaskNamed("later"), 1);
  ASSERT_TRUE(manager_->Pull(id, sender_node_));
  ASSERT_FALSE(AwaitFromPuller(MessageType::kPullObject).empty());
  clock_.Advance(10 * ObjectManager::kStalledPullMs);
  EXPECT_TRUE(manager_->TakeStalledPulls().empty());
  EXPECT_TRUE(manager_->Pulling(id));
}

}  // namespace
}  // namespace ray::raylet
