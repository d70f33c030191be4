#include "runtime/raylet/local_leases.h"

#include <gtest/gtest.h>

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "runtime/base/clock.h"
#include "tests/raylet/sent_frames.h"
#include "tests/test_util/named_ids.h"

namespace ray::raylet {
namespace {

using protocol::LeaseReply;
using protocol::MessageType;

// A node of 2 CPUs with the idle workers `peers`, its leases, and what they sent.
class LocalLeasesTest : public ::testing::Test {
 protected:
  LocalLeasesTest()
      : leases_({clients_, available_, ready_, outbox_, clock_, [this](size_t n) { started_ += n; },
                 [this] { ++freed_; }}) {}

  void AddIdle(const std::string& peer) {
    clients_.AddStarting(peer);
    clients_.Register(*clients_.Find(peer), 100, "ipc://" + peer);
  }

  static protocol::LeaseRequest Ask(double cpus) {
    return {{{"CPU", cpus}}, test_util::JobNamed("job")};
  }

  // The frames sent since the last call, as (peer, type) pairs, and their bodies.
  std::vector<std::pair<std::string, MessageType>> Sent() {
    std::vector<std::pair<std::string, MessageType>> out;
    bodies_.clear();
    for (auto& f : FlushFrames(outbox_)) {
      out.emplace_back(f.peer, f.type);
      bodies_.push_back(std::move(f.body));
    }
    return out;
  }

  ManualClock clock_{5000};
  ClientTable clients_;
  ResourceSet available_ = ResourceSet::FromDoubles({{"CPU", 2}});
  scheduler::LocalTaskQueue ready_;
  Outbox outbox_;
  size_t started_ = 0;
  int freed_ = 0;
  std::vector<std::string> bodies_;
  LocalLeases leases_;
};

TEST_F(LocalLeasesTest, AGrantTakesAnIdleWorkerAndTheShape) {
  AddIdle("w1");
  Client* w = nullptr;
  LeaseReply reply = leases_.Lease("caller", Ask(1), "", &w);
  ASSERT_EQ(reply.outcome, LeaseReply::kGranted);
  EXPECT_EQ(reply.endpoint, "ipc://w1");
  ASSERT_NE(w, nullptr);
  EXPECT_EQ(w->state, Client::kBusy);
  EXPECT_EQ(w->leased_to, "caller");
  EXPECT_EQ(w->held, ResourceSet::FromDoubles({{"CPU", 1}}));
  EXPECT_EQ(w->dispatched_ms, 5000);
  EXPECT_EQ(available_, ResourceSet::FromDoubles({{"CPU", 1}}));
  EXPECT_EQ(clients_.FirstIdle(), nullptr) << "out of the idle line";
  auto sent = Sent();
  ASSERT_EQ(sent.size(), 1u);
  EXPECT_EQ(sent[0], std::make_pair(std::string("w1"), MessageType::kLeaseGranted));
  auto granted = protocol::DecodeBody<protocol::LeaseGranted>(bodies_[0], "LeaseGranted");
  ASSERT_TRUE(granted.ok());
  EXPECT_EQ(granted->caller, "caller");
  EXPECT_EQ(granted->first_call_ms, 0);
}

TEST_F(LocalLeasesTest, ACallerOnAnotherNodeGetsLongerForItsFirstCall) {
  AddIdle("w1");
  ASSERT_EQ(leases_.Lease("caller", Ask(1), "nodeB").outcome, LeaseReply::kGranted);
  EXPECT_EQ(clients_.Find("w1")->leased_from, "nodeB");
  Sent();
  auto granted = protocol::DecodeBody<protocol::LeaseGranted>(bodies_[0], "LeaseGranted");
  ASSERT_TRUE(granted.ok());
  EXPECT_EQ(granted->first_call_ms, LocalLeases::kRemoteFirstCallMs);
}

TEST_F(LocalLeasesTest, WithNoIdleWorkerOneStartsForTheNextAsk) {
  EXPECT_EQ(leases_.Lease("caller", Ask(1)).outcome, LeaseReply::kNotNow);
  EXPECT_EQ(started_, 1u);
  clients_.AddStarting("w1");
  EXPECT_EQ(leases_.Lease("caller", Ask(1)).outcome, LeaseReply::kNotNow);
  EXPECT_EQ(started_, 1u) << "one is starting already";
  EXPECT_EQ(available_, ResourceSet::FromDoubles({{"CPU", 2}}));
}

TEST_F(LocalLeasesTest, EveryCpuTakenIsBusyAndGpusAreNeverLeased) {
  AddIdle("w1");
  EXPECT_EQ(leases_.Lease("caller", Ask(3)).outcome, LeaseReply::kBusy);
  protocol::LeaseRequest gpu{{{"CPU", 1}, {"GPU", 1}}, test_util::JobNamed("job")};
  EXPECT_EQ(leases_.Lease("caller", gpu).outcome, LeaseReply::kNotNow);
  EXPECT_TRUE(Sent().empty());
}

TEST_F(LocalLeasesTest, AReturnedWorkerIsIdleAndItsResourcesFree) {
  AddIdle("w1");
  ASSERT_EQ(leases_.Lease("caller", Ask(1)).outcome, LeaseReply::kGranted);
  Client& w = *clients_.Find("w1");
  leases_.Return(w);
  EXPECT_TRUE(w.leased_to.empty());
  EXPECT_TRUE(w.held.empty());
  EXPECT_EQ(w.state, Client::kIdle);
  EXPECT_EQ(available_, ResourceSet::FromDoubles({{"CPU", 2}}));
  EXPECT_EQ(freed_, 1);
  EXPECT_EQ(clients_.FirstIdle(), &w);
  leases_.Return(w);  // (a lease it does not hold: nothing changes)
  EXPECT_EQ(available_, ResourceSet::FromDoubles({{"CPU", 2}}));
  EXPECT_EQ(freed_, 1);
}

TEST_F(LocalLeasesTest, AGoneCallersWorkersAreRevokedAndItsWantsDropped) {
  AddIdle("w1");
  AddIdle("w2");
  AddIdle("w3");
  clients_.AddDriver("gone", 7, test_util::JobNamed("job"));  // (still connected: its want counts)
  ASSERT_EQ(leases_.Lease("gone", Ask(1)).outcome, LeaseReply::kGranted);
  ASSERT_EQ(leases_.Lease("stays", Ask(1)).outcome, LeaseReply::kGranted);
  leases_.Want("gone", Ask(1), ResourceSet::FromDoubles({{"CPU", 1}}));
  Sent();
  leases_.CallerGone("gone");
  auto sent = Sent();
  ASSERT_EQ(sent.size(), 1u);
  EXPECT_EQ(sent[0].first, clients_.Find("w1")->leased_to == "gone" ? "w1" : "w2");
  EXPECT_EQ(sent[0].second, MessageType::kRevokeLease);
  leases_.Return(*clients_.Find(sent[0].first));  // its resources free: no want is left
  leases_.Offer();
  EXPECT_TRUE(Sent().empty());
}

TEST_F(LocalLeasesTest, AWantIsOfferedOnceResourcesFreeUp) {
  AddIdle("w1");
  AddIdle("w2");
  AddIdle("w3");
  clients_.AddDriver("caller", 7, test_util::JobNamed("job"));
  ASSERT_EQ(leases_.Lease("caller", Ask(1)).outcome, LeaseReply::kGranted);
  ASSERT_EQ(leases_.Lease("caller", Ask(1)).outcome, LeaseReply::kGranted);
  Sent();
  leases_.Want("caller", Ask(1), ResourceSet::FromDoubles({{"CPU", 1}}));
  leases_.Want("not connected", Ask(1), ResourceSet::FromDoubles({{"CPU", 1}}));
  leases_.Offer();
  EXPECT_TRUE(Sent().empty()) << "every CPU is leased";

  Client* first = nullptr;
  for (auto& [peer, c] : clients_.all()) {
    if (c.leased_to == "caller") first = &c;
  }
  leases_.Return(*first);
  leases_.Offer();
  auto sent = Sent();
  ASSERT_EQ(sent.size(), 2u);
  EXPECT_EQ(sent[1], std::make_pair(std::string("caller"), MessageType::kLeaseOffered));
  auto offer = protocol::DecodeBody<protocol::LeaseOffer>(bodies_[1], "LeaseOffer");
  ASSERT_TRUE(offer.ok());
  EXPECT_EQ(offer->resources, (std::map<std::string, double>{{"CPU", 1}}));
  EXPECT_EQ(clients_.Find(sent[0].first)->leased_to, "caller") << "the worker offered is leased";
  leases_.Offer();
  EXPECT_TRUE(Sent().empty()) << "offered once";

  // The want of a caller that is not connected is dropped when its turn comes.
  for (auto& [peer, c] : clients_.all()) {
    if (c.leased_to == "caller") first = &c;
  }
  leases_.Return(*first);
  leases_.Offer();
  EXPECT_TRUE(Sent().empty());
  EXPECT_EQ(available_, ResourceSet::FromDoubles({{"CPU", 1}})) << "no worker leased for it";
}

TEST_F(LocalLeasesTest, LeasedWorkersYieldWhenQueuedTasksWaitForTheirCpus) {
  AddIdle("w1");
  AddIdle("w2");
  ASSERT_EQ(leases_.Lease("caller", Ask(1)).outcome, LeaseReply::kGranted);
  ASSERT_EQ(leases_.Lease("caller", Ask(1)).outcome, LeaseReply::kGranted);
  Sent();
  leases_.Reclaim();
  EXPECT_TRUE(Sent().empty()) << "nothing waits";
  protocol::TaskSpec t;
  t.task_id = test_util::TaskNamed("queued");
  t.resources = {{"CPU", 1}};
  ready_.Push(ResourceSet::FromDoubles({{"CPU", 1}}), t);
  leases_.Reclaim();
  auto sent = Sent();
  ASSERT_FALSE(sent.empty());
  for (const auto& [peer, type] : sent) EXPECT_EQ(type, MessageType::kYieldLease);
}

TEST_F(LocalLeasesTest, ALeasedWorkerThatDiesIsReportedToItsCallerHere) {
  AddIdle("w1");
  AddIdle("w2");
  AddIdle("w3");
  ASSERT_EQ(leases_.Lease("caller", Ask(1)).outcome, LeaseReply::kGranted);
  ASSERT_EQ(leases_.Lease("far caller", Ask(1), "nodeB").outcome, LeaseReply::kGranted);
  Sent();
  for (const char* peer : {"w1", "w2"}) {
    std::optional<Client> gone = clients_.Take(peer);
    available_.Add(gone->held);  // (the raylet gives its resources back)
    leases_.WorkerGone(*gone, std::string(peer) + " killed");
  }
  auto sent = Sent();
  ASSERT_EQ(sent.size(), 1u) << "the caller on another node hears through its node";
  EXPECT_EQ(sent[0], std::make_pair(std::string("caller"), MessageType::kLeaseGone));
  auto news = protocol::DecodeBody<protocol::LeaseGone>(bodies_[0], "LeaseGone");
  ASSERT_TRUE(news.ok());
  EXPECT_EQ(news->endpoint, "ipc://w1");
  EXPECT_EQ(news->cause, "w1 killed");
}

}  // namespace
}  // namespace ray::raylet
