#include "runtime/gcs/gcs_store.h"

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <filesystem>

#include "tests/test_util/temp_dir.h"

namespace ray::gcs {
namespace {

using protocol::NodeInfo;

class GcsStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_FALSE(dir_.path().empty());
    path_ = dir_.path() + "/gcs.sqlite3";
    Reopen();
  }

  void Reopen() {
    store_.reset();  // flushes and closes the previous connection first
    auto opened = GcsStore::Open(path_);
    ASSERT_TRUE(opened.ok()) << opened.status().ToString();
    store_ = std::move(opened).value();
  }

  static NodeInfo MakeNode(const std::string& id) {
    NodeInfo n;
    n.node_id = id;
    n.address = "10.0.0.1";
    n.raylet_socket = "ipc:///tmp/raylet-" + id;
    n.session_dir = "/tmp/session";
    n.total = {{"CPU", 4}, {"memory", 1e9}};
    n.available = n.total;
    n.state = kAlive;
    n.last_heartbeat_ms = 1000;
    n.pid = 4242;
    n.token = "never stored";
    return n;
  }

  std::vector<NodeInfo> Nodes() {
    auto nodes = store_->LoadNodes();
    EXPECT_TRUE(nodes.ok()) << nodes.status().ToString();
    return nodes.ok() ? nodes.value() : std::vector<NodeInfo>{};
  }

  test_util::TempDir dir_;
  std::string path_;
  std::unique_ptr<GcsStore> store_;
};

TEST_F(GcsStoreTest, UsesWriteAheadLog) {
  ASSERT_TRUE(store_->PutNode(MakeNode("n1")).ok());
  EXPECT_TRUE(std::filesystem::exists(path_ + "-wal"));
}

TEST_F(GcsStoreTest, NodeRoundTripWithoutToken) {
  ASSERT_TRUE(store_->PutNode(MakeNode("n1")).ok());
  std::string binary_id("\x00\xff\x10", 3);
  ASSERT_TRUE(store_->PutNode(MakeNode(binary_id)).ok());
  auto nodes = Nodes();
  ASSERT_EQ(nodes.size(), 2u);
  EXPECT_EQ(nodes[0].node_id, "n1");
  EXPECT_EQ(nodes[0].raylet_socket, "ipc:///tmp/raylet-n1");
  EXPECT_EQ(nodes[0].total.at("CPU"), 4);
  EXPECT_EQ(nodes[0].state, kAlive);
  EXPECT_EQ(nodes[0].pid, 4242);
  EXPECT_EQ(nodes[0].token, "");
  EXPECT_EQ(nodes[1].node_id, binary_id);

  ASSERT_TRUE(store_->SetNodeState("n1", kDead).ok());
  EXPECT_EQ(Nodes()[0].state, kDead);
}

TEST_F(GcsStoreTest, HeartbeatsAreBufferedUntilFlush) {
  ASSERT_TRUE(store_->PutNode(MakeNode("n1")).ok());
  store_->BufferHeartbeat("n1", {{"CPU", 3}}, 2000);
  store_->BufferHeartbeat("n1", {{"CPU", 1}}, 3000);  // coalesces with the first
  EXPECT_EQ(store_->pending(), 1u);
  EXPECT_EQ(Nodes()[0].last_heartbeat_ms, 1000);

  ASSERT_TRUE(store_->Flush().ok());
  EXPECT_EQ(store_->pending(), 0u);
  auto nodes = Nodes();
  EXPECT_EQ(nodes[0].last_heartbeat_ms, 3000);
  EXPECT_EQ(nodes[0].available, (std::map<std::string, double>{{"CPU", 1}}));
  EXPECT_EQ(nodes[0].total.at("CPU"), 4);
}

TEST_F(GcsStoreTest, LiveActorNamesAreUnique) {
  ASSERT_TRUE(store_->PutActor("a1", "svc", "n1", "j1").ok());
  EXPECT_EQ(store_->LiveActorByName("svc").value(), "a1");
  // The unique index backs the server's check.
  EXPECT_FALSE(store_->PutActor("a2", "svc", "n1", "j1").ok());
  EXPECT_EQ(store_->LiveActorByName("svc").value(), "a1");

  ASSERT_TRUE(store_->SetActorDead("a1").ok());
  EXPECT_EQ(store_->LiveActorByName("svc").value(), "");
  ASSERT_TRUE(store_->PutActor("a2", "svc", "n2", "j1").ok());
  EXPECT_EQ(store_->LiveActorByName("svc").value(), "a2");

  // Unnamed actors never collide and are never found by name.
  ASSERT_TRUE(store_->PutActor("u1", "", "n2", "j1").ok());
  ASSERT_TRUE(store_->PutActor("u2", "", "n2", "j1").ok());
  EXPECT_EQ(store_->LiveActorByName("").value(), "");

  ASSERT_TRUE(store_->SetNodeActorsDead("n2").ok());
  EXPECT_EQ(store_->LiveActorByName("svc").value(), "");
}

TEST_F(GcsStoreTest, PluginsKeepTheFirstBytesForAHash) {
  std::string bytes(
      "\x7f"
      "ELF\x00\x01\x02",
      7);
  ASSERT_TRUE(store_->PutPlugin("h1", "libfoo.so", bytes, 10).ok());
  ASSERT_TRUE(store_->PutPlugin("h1", "libfoo.so", "other", 20).ok());
  auto got = store_->GetPlugin("h1");
  ASSERT_TRUE(got.ok());
  ASSERT_TRUE(got->has_value());
  EXPECT_EQ(**got, bytes);
  auto missing = store_->GetPlugin("h2");
  ASSERT_TRUE(missing.ok());
  EXPECT_FALSE(missing->has_value());
}

TEST_F(GcsStoreTest, JobLifecycle) {
  ASSERT_TRUE(store_->AddJob("j1", 100, "python main.py", 1000).ok());
  ASSERT_TRUE(store_->AddJob("j2", 200, "./driver", 2000).ok());
  ASSERT_TRUE(store_->FinishJob("j1", 3, 1500).ok());
  Status missing = store_->FinishJob("nope", 0, 1600);
  EXPECT_EQ(missing.code(), StatusCode::kNotFound);

  auto jobs = store_->LoadJobs();
  ASSERT_TRUE(jobs.ok());
  ASSERT_EQ(jobs->size(), 2u);
  EXPECT_EQ((*jobs)[0].job_id, "j1");
  EXPECT_EQ((*jobs)[0].pid, 100);
  EXPECT_EQ((*jobs)[0].entry, "python main.py");
  EXPECT_EQ((*jobs)[0].start_ms, 1000);
  EXPECT_EQ((*jobs)[0].end_ms, 1500);
  EXPECT_EQ((*jobs)[0].exit_code, 3);
  EXPECT_EQ((*jobs)[1].end_ms, 0);  // still running
}

TEST_F(GcsStoreTest, TaskEventsAreBufferedUntilFlush) {
  std::vector<TaskEvent> events;
  for (int i = 0; i < 3; ++i) {
    events.push_back({"t" + std::to_string(i), "j1", "f", "n1", "w1", i, i + 1, "FINISHED"});
  }
  store_->BufferTaskEvents(events);
  EXPECT_TRUE(store_->LoadTaskEvents().value().empty());
  EXPECT_FALSE(store_->FlushDue());
  ASSERT_TRUE(store_->Flush().ok());
  auto loaded = store_->LoadTaskEvents();
  ASSERT_TRUE(loaded.ok());
  ASSERT_EQ(loaded->size(), 3u);
  EXPECT_EQ((*loaded)[2].task_id, "t2");
  EXPECT_EQ((*loaded)[2].end_ms, 3);
  EXPECT_EQ((*loaded)[2].state, "FINISHED");
}

TEST_F(GcsStoreTest, ManyBufferedTaskEventsMakeAFlushDue) {
  std::vector<TaskEvent> events(20000, TaskEvent{"t", "j1", "f", "n1", "w1", 1, 2, "FINISHED"});
  store_->BufferTaskEvents(events);
  EXPECT_TRUE(store_->FlushDue());
  EXPECT_TRUE(store_->LoadTaskEvents().value().empty()) << "written before a Flush()";
  ASSERT_TRUE(store_->Flush().ok());
  EXPECT_FALSE(store_->FlushDue());
  EXPECT_EQ(store_->LoadTaskEvents().value().size(), 20000u);
}

TEST_F(GcsStoreTest, ReopenRecoversEverythingIncludingBufferedWrites) {
  ASSERT_TRUE(store_->PutNode(MakeNode("n1")).ok());
  ASSERT_TRUE(store_->PutActor("a1", "svc", "n1", "j1").ok());
  ASSERT_TRUE(store_->PutPlugin("h1", "libfoo.so", "bytes", 10).ok());
  ASSERT_TRUE(store_->AddJob("j1", 100, "entry", 1000).ok());
  store_->BufferHeartbeat("n1", {{"CPU", 2}}, 5000);
  store_->BufferTaskEvents({{"t1", "j1", "f", "n1", "w1", 1, 2, "RUNNING"}});

  Reopen();  // the old store flushes on close
  auto nodes = Nodes();
  ASSERT_EQ(nodes.size(), 1u);
  EXPECT_EQ(nodes[0].state, kAlive);
  EXPECT_EQ(nodes[0].last_heartbeat_ms, 5000);
  EXPECT_EQ(nodes[0].available.at("CPU"), 2);
  EXPECT_EQ(store_->LiveActorByName("svc").value(), "a1");
  EXPECT_EQ(store_->GetPlugin("h1").value().value_or(""), "bytes");
  EXPECT_EQ(store_->LoadJobs().value().size(), 1u);
  EXPECT_EQ(store_->LoadTaskEvents().value().size(), 1u);
}

TEST_F(GcsStoreTest, OpenErrorNamesThePath) {
  std::string bad = dir_.path() + "/missing/dir/gcs.sqlite3";
  auto opened = GcsStore::Open(bad);
  ASSERT_FALSE(opened.ok());
  EXPECT_NE(opened.status().message().find(bad), std::string::npos) << opened.status().ToString();
}

TEST_F(GcsStoreTest, RefusesANewerSchema) {
  store_.reset();
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path_.c_str(), &db), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db, "PRAGMA user_version=99", nullptr, nullptr, nullptr), SQLITE_OK);
  sqlite3_close(db);
  auto opened = GcsStore::Open(path_);
  ASSERT_FALSE(opened.ok());
  EXPECT_EQ(opened.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(opened.status().message().find(path_), std::string::npos);
}

TEST_F(GcsStoreTest, NotADatabaseIsAnErrorNotACrash) {
  store_.reset();
  std::filesystem::remove(path_ + "-wal");
  std::filesystem::remove(path_ + "-shm");
  {
    FILE* f = fopen(path_.c_str(), "wb");
    ASSERT_NE(f, nullptr);
    std::string junk(8192, 'x');
    fwrite(junk.data(), 1, junk.size(), f);
    fclose(f);
  }
  auto opened = GcsStore::Open(path_);
  ASSERT_FALSE(opened.ok());
  EXPECT_NE(opened.status().message().find(path_), std::string::npos) << opened.status().ToString();
}

}  // namespace
}  // namespace ray::gcs
