#include "runtime/raylet/peer_holds.h"

#include <gtest/gtest.h>

#include <map>
#include <type_traits>

namespace ray::raylet {
namespace {

ObjectId Id(uint32_t i) { return ObjectId::ForPut(TaskId::FromRandom(), i); }

// What a Flush sends, by node (PeerHolds; acknowledgements into `acks` if given).
std::map<std::string, protocol::PeerHolds> Flushed(PeerHolds& holds,
                                                   std::map<std::string, uint64_t>* acks = nullptr,
                                                   const std::string& unreachable = "") {
  std::map<std::string, protocol::PeerHolds> sent;
  holds.Flush([&](const std::string& node, const auto& m) {
    if (node == unreachable) return false;
    if constexpr (std::is_same_v<std::decay_t<decltype(m)>, protocol::PeerHolds>) {
      sent[node] = m;
    } else if (acks) {
      (*acks)[node] = m.seq;
    }
    return true;
  });
  return sent;
}

TEST(PeerHoldsTest, BorrowsAreBatchedPerNodeAndNumberedForTheirAcknowledgement) {
  PeerHolds holds("self");
  ObjectId a = Id(1), b = Id(2), c = Id(3);
  holds.Borrow("h1", a);
  holds.Borrow("h1", b);
  holds.Borrow("h2", c);
  holds.Borrow("self", c);  // (never said to this node)
  auto sent = Flushed(holds);
  ASSERT_EQ(sent.size(), 2u);
  EXPECT_EQ(sent["h1"].from_node, "self");
  EXPECT_EQ(sent["h1"].borrowed, (std::vector<ObjectId>{a, b}));
  EXPECT_EQ(sent["h1"].seq, 1u);
  EXPECT_EQ(sent["h2"].borrowed, (std::vector<ObjectId>{c}));
  EXPECT_TRUE(Flushed(holds).empty());  // nothing new
  holds.Borrow("h1", c);
  EXPECT_EQ(Flushed(holds)["h1"].seq, 2u);
}

TEST(PeerHoldsTest, WhatMayLetAHolderGoWaitsForTheBorrowsSaidBeforeIt) {
  PeerHolds holds("self");
  ObjectId a = Id(1), b = Id(2);
  int ran = 0;
  holds.After([&] { ++ran; });
  EXPECT_EQ(ran, 1);  // nothing to wait for
  holds.Borrow("h1", a);
  holds.After([&] { ++ran; });  // before the borrow is even sent
  holds.Unborrow("h2", b);
  EXPECT_EQ(ran, 1);
  EXPECT_TRUE(holds.Waiting());
  auto sent = Flushed(holds);
  EXPECT_EQ(sent.count("h2"), 0u);  // the unborrow waits too
  holds.Acked("h1", sent["h1"].seq);
  EXPECT_EQ(ran, 2);
  EXPECT_FALSE(holds.Waiting());
  sent = Flushed(holds);
  EXPECT_EQ(sent["h2"].unborrowed, (std::vector<ObjectId>{b}));
  EXPECT_EQ(sent["h2"].seq, 0u);  // no borrows: no acknowledgement asked
}

TEST(PeerHoldsTest, ALaterBorrowDoesNotHoldBackWhatWaitedOnlyForEarlierOnes) {
  PeerHolds holds("self");
  int ran = 0;
  holds.Borrow("h1", Id(1));
  auto first = Flushed(holds)["h1"].seq;
  holds.After([&] { ++ran; });
  holds.Borrow("h1", Id(2));  // said after: not waited for
  auto second = Flushed(holds)["h1"].seq;
  holds.Acked("h1", first);
  EXPECT_EQ(ran, 1);
  holds.After([&] { ++ran; });
  EXPECT_EQ(ran, 1);
  holds.Acked("h1", second);
  EXPECT_EQ(ran, 2);
}

TEST(PeerHoldsTest, DeferredWorkRunsInOrder) {
  PeerHolds holds("self");
  std::vector<int> order;
  holds.Borrow("h1", Id(1));
  holds.After([&] { order.push_back(1); });
  holds.Borrow("h2", Id(2));
  holds.After([&] { order.push_back(2); });
  auto sent = Flushed(holds);
  holds.Acked("h2", sent["h2"].seq);  // the second's, but the first still waits
  EXPECT_TRUE(order.empty());
  holds.Acked("h1", sent["h1"].seq);
  EXPECT_EQ(order, (std::vector<int>{1, 2}));
}

TEST(PeerHoldsTest, ADeadNodesAcknowledgementsAreNotWaitedFor) {
  PeerHolds holds("self");
  int ran = 0;
  holds.Borrow("h1", Id(1));
  Flushed(holds);
  holds.After([&] { ++ran; });
  holds.Forget("h1");
  EXPECT_EQ(ran, 1);
  holds.Borrow("h1", Id(2));
  holds.FreeCopy("h1", Id(3));
  EXPECT_TRUE(Flushed(holds).empty());  // nothing is said to it any more
}

TEST(PeerHoldsTest, CopiesToFreeGoAtTheNextFlushWithoutWaiting) {
  PeerHolds holds("self");
  ObjectId a = Id(1), b = Id(2);
  holds.Borrow("h1", a);
  Flushed(holds);
  holds.FreeCopy("h2", b);
  auto sent = Flushed(holds);
  EXPECT_EQ(sent["h2"].free_copies, (std::vector<ObjectId>{b}));
}

TEST(PeerHoldsTest, AnAcknowledgementOfAnUnknownOrOldMessageChangesNothing) {
  PeerHolds holds("self");
  int ran = 0;
  holds.Borrow("h1", Id(1));
  auto seq = Flushed(holds)["h1"].seq;
  holds.After([&] { ++ran; });
  holds.Acked("h9", 5);
  holds.Acked("h1", 0);
  EXPECT_EQ(ran, 0);
  holds.Acked("h1", seq + 7);  // (more than was sent: counts as what was sent)
  EXPECT_EQ(ran, 1);
}

TEST(PeerHoldsTest, AMessageToANodeNotReachableYetStaysQueued) {
  PeerHolds holds("self");
  ObjectId a = Id(1);
  holds.Borrow("h1", a);
  EXPECT_TRUE(Flushed(holds, nullptr, /*unreachable=*/"h1").empty());
  auto sent = Flushed(holds);
  EXPECT_EQ(sent["h1"].borrowed, (std::vector<ObjectId>{a}));
  EXPECT_EQ(sent["h1"].seq, 1u);  // (numbered when it went)
}

TEST(PeerHoldsTest, AcknowledgementsGoAtTheNextFlushAsTheLatestSeq) {
  PeerHolds holds("self");
  holds.Acknowledge("b1", 3);
  holds.Acknowledge("b1", 2);  // (an older one adds nothing)
  std::map<std::string, uint64_t> acks;
  Flushed(holds, &acks, /*unreachable=*/"b1");
  EXPECT_TRUE(acks.empty());
  Flushed(holds, &acks);
  EXPECT_EQ(acks["b1"], 3u);
  acks.clear();
  Flushed(holds, &acks);
  EXPECT_TRUE(acks.empty());  // said once
}

TEST(PeerHoldsTest, WhatWaitsTooLongGoesOnAndNamesTheSilentHome) {
  PeerHolds holds("self");
  int ran = 0;
  holds.Borrow("h1", Id(1));
  Flushed(holds);
  holds.After([&] { ++ran; }, /*now_ms=*/1000);
  EXPECT_TRUE(holds.Expire(1000 + PeerHolds::kAckTimeoutMs - 1).empty());
  EXPECT_EQ(ran, 0);
  EXPECT_EQ(holds.Expire(1000 + PeerHolds::kAckTimeoutMs), (std::vector<std::string>{"h1"}));
  EXPECT_EQ(ran, 1);
  holds.After([&] { ++ran; }, 20000);  // (its borrows count as acknowledged now)
  EXPECT_EQ(ran, 2);
}

}  // namespace
}  // namespace ray::raylet
