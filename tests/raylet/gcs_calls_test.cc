// GcsCalls against a real GCS server on a thread (SQLite in a temp dir, ZeroMQ on
// loopback): the calls the raylet relays, and what it adds of its own node.

#include "runtime/raylet/gcs_calls.h"

#include <gtest/gtest.h>
#include <ray/wire.h>

#include <algorithm>
#include <map>
#include <string>

#include "runtime/base/hex.h"
#include "runtime/gcs/gcs_client.h"
#include "tests/test_util/gcs_thread.h"
#include "tests/test_util/temp_dir.h"

namespace ray::raylet {
namespace {

using scheduler::ResourceSet;
namespace ri = ray::internal;

constexpr const char* kToken = "calls-token";

class GcsCallsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    Status st = gcs_.Start();
    ASSERT_TRUE(st.ok()) << st.ToString();
    client_ = std::make_unique<gcs::GcsClient>(gcs_.endpoint(), kToken, 2000);
    calls_ = std::make_unique<GcsCalls>(*client_, "self", local_, available_, [this] { ++syncs_; });
  }

  void StopGcs() { (void)gcs_.Stop(); }

  void AddNode(const std::string& id, std::map<std::string, double> total,
               std::map<std::string, double> available) {
    protocol::NodeInfo n;
    n.node_id = id;
    n.address = "127.0.0.1";
    n.total = std::move(total);
    n.available = std::move(available);
    n.token = kToken;
    ASSERT_TRUE(client_->RegisterNode(n).ok());
  }

  test_util::TempDir dir_;
  test_util::GcsThread gcs_{dir_.path(), kToken};
  std::unique_ptr<gcs::GcsClient> client_;
  scheduler::Placement local_{ResourceSet::FromDoubles({{"CPU", 4}})};
  ResourceSet available_ = ResourceSet::FromDoubles({{"CPU", 1}});
  int syncs_ = 0;
  std::unique_ptr<GcsCalls> calls_;
};

template <typename T>
T Unpack(const std::string& body) {
  return ri::Unpack<T>(body.data(), body.size());
}

std::map<std::string, double> Unpacked(const std::string& body) {
  return Unpack<std::map<std::string, double>>(body);
}

TEST_F(GcsCallsTest, ResourcesAreThisNodesNowAndTheOthersAsLastHeard) {
  // The GCS's row for this node is stale: the raylet's own view counts.
  AddNode("self", {{"CPU", 8}}, {{"CPU", 8}});
  AddNode("other", {{"CPU", 2}, {"GPU", 1}}, {{"CPU", 2}});
  auto total = calls_->Answer("cluster_resources", "");
  ASSERT_TRUE(total.ok()) << total.status().ToString();
  EXPECT_EQ(Unpacked(*total), (std::map<std::string, double>{{"CPU", 6}, {"GPU", 1}}));
  auto available = calls_->Answer("available_resources", "");
  ASSERT_TRUE(available.ok());
  EXPECT_EQ(Unpacked(*available), (std::map<std::string, double>{{"CPU", 3}}));

  auto nodes = calls_->Answer("nodes", "");
  ASSERT_TRUE(nodes.ok());
  auto infos = Unpack<std::vector<ray::NodeInfo>>(*nodes);
  ASSERT_EQ(infos.size(), 2u);
  auto self = std::find_if(infos.begin(), infos.end(),
                           [](const ray::NodeInfo& n) { return n.node_id == ToHex("self"); });
  ASSERT_NE(self, infos.end());
  EXPECT_EQ(self->resources_total, (std::map<std::string, double>{{"CPU", 4}}));
  EXPECT_EQ(self->resources_available, (std::map<std::string, double>{{"CPU", 1}}));
}

TEST_F(GcsCallsTest, AShippedBlobMustHaveItsHash) {
  std::string bytes = "plugin bytes";
  auto bad = calls_->Answer(
      "ship_blob", ri::Pack(std::make_tuple(std::string("0123"), std::string("lib.so"), bytes)));
  ASSERT_EQ(bad.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(bad.status().message().find("lib.so"), std::string::npos) << bad.status().message();

  auto good = calls_->Answer(
      "ship_blob", ri::Pack(std::make_tuple(ContentHash(bytes), std::string("lib.so"), bytes)));
  ASSERT_TRUE(good.ok()) << good.status().ToString();
  auto stored = client_->GetPlugin(ContentHash(bytes));
  ASSERT_TRUE(stored.ok());
  EXPECT_EQ(*stored, bytes);
}

TEST_F(GcsCallsTest, ActorNamesAreRegisteredAndLookedUp) {
  AddNode("self", {{"CPU", 4}}, {{"CPU", 4}});
  std::string actor(16, 'a');
  auto put =
      calls_->Answer("register_actor_name",
                     ri::Pack(std::make_tuple(std::string("counter"), actor, std::string("ns"))));
  ASSERT_TRUE(put.ok()) << put.status().ToString();
  auto got = calls_->Answer(
      "get_actor",
      ri::Pack(std::make_tuple(std::string("counter"), std::string("ns"), std::string())));
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_EQ(*got, actor);
  auto malformed = calls_->Answer("get_actor", "\xc1");
  EXPECT_EQ(malformed.status().code(), StatusCode::kInvalidArgument);
}

TEST_F(GcsCallsTest, CreatingOrRemovingAGroupSyncsThisNodesBundlesAtOnce) {
  AddNode("self", {{"CPU", 4}}, {{"CPU", 4}});
  std::vector<std::map<std::string, double>> bundles{{{"CPU", 1}}};
  auto created =
      calls_->Answer("create_placement_group",
                     ri::Pack(std::make_tuple(std::string("pg"), std::string("PACK"), bundles)));
  ASSERT_TRUE(created.ok()) << created.status().ToString();
  auto info = Unpack<ray::PlacementGroupInfo>(*created);
  EXPECT_EQ(info.name, "pg");
  EXPECT_EQ(syncs_, 1);

  auto removed = calls_->Answer("remove_placement_group", ri::Pack(info.id));
  ASSERT_TRUE(removed.ok()) << removed.status().ToString();
  EXPECT_EQ(syncs_, 2);
  auto unknown = calls_->Answer("remove_placement_group", ri::Pack(std::string("no-such-group")));
  EXPECT_FALSE(unknown.ok());
  EXPECT_EQ(syncs_, 2) << "nothing removed: nothing to sync";

  auto none =
      calls_->Answer("get_placement_group",
                     ri::Pack(std::make_tuple(std::string("no-such-group"), std::string())));
  ASSERT_TRUE(none.ok()) << none.status().ToString();
  EXPECT_TRUE(Unpack<ray::PlacementGroupInfo>(*none).id.empty()) << "an empty handle";
}

TEST_F(GcsCallsTest, OnlyItsOwnOpsAndTheGcsDownIsUnavailable) {
  EXPECT_TRUE(GcsCalls::Handles("nodes"));
  EXPECT_TRUE(GcsCalls::Handles("create_placement_group"));
  EXPECT_FALSE(GcsCalls::Handles("kill_actor"));
  EXPECT_FALSE(GcsCalls::Handles("gpu_ids"));
  StopGcs();
  EXPECT_EQ(calls_->Answer("nodes", "").status().code(), StatusCode::kUnavailable);
}

}  // namespace
}  // namespace ray::raylet
