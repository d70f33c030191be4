// GcsReports against a real GCS server on a thread (SQLite in a temp dir, ZeroMQ on
// loopback), stopped and started again on the same port and tables as a GCS that
// died and came back. What the node said is read back from the GCS.

#include "runtime/raylet/gcs_reports.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/test_util/gcs_thread.h"
#include "tests/test_util/temp_dir.h"

namespace ray::raylet {
namespace {

constexpr const char* kToken = "reports-token";
constexpr int64_t kHeartbeatMs = 250;

class GcsReportsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    Status st = gcs_.Start();
    ASSERT_TRUE(st.ok()) << st.ToString();
    // (A short timeout: calls to the stopped GCS fail within it.)
    client_ = std::make_unique<gcs::GcsClient>(gcs_.endpoint(), kToken, 500);
    reader_ = std::make_unique<gcs::GcsClient>(gcs_.endpoint(), kToken, 2000);
    reports_ = std::make_unique<GcsReports>(*client_, self_, kHeartbeatMs);
  }

  void Restart() {
    ASSERT_TRUE(gcs_.Stop().ok());
    Status st = gcs_.Start(gcs_.endpoint());
    ASSERT_TRUE(st.ok()) << st.ToString();
  }

  GcsReports::Beat Beat(int64_t now_ms) {
    return reports_->Heartbeat(now_ms, {{"CPU", 1}}, {}, [this] {
      ++registrations_;
      protocol::NodeInfo info;
      info.node_id = self_;
      info.address = "10.0.0.7";
      info.total = {{"CPU", 2}};
      info.available = {{"CPU", 1}};
      info.token = kToken;
      return info;
    });
  }

  // The node the GCS says actor `id` lives on ("" if it is not alive there).
  std::string NodeOfActor(const ActorId& id) {
    auto node = reader_->ActorNode(id.Binary());
    EXPECT_TRUE(node.ok()) << node.status().ToString();
    return node.ok() ? *node : "?";
  }

  std::vector<std::string> Locations(const ObjectId& id) {
    auto where = reader_->GetObjectLocations({id.Binary()});
    EXPECT_TRUE(where.ok() && where->size() == 1);
    return where.ok() && where->size() == 1 ? (*where)[0] : std::vector<std::string>{"?"};
  }

  test_util::TempDir dir_;
  test_util::GcsThread gcs_{dir_.path(), kToken};
  const std::string self_ = NodeId::FromRandom().Binary();
  std::unique_ptr<gcs::GcsClient> client_, reader_;
  std::unique_ptr<GcsReports> reports_;
  int registrations_ = 0;
};

TEST_F(GcsReportsTest, AGcsThatDoesNotKnowTheNodeIsToldItAgain) {
  ASSERT_TRUE(reports_->HeartbeatDue(0));
  EXPECT_EQ(Beat(1000), GcsReports::Beat::kSent);
  EXPECT_EQ(registrations_, 1) << "the GCS answered 'unknown node'";
  auto nodes = reader_->GetNodes();
  ASSERT_TRUE(nodes.ok());
  ASSERT_EQ(nodes->size(), 1u);
  EXPECT_EQ((*nodes)[0].node_id, self_);
  EXPECT_EQ((*nodes)[0].address, "10.0.0.7");
  EXPECT_EQ(Beat(1000 + kHeartbeatMs), GcsReports::Beat::kSent);
  EXPECT_EQ(registrations_, 1) << "known now";
  EXPECT_FALSE(reports_->HeartbeatDue(1000 + 2 * kHeartbeatMs - 1));
  EXPECT_TRUE(reports_->HeartbeatDue(1000 + 2 * kHeartbeatMs));
  reports_->HeartbeatSoon();
  EXPECT_TRUE(reports_->HeartbeatDue(0));
}

TEST_F(GcsReportsTest, AHeartbeatSaysWhenAGcsStartedSinceTheLastAnswer) {
  EXPECT_EQ(Beat(0), GcsReports::Beat::kSent);
  EXPECT_FALSE(reports_->failing());
  ASSERT_TRUE(gcs_.Stop().ok());
  EXPECT_EQ(Beat(kHeartbeatMs), GcsReports::Beat::kFailed);
  EXPECT_TRUE(reports_->failing());
  Status st = gcs_.Start(gcs_.endpoint());
  ASSERT_TRUE(st.ok()) << st.ToString();
  EXPECT_EQ(Beat(2 * kHeartbeatMs), GcsReports::Beat::kSentToNewGcs);
  EXPECT_FALSE(reports_->failing());
  EXPECT_EQ(Beat(3 * kHeartbeatMs), GcsReports::Beat::kSent) << "said once";
}

TEST_F(GcsReportsTest, ObjectsAndActorsWaitWhileTheGcsIsDownAndGoWhenItIsBack) {
  const ObjectId object = ObjectId::ForPut(NewTaskId(JobId::FromBinary("jjjj")), 1);
  const ActorId actor = ActorOfCreation(NewTaskId(JobId::FromBinary("jjjj")));
  ASSERT_TRUE(gcs_.Stop().ok());
  reports_->ObjectStored(object, 10);
  reports_->SendObjects();
  reports_->ActorState(actor, /*alive=*/true, /*at_once=*/true);
  Status st = gcs_.Start(gcs_.endpoint());
  ASSERT_TRUE(st.ok()) << st.ToString();
  EXPECT_EQ(NodeOfActor(actor), "");
  EXPECT_TRUE(Locations(object).empty());
  reports_->SendObjects();
  reports_->SendActors();
  EXPECT_EQ(Locations(object), std::vector<std::string>{self_});
  EXPECT_EQ(NodeOfActor(actor), self_);
  reports_->SendObjects();  // (sent once: nothing left)
  EXPECT_EQ(Locations(object), std::vector<std::string>{self_});
}

TEST_F(GcsReportsTest, ActorRecordsWaitForTheBatchUnlessWantedAtOnce) {
  const ActorId a = ActorOfCreation(NewTaskId(JobId::FromBinary("jjjj")));
  const ActorId b = ActorOfCreation(NewTaskId(JobId::FromBinary("jjjj")));
  reports_->ActorState(a, /*alive=*/true, /*at_once=*/false);
  EXPECT_EQ(NodeOfActor(a), "") << "waits for the batch";
  reports_->SendActors();
  EXPECT_EQ(NodeOfActor(a), self_);
  reports_->ActorState(a, /*alive=*/false, /*at_once=*/false);
  EXPECT_EQ(NodeOfActor(a), self_);
  // One wanted at once goes now, and the records waiting before it first.
  reports_->ActorState(b, /*alive=*/true, /*at_once=*/true);
  EXPECT_EQ(NodeOfActor(b), self_);
  EXPECT_EQ(NodeOfActor(a), "") << "its DEAD record went first";
}

}  // namespace
}  // namespace ray::raylet
