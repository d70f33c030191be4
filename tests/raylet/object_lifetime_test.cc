// ObjectLifetime on the raylet's real tables (objects held here, holds said to other
// nodes, remote nodes, placement). The store's frees and the actors unreferenced are
// kept; what other nodes are told is read from PeerHolds::Flush, as the raylet sends it.

#include "runtime/raylet/object_lifetime.h"

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <utility>
#include <vector>

namespace ray::raylet {
namespace {

class ObjectLifetimeTest : public ::testing::Test {
 protected:
  ObjectLifetimeTest()
      : peer_holds_(self_),
        lifetime_({self_, objects_, peer_holds_, remote_, placement_, clock_,
                   [this](const ObjectId& id, bool keep) {
                     freed_shared_.push_back({id, keep});
                   },
                   [this](const ActorId& id) { unreferenced_.push_back(id); },
                   [this](const TaskId&) { return keep_arguments_; }, [] { return false; }}) {}

  // An object homed on `node` (its task submitted there).
  ObjectId PutOn(const std::string& node) {
    return ObjectId::ForPut(NewTaskId(job_, NodeId::FromBinary(node)), 1);
  }
  void Store(const ObjectId& id, protocol::ObjectState state = protocol::ObjectState::kInline) {
    objects_.Insert(id, StoredObject{state, "v", "", 0}, [](const auto&) {});
  }
  // The owner (a driver here) lets go of `id`.
  void OwnerFrees(const ObjectId& id, bool keep_segment = false) {
    protocol::FreeObjects m;
    m.ids = {id};
    if (keep_segment) m.keep_segments = {id};
    lifetime_.OnFree("driver", m);
  }
  void Borrow(const std::string& peer, const ObjectId& id) {
    protocol::FreeObjects m;
    m.borrowed = {id};
    lifetime_.OnFree(peer, m);
  }
  void Unborrow(const std::string& peer, const ObjectId& id) {
    protocol::FreeObjects m;
    m.unborrowed = {id};
    lifetime_.OnFree(peer, m);
  }
  // What this node tells other nodes now, by node.
  std::map<std::string, protocol::PeerHolds> Told() {
    std::map<std::string, protocol::PeerHolds> told;
    peer_holds_.Flush([&](const std::string& node, const auto& m) {
      if constexpr (std::is_same_v<std::decay_t<decltype(m)>, protocol::PeerHolds>) told[node] = m;
      return true;
    });
    return told;
  }
  void Join(const std::string& node) { placement_.UpdateNode(node, true, true, {}, {}, 0); }

  const JobId job_ = JobId::FromBinary("jjjj");
  const std::string self_ = NodeId::FromRandom().Binary();
  const std::string b_ = NodeId::FromRandom().Binary();
  ManualClock clock_;
  ObjectTable objects_{clock_};
  PeerHolds peer_holds_;
  RemoteNodes remote_;
  scheduler::Placement placement_{scheduler::ResourceSet{}};
  std::vector<std::pair<ObjectId, bool>> freed_shared_;
  std::vector<ActorId> unreferenced_;
  bool keep_arguments_ = false;
  ObjectLifetime lifetime_;
};

TEST_F(ObjectLifetimeTest, AnObjectGoesOnceItsOwnerAndItsLastBorrowerLetGo) {
  const ObjectId id = PutOn(self_);
  Store(id);
  Borrow("worker", id);
  OwnerFrees(id);
  EXPECT_TRUE(objects_.Ready(id)) << "borrowed";
  Unborrow("worker", id);
  EXPECT_FALSE(objects_.Ready(id));
  // Nobody borrowed it: it goes with its owner's letting go.
  const ObjectId other = ObjectId::ForPut(id.Task(), 2);
  Store(other);
  OwnerFrees(other);
  EXPECT_FALSE(objects_.Ready(other));
}

TEST_F(ObjectLifetimeTest, WhatAValueHeldGoesWithIt) {
  const ObjectId outer = PutOn(self_), inner = ObjectId::ForPut(outer.Task(), 2);
  Store(outer);
  Store(inner);
  lifetime_.AddHolds({inner}, ObjectHolds::Object(outer));
  OwnerFrees(inner);
  EXPECT_TRUE(objects_.Ready(inner)) << "the outer object's value holds it";
  OwnerFrees(outer);
  EXPECT_FALSE(objects_.Ready(outer));
  EXPECT_FALSE(objects_.Ready(inner));
}

TEST_F(ObjectLifetimeTest, ASharedObjectsSegmentIsFreedOrKeptForItsClient) {
  const ObjectId a = PutOn(self_), b = ObjectId::ForPut(a.Task(), 2);
  Store(a, protocol::ObjectState::kShared);
  Store(b, protocol::ObjectState::kShared);
  OwnerFrees(a);
  OwnerFrees(b, /*keep_segment=*/true);
  EXPECT_EQ(freed_shared_, (std::vector<std::pair<ObjectId, bool>>{{a, false}, {b, true}}));
}

TEST_F(ObjectLifetimeTest, HoldsOfAnObjectHomedElsewhereAreOneHolderThere) {
  Join(b_);
  const ObjectId id = PutOn(b_);
  Borrow("w1", id);
  Borrow("w2", id);
  auto told = Told();
  ASSERT_EQ(told.count(b_), 1u);
  EXPECT_EQ(told[b_].borrowed, std::vector<ObjectId>{id}) << "said once";
  peer_holds_.Acked(b_, told[b_].seq);
  Unborrow("w1", id);
  EXPECT_TRUE(Told().empty()) << "w2 still holds it";
  Unborrow("w2", id);
  told = Told();
  EXPECT_EQ(told[b_].unborrowed, std::vector<ObjectId>{id});
}

TEST_F(ObjectLifetimeTest, AFreedResultsCopiesElsewhereGoAndSoDoesItsActor) {
  Join(b_);
  protocol::TaskSpec done, running;
  done.task_id = NewTaskId(job_, NodeId::FromBinary(self_));
  running.task_id = NewTaskId(job_, NodeId::FromBinary(self_));
  done.num_returns = running.num_returns = 1;
  remote_.Forwarded(done, b_);
  remote_.FinishedOn(done.task_id, b_);
  remote_.Forwarded(running, b_);
  const ObjectId result = ObjectId::ForTaskReturn(done.task_id, 1);
  OwnerFrees(result);
  EXPECT_EQ(Told()[b_].free_copies, std::vector<ObjectId>{result});
  // (A task's first result is its actor's handle, if it created one.)
  EXPECT_EQ(unreferenced_, std::vector<ActorId>{ActorOfCreation(done.task_id)});
  const ObjectId coming = ObjectId::ForTaskReturn(running.task_id, 1);
  OwnerFrees(coming);
  EXPECT_TRUE(objects_.TakeFreedOnArrival(coming))
      << "its task has not finished: dropped when it comes";
  EXPECT_FALSE(objects_.TakeFreedOnArrival(result));
}

TEST_F(ObjectLifetimeTest, ATasksArgumentsLetGoWhenItEndsUnlessKept) {
  const ObjectId arg = PutOn(self_);
  const TaskId task = NewTaskId(job_, NodeId::FromBinary(self_));
  Store(arg);
  lifetime_.AddHolds({arg}, ObjectHolds::Task(task));
  OwnerFrees(arg);
  keep_arguments_ = true;  // (an actor's constructor that may run again)
  lifetime_.TaskEnded(task);
  EXPECT_TRUE(objects_.Ready(arg));
  keep_arguments_ = false;
  lifetime_.TaskEnded(task);
  EXPECT_FALSE(objects_.Ready(arg));
}

TEST_F(ObjectLifetimeTest, ADeadNodesLateHoldsAreIgnoredAndItsDeathReleasesTheOthers) {
  Join(b_);
  const std::string c = NodeId::FromRandom().Binary();
  Join(c);
  const ObjectId id = PutOn(self_), other = ObjectId::ForPut(id.Task(), 2);
  Store(id);
  Store(other);
  protocol::PeerHolds from_c;
  from_c.from_node = c;
  from_c.borrowed = {other};
  lifetime_.OnPeerHolds(from_c);
  placement_.UpdateNode(b_, false, true, {}, {}, 0);  // b died
  protocol::PeerHolds late;
  late.from_node = b_;
  late.borrowed = {id};
  lifetime_.OnPeerHolds(late);
  OwnerFrees(id);
  EXPECT_FALSE(objects_.Ready(id)) << "b's hold came after it died";
  OwnerFrees(other);
  EXPECT_TRUE(objects_.Ready(other)) << "c holds it";
  lifetime_.ReleaseHolds(ObjectHolds::Node(c));  // c died
  EXPECT_FALSE(objects_.Ready(other));
}

}  // namespace
}  // namespace ray::raylet
