// GcsService's liveness policy, driven by Tick() with explicit monotonic times: a node
// is marked DEAD after a heartbeat timeout of silence, but not for a silence of the
// GCS's own (its loop did not run).
#include "runtime/gcs/gcs_service.h"

#include <gtest/gtest.h>

#include "runtime/gcs/gcs_store.h"
#include "tests/test_util/temp_dir.h"

namespace ray::gcs {
namespace {

constexpr int64_t kTimeoutMs = 1000;

class GcsServiceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = dir_.path() + "/gcs.sqlite3";
    auto store = GcsStore::Open(path_);
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    protocol::NodeInfo node;
    node.node_id = "n1";
    node.state = kAlive;
    ASSERT_TRUE((*store)->PutNode(node).ok());
    auto service = GcsService::Create(std::move(store).value(), "token", kTimeoutMs, /*now=*/0);
    ASSERT_TRUE(service.ok()) << service.status().ToString();
    service_ = std::move(service).value();
  }
  std::string State() {
    auto store = GcsStore::Open(path_);
    if (!store.ok()) return store.status().ToString();
    auto nodes = (*store)->LoadNodes();
    return nodes.ok() && nodes->size() == 1 ? (*nodes)[0].state : "?";
  }
  // Ticks every 50 ms from `from` to `to`.
  void TickThrough(int64_t from, int64_t to) {
    for (int64_t t = from; t <= to; t += 50) service_->Tick(t);
  }

  test_util::TempDir dir_;
  std::string path_;
  std::unique_ptr<GcsService> service_;
};

TEST_F(GcsServiceTest, ANodeSilentForTheTimeoutIsMarkedDead) {
  TickThrough(0, 900);
  EXPECT_EQ(State(), kAlive);
  TickThrough(950, 1600);
  EXPECT_EQ(State(), kDead);
}

TEST_F(GcsServiceTest, TheGcsOwnSilenceGivesNodesAFullTimeoutAgain) {
  TickThrough(0, 400);
  service_->Tick(60000);  // the GCS was stopped for a minute
  EXPECT_EQ(State(), kAlive);
  TickThrough(60050, 60900);
  EXPECT_EQ(State(), kAlive) << "within the new timeout";
  TickThrough(60950, 61600);
  EXPECT_EQ(State(), kDead) << "still silent after a full timeout";
}

TEST_F(GcsServiceTest, EveryStartIsCounted) {
  service_.reset();
  for (int i = 0; i < 2; ++i) {
    auto store = GcsStore::Open(path_);
    ASSERT_TRUE(store.ok());
    ASSERT_TRUE(GcsService::Create(std::move(store).value(), "token", kTimeoutMs, 0).ok());
  }
  auto store = GcsStore::Open(path_);
  ASSERT_TRUE(store.ok());
  auto starts = (*store)->RecordStart(123);
  ASSERT_TRUE(starts.ok());
  EXPECT_EQ(starts->starts, 4);  // SetUp's, the two above, this one
  EXPECT_EQ(starts->restarts(), 3);
}

}  // namespace
}  // namespace ray::gcs
