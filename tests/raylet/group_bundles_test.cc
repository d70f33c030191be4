// GroupBundles against a real GCS server on a thread (SQLite in a temp dir, ZeroMQ on
// loopback), which decides where placement groups' bundles go, with the raylet's real
// tables. The workers it kills, the actors that die, and the tasks it places again or
// fails are kept.

#include "runtime/raylet/group_bundles.h"

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "runtime/scheduler/bundle_resources.h"
#include "tests/test_util/gcs_thread.h"
#include "tests/test_util/temp_dir.h"

namespace ray::raylet {
namespace {

namespace ri = ray::internal;
using scheduler::ResourceSet;

constexpr const char* kToken = "groups-token";

class GroupBundlesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    Status st = gcs_.Start();
    ASSERT_TRUE(st.ok()) << st.ToString();
    client_ = std::make_unique<gcs::GcsClient>(gcs_.endpoint(), kToken, 2000);
    protocol::NodeInfo self;
    self.node_id = self_;
    self.address = "127.0.0.1";
    self.total = self.available = {{"CPU", 4}};
    self.token = kToken;
    ASSERT_TRUE(client_->RegisterNode(self).ok());
    groups_ = std::make_unique<GroupBundles>(GroupBundles::Deps{
        self_, bundles_, placement_, available_, clients_, actors_, ready_, infeasible_, *client_,
        [this](const ActorId& id, const std::string& why) {
          died_.push_back({id, why});
        },
        [this](const std::string& worker) { killed_.push_back(worker); },
        [this](protocol::TaskSpec t) { placed_.push_back(t.function); },
        [this](const protocol::TaskSpec& t, ri::ErrorKind, const std::string& type,
               const std::string&) {
          failed_.push_back({t.function, type});
        }});
  }

  // A group of one bundle of `cpus` CPUs, as the API creates it; its id (hex).
  std::string CreateGroup(double cpus) {
    std::vector<std::map<std::string, double>> bundles{{{"CPU", cpus}}};
    auto reply =
        client_->Call("create_placement_group",
                      ri::Pack(std::make_tuple(std::string("pg"), std::string("PACK"), bundles)));
    EXPECT_TRUE(reply.ok()) << reply.status().ToString();
    if (!reply.ok()) return "";
    auto pg = protocol::DecodeBody<gcs::PlacementGroupRecord>(*reply, "group");
    EXPECT_TRUE(pg.ok());
    return pg.ok() ? pg->pg_id : "";
  }
  void RemoveGroup(const std::string& pg) {
    ASSERT_TRUE(client_->Call("remove_placement_group", pg).ok());
  }
  protocol::TaskSpec InGroup(const std::string& name, const std::string& pg, double cpus) {
    protocol::TaskSpec t;
    t.task_id = NewTaskId(JobId::FromBinary("jjjj"));
    t.function = name;
    t.placement_group_id = pg;
    t.bundle_index = 0;
    t.resources = scheduler::BundleRequest({{"CPU", cpus}}, pg, 0);
    return t;
  }

  test_util::TempDir dir_;
  test_util::GcsThread gcs_{dir_.path(), kToken};
  std::unique_ptr<gcs::GcsClient> client_;
  const std::string self_ = NodeId::FromRandom().Binary();
  BundleBook bundles_;
  scheduler::Placement placement_{ResourceSet::FromDoubles({{"CPU", 4}})};
  ResourceSet available_ = ResourceSet::FromDoubles({{"CPU", 4}});
  ClientTable clients_;
  ActorDirectory actors_;
  scheduler::LocalTaskQueue ready_;
  scheduler::InfeasibleHold infeasible_;
  std::vector<std::pair<ActorId, std::string>> died_;
  std::vector<std::string> killed_, placed_;
  std::vector<std::pair<std::string, std::string>> failed_;  // (function, error type)
  std::unique_ptr<GroupBundles> groups_;
};

TEST_F(GroupBundlesTest, ABundleIsReservedHereAndWhatRunsInItGoesWithItsGroup) {
  const std::string pg = CreateGroup(1);
  groups_->Sync();
  EXPECT_TRUE(bundles_.Holds({pg, 0}));
  EXPECT_DOUBLE_EQ(available_.Amount("CPU"), 3);
  EXPECT_DOUBLE_EQ(placement_.local_total().Amount("CPU_group_" + pg), 1);
  // An actor runs in the bundle (its worker holds part of it); a task of the group
  // waits to start.
  clients_.AddStarting("w1");
  Client& w = *clients_.Find("w1");
  clients_.Register(w, 41, "ipc://w1");
  w.state = Client::kActor;
  w.actor_id = ActorOfCreation(NewTaskId(JobId::FromBinary("jjjj")));
  actors_.Entry(w.actor_id).worker = "w1";
  auto task = InGroup("waiting", pg, 0.5);
  w.held = scheduler::ResourcesOf(task);
  available_.Subtract(w.held);
  ready_.Push(scheduler::ResourcesOf(task), task);

  RemoveGroup(pg);
  groups_->Sync();
  EXPECT_FALSE(bundles_.Holds({pg, 0}));
  EXPECT_EQ(killed_, std::vector<std::string>{"w1"});
  ASSERT_EQ(died_.size(), 1u);
  EXPECT_EQ(died_[0].second, "its placement group " + pg + " was removed");
  EXPECT_EQ(placed_, std::vector<std::string>{"waiting"}) << "placed again: it fails there";
  EXPECT_TRUE(ready_.empty());
  EXPECT_EQ(available_.ToDoubles(), (std::map<std::string, double>{{"CPU", 4}}))
      << "all of it is back, and nothing of the group is left";
  EXPECT_DOUBLE_EQ(placement_.local_total().Amount("CPU_group_" + pg), 0);
}

TEST_F(GroupBundlesTest, ABundleTheNodeCannotHoldIsRefused) {
  available_ = ResourceSet::FromDoubles({{"CPU", 1}});  // (three CPUs taken meanwhile)
  const std::string pg = CreateGroup(2);
  groups_->Sync();
  EXPECT_FALSE(bundles_.Holds({pg, 0}));
  EXPECT_DOUBLE_EQ(available_.Amount("CPU"), 1);
}

TEST_F(GroupBundlesTest, WorkThatCanNeverRunInItsGroupFails) {
  const std::string pg = CreateGroup(1);
  infeasible_.Hold(InGroup("too_big", pg, 2));
  infeasible_.Hold(InGroup("fits", pg, 1));
  auto creation = InGroup("Actor", pg, 2);
  creation.kind = ri::kActorCreation;
  infeasible_.Hold(creation);
  groups_->CheckWaiting();
  ASSERT_EQ(failed_.size(), 2u);
  EXPECT_EQ(failed_[0].first, "too_big");
  EXPECT_EQ(failed_[1].first, "Actor");
  ASSERT_EQ(died_.size(), 1u) << "the actor dies with its creation";
  EXPECT_EQ(died_[0].first, ActorOfCreation(creation.task_id));
  EXPECT_EQ(infeasible_.size(), 1u) << "the task that fits waits on";
  // Its group removed: it fails too.
  RemoveGroup(pg);
  groups_->CheckWaiting();
  ASSERT_EQ(failed_.size(), 3u);
  EXPECT_EQ(failed_[2].first, "fits");
  EXPECT_TRUE(infeasible_.empty());
}

}  // namespace
}  // namespace ray::raylet
