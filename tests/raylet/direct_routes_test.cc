// DirectRoutes on the raylet's real tables; what it tells other nodes is kept, in
// order, as the peer link would send it.

#include "runtime/raylet/direct_routes.h"

#include <gtest/gtest.h>

#include <deque>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "runtime/base/clock.h"
#include "tests/raylet/sent_frames.h"
#include "tests/test_util/named_ids.h"

namespace ray::raylet {
namespace {

using protocol::ActorRouteReply;
using protocol::MessageType;

class DirectRoutesTest : public ::testing::Test {
 protected:
  DirectRoutesTest()
      : leases_({clients_, available_, ready_, outbox_, clock_, [](size_t) {}, [] {}}),
        routes_({self_, clients_, actors_, remote_, placement_, available_, leases_,
                 [this](const std::string& node, const std::string& frame) {
                   if (node != other_node_) return false;  // (no address known)
                   told_.push_back(frame);
                   return true;
                 },
                 outbox_, clock_}) {}

  void SetUp() override { clients_.AddDriver("caller", 7, test_util::JobNamed("job")); }

  // An actor alive here on worker "w1" (which listens on `tcp`, if given).
  Actor& LocalActor(const std::string& tcp = "") {
    clients_.AddStarting("w1");
    Client& w = *clients_.Find("w1");
    clients_.Register(w, 41, "ipc://w1");
    w.state = Client::kActor;
    w.actor_id = actor_id_;
    w.tcp_endpoint = tcp;
    Actor& a = actors_.Entry(actor_id_);
    a.state = Actor::kAlive;
    a.worker = "w1";
    a.creation.max_retries = 3;
    return a;
  }

  // The body of the next frame of type `type` told to the other node (those before
  // it skipped), or nullopt if none was.
  std::optional<std::string> ToOtherNode(MessageType type) {
    while (!told_.empty()) {
      std::string frame = std::move(told_.front());
      told_.pop_front();
      auto env = protocol::DecodeEnvelope(frame);
      EXPECT_TRUE(env.ok());
      if (env.ok() && env->type == type) return std::string(env->body);
    }
    return std::nullopt;
  }

  // The frames queued for clients since the last call.
  std::vector<SentFrame> ToClients() { return FlushFrames(outbox_); }

  const std::string self_ = NodeId::FromRandom().Binary();
  const std::string other_node_ = NodeId::FromRandom().Binary();
  const ActorId actor_id_ = ActorOfCreation(test_util::TaskNamed("creation"));
  ManualClock clock_{1000};
  ClientTable clients_;
  ActorDirectory actors_;
  RemoteNodes remote_;
  ResourceSet available_ = ResourceSet::FromDoubles({{"CPU", 2}});
  scheduler::Placement placement_{ResourceSet::FromDoubles({{"CPU", 2}})};
  scheduler::LocalTaskQueue ready_;
  Outbox outbox_;
  std::deque<std::string> told_;  // frames told to the other node, oldest first
  LocalLeases leases_;
  DirectRoutes routes_;
};

TEST_F(DirectRoutesTest, AnActorHereIsCalledAtItsWorkersSocketOnceNoCallWaits) {
  Actor& a = LocalActor();
  protocol::TaskSpec queued;
  queued.task_id = test_util::TaskNamed("call");
  queued.caller = "caller";
  a.queue.push_back(queued);
  auto reply = routes_.ActorRoute(*clients_.Find("caller"), actor_id_, 1);
  ASSERT_TRUE(reply.has_value());
  EXPECT_NE(reply->route, ActorRouteReply::kDirect) << "its call still waits here";

  a.queue.clear();
  reply = routes_.ActorRoute(*clients_.Find("caller"), actor_id_, 2);
  ASSERT_TRUE(reply.has_value());
  EXPECT_EQ(reply->route, ActorRouteReply::kDirect);
  EXPECT_EQ(reply->endpoint, "ipc://w1");
  EXPECT_EQ(reply->max_task_retries, 3);
  EXPECT_TRUE(a.direct_callers.count("caller"));
}

TEST_F(DirectRoutesTest, AnActorElsewhereIsAskedOfItsNodeAndTheAnswerGoesToTheCaller) {
  Actor& a = actors_.Entry(actor_id_);
  a.state = Actor::kAlive;
  a.remote_node = other_node_;
  EXPECT_FALSE(routes_.ActorRoute(*clients_.Find("caller"), actor_id_, 9).has_value());
  auto asked = ToOtherNode(MessageType::kRouteAsk);
  ASSERT_TRUE(asked.has_value()) << "the actor's node was not asked";
  auto ask = protocol::DecodeBody<protocol::RouteAsk>(*asked, "RouteAsk");
  ASSERT_TRUE(ask.ok());
  EXPECT_EQ(ask->actor_id, actor_id_);
  EXPECT_EQ(ask->caller, "caller");
  EXPECT_EQ(ask->origin_node, self_);

  routes_.OnRouteAnswer({ask->ask, "tcp://10.0.0.2:7000", 2});
  auto sent = ToClients();
  ASSERT_EQ(sent.size(), 1u);
  EXPECT_EQ(sent[0].peer, "caller");
  EXPECT_EQ(sent[0].type, MessageType::kActorRouteReply);
  EXPECT_EQ(sent[0].req, 9u);
  auto reply = protocol::DecodeBody<ActorRouteReply>(sent[0].body, "ActorRouteReply");
  ASSERT_TRUE(reply.ok());
  EXPECT_EQ(reply->route, ActorRouteReply::kDirect);
  EXPECT_EQ(reply->endpoint, "tcp://10.0.0.2:7000");
  EXPECT_TRUE(reply->encrypted);
  ASSERT_NE(routes_.NodeOfEndpoint("tcp://10.0.0.2:7000"), nullptr);
  EXPECT_EQ(*routes_.NodeOfEndpoint("tcp://10.0.0.2:7000"), other_node_);
}

TEST_F(DirectRoutesTest, AnUnansweredAskExpiresAsThroughTheRaylets) {
  Actor& a = actors_.Entry(actor_id_);
  a.state = Actor::kAlive;
  a.remote_node = other_node_;
  ASSERT_FALSE(routes_.ActorRoute(*clients_.Find("caller"), actor_id_, 4).has_value());
  routes_.ExpireAsks();
  EXPECT_TRUE(ToClients().empty()) << "not expired yet";
  clock_.Advance(RemoteAsks::kTimeoutMs);
  routes_.ExpireAsks();
  auto sent = ToClients();
  ASSERT_EQ(sent.size(), 1u);
  EXPECT_EQ(sent[0].req, 4u);
  auto reply = protocol::DecodeBody<ActorRouteReply>(sent[0].body, "ActorRouteReply");
  ASSERT_TRUE(reply.ok());
  EXPECT_EQ(reply->route, ActorRouteReply::kRaylet);
  routes_.OnRouteAnswer({1, "tcp://10.0.0.2:7000", 0});  // (too late: dropped)
  EXPECT_TRUE(ToClients().empty());
}

TEST_F(DirectRoutesTest, AnAskFromAnotherNodeWaitsForTheWorkerToListenOnTcp) {
  Actor& a = LocalActor();
  routes_.OnRouteAsk({5, actor_id_, "their caller", other_node_});
  routes_.OnRouteAsk({6, actor_id_, "their caller", other_node_});
  auto sent = ToClients();
  ASSERT_EQ(sent.size(), 1u) << "asked to listen once";
  EXPECT_EQ(sent[0].peer, "w1");
  EXPECT_EQ(sent[0].type, MessageType::kListenTcp);

  routes_.OnTcpEndpoint(*clients_.Find("w1"), "tcp://127.0.0.1:6000");
  for (uint64_t ask : {5, 6}) {
    auto answered = ToOtherNode(MessageType::kRouteAnswer);
    ASSERT_TRUE(answered.has_value());
    auto answer = protocol::DecodeBody<protocol::RouteAnswer>(*answered, "RouteAnswer");
    ASSERT_TRUE(answer.ok());
    EXPECT_EQ(answer->ask, ask);
    EXPECT_EQ(answer->endpoint, "tcp://127.0.0.1:6000");
    EXPECT_EQ(answer->max_task_retries, 3);
  }
  EXPECT_TRUE(a.remote_callers.count({other_node_, "their caller"}));
}

TEST_F(DirectRoutesTest, ALeaseAskFromAnotherNodeLeasesAWorkerHere) {
  LocalActor();  // (w1 hosts an actor: not idle)
  clients_.AddStarting("w2");
  Client& w2 = *clients_.Find("w2");
  clients_.Register(w2, 42, "ipc://w2");
  w2.tcp_endpoint = "tcp://127.0.0.1:6001";
  protocol::LeaseRequest req{{{"CPU", 1}}, test_util::JobNamed("job")};
  routes_.OnLeaseAsk({8, req, "their caller", other_node_});
  auto answered = ToOtherNode(MessageType::kLeaseAnswer);
  ASSERT_TRUE(answered.has_value());
  auto answer = protocol::DecodeBody<protocol::LeaseAnswer>(*answered, "LeaseAnswer");
  ASSERT_TRUE(answer.ok());
  EXPECT_EQ(answer->ask, 8u);
  EXPECT_EQ(answer->outcome, protocol::LeaseReply::kGranted);
  EXPECT_EQ(answer->endpoint, "tcp://127.0.0.1:6001");
  EXPECT_EQ(w2.leased_to, "their caller");
  EXPECT_EQ(w2.leased_from, other_node_);

  // The worker dies: its caller's node hears of it, by the worker's tcp endpoint.
  routes_.WorkerGone(w2, "pid 42 killed");
  auto gone = ToOtherNode(MessageType::kPeerLeaseGone);
  ASSERT_TRUE(gone.has_value());
  auto news = protocol::DecodeBody<protocol::PeerLeaseGone>(*gone, "PeerLeaseGone");
  ASSERT_TRUE(news.ok());
  EXPECT_EQ(news->caller, "their caller");
  EXPECT_EQ(news->gone.endpoint, "tcp://127.0.0.1:6001");
  EXPECT_EQ(news->gone.cause, "pid 42 killed");

  // That node dies: the worker leased to its caller is revoked.
  ToClients();
  routes_.NodeDied(other_node_);
  auto sent = ToClients();
  ASSERT_EQ(sent.size(), 1u);
  EXPECT_EQ(sent[0].peer, "w2");
  EXPECT_EQ(sent[0].type, MessageType::kRevokeLease);
}

TEST_F(DirectRoutesTest, ALeaseThisNodeCannotFitIsAskedOfANodeThatCan) {
  placement_.UpdateNode(other_node_, true, true, ResourceSet::FromDoubles({{"custom", 1}}),
                        ResourceSet::FromDoubles({{"custom", 1}}), clock_.MonoMillis());
  protocol::LeaseRequest req{{{"custom", 1}}, test_util::JobNamed("job")};
  EXPECT_FALSE(
      routes_
          .RemoteLease(*clients_.Find("caller"), req, ResourceSet::FromDoubles({{"custom", 1}}), 3)
          .has_value());
  auto asked = ToOtherNode(MessageType::kLeaseAsk);
  ASSERT_TRUE(asked.has_value());
  auto ask = protocol::DecodeBody<protocol::LeaseAsk>(*asked, "LeaseAsk");
  ASSERT_TRUE(ask.ok());
  EXPECT_EQ(ask->caller, "caller");

  routes_.OnLeaseAnswer({ask->ask, protocol::LeaseReply::kGranted, "tcp://10.0.0.2:7001"});
  auto sent = ToClients();
  ASSERT_EQ(sent.size(), 1u);
  EXPECT_EQ(sent[0].type, MessageType::kLeaseReply);
  EXPECT_EQ(sent[0].req, 3u);
  auto reply = protocol::DecodeBody<protocol::LeaseReply>(sent[0].body, "LeaseReply");
  ASSERT_TRUE(reply.ok());
  EXPECT_EQ(reply->outcome, protocol::LeaseReply::kGranted);
  EXPECT_TRUE(reply->encrypted);

  // Only news of that lease reaches the caller: a forged one (another endpoint, or
  // another caller) is dropped.
  routes_.OnPeerLeaseGone({"caller", {"tcp://10.0.0.9:1", "forged"}});
  routes_.OnPeerLeaseGone({"someone else", {"tcp://10.0.0.2:7001", "forged"}});
  EXPECT_TRUE(ToClients().empty());
  routes_.OnPeerLeaseGone({"caller", {"tcp://10.0.0.2:7001", "pid 9 killed"}});
  sent = ToClients();
  ASSERT_EQ(sent.size(), 1u);
  EXPECT_EQ(sent[0].peer, "caller");
  EXPECT_EQ(sent[0].type, MessageType::kLeaseGone);
}

TEST_F(DirectRoutesTest, WorkersThatCannotListenOnTcpSendOtherNodesThroughTheRaylets) {
  LocalActor();
  routes_.OnRouteAsk({5, actor_id_, "their caller", other_node_});
  ToClients();                                      // (kListenTcp)
  routes_.OnTcpEndpoint(*clients_.Find("w1"), "");  // it could not listen
  auto answered = ToOtherNode(MessageType::kRouteAnswer);
  ASSERT_TRUE(answered.has_value());
  auto answer = protocol::DecodeBody<protocol::RouteAnswer>(*answered, "RouteAnswer");
  ASSERT_TRUE(answer.ok());
  EXPECT_TRUE(answer->endpoint.empty()) << "through the raylets";

  // Nor does any other worker here: a lease ask is answered "not now", nothing leased.
  clients_.AddStarting("w2");
  clients_.Register(*clients_.Find("w2"), 42, "ipc://w2");
  routes_.OnLeaseAsk({8, {{{"CPU", 1}}, test_util::JobNamed("job")}, "their caller", other_node_});
  auto lease = ToOtherNode(MessageType::kLeaseAnswer);
  ASSERT_TRUE(lease.has_value());
  auto lease_answer = protocol::DecodeBody<protocol::LeaseAnswer>(*lease, "LeaseAnswer");
  ASSERT_TRUE(lease_answer.ok());
  EXPECT_EQ(lease_answer->outcome, protocol::LeaseReply::kNotNow);
  EXPECT_TRUE(clients_.Find("w2")->leased_to.empty());
}

}  // namespace
}  // namespace ray::raylet
