// End-to-end tests of the GCS: RunGcsServer on a thread, a real SQLite file, and
// GcsClient (or a raw DEALER) over loopback TCP. Waits are bounded polls.

#include "runtime/gcs/gcs_server.h"

#include <gtest/gtest.h>
#include <spdlog/sinks/ringbuffer_sink.h>
#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <thread>

#include "runtime/base/util.h"
#include "runtime/gcs/gcs_client.h"
#include "runtime/gcs/gcs_store.h"
#include "runtime/gcs/gcs_watch.h"
#include "runtime/transport/transport.h"
#include "tests/test_util/gcs_thread.h"
#include "tests/test_util/temp_dir.h"

namespace ray::gcs {
namespace {

using protocol::MessageType;
using protocol::NodeInfo;

constexpr const char* kToken = "s3cret-token";
constexpr int64_t kDeadlineMs = 10000;

template <typename T>
std::string Pack(const T& value) {
  msgpack::sbuffer buf;
  msgpack::pack(buf, value);
  return std::string(buf.data(), buf.size());
}

NodeInfo MakeNode(const std::string& id) {
  NodeInfo n;
  n.node_id = id;
  n.address = "127.0.0.1";
  n.raylet_socket = "ipc:///tmp/raylet-" + id;
  n.total = {{"CPU", 4}};
  n.available = n.total;
  n.pid = 1234;
  return n;
}

const NodeInfo* FindNode(const std::vector<NodeInfo>& nodes, const std::string& id) {
  for (const auto& n : nodes) {
    if (n.node_id == id) return &n;
  }
  return nullptr;
}

class GcsServerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_FALSE(dir_.path().empty());
    // Server log lines go to stderr and to a ring buffer the tests inspect.
    logs_ = std::make_shared<spdlog::sinks::ringbuffer_sink_mt>(2000);
    logs_->set_pattern("%l %v");
    auto logger = std::make_shared<spdlog::logger>(
        "gcs-test",
        spdlog::sinks_init_list{logs_, std::make_shared<spdlog::sinks::stderr_sink_mt>()});
    spdlog::set_default_logger(logger);
  }

  void TearDown() override {
    Status st = Stop();
    EXPECT_TRUE(st.ok()) << st.ToString();
  }

  // Starts the server (on a free port, unless `listen` names one) and waits until it
  // has written its endpoint.
  void Start(int64_t heartbeat_timeout_ms = 10000,
             const std::string& listen = "tcp://127.0.0.1:*") {
    Status st = gcs_.Start(listen, heartbeat_timeout_ms);
    ASSERT_TRUE(st.ok()) << st.ToString();
    endpoint_ = gcs_.endpoint();
    ASSERT_EQ(endpoint_.rfind("tcp://127.0.0.1:", 0), 0u) << endpoint_;
  }

  Status Stop() { return gcs_.Stop(); }

  GcsClient Client(const std::string& token = kToken) { return GcsClient(endpoint_, token, 5000); }

  // Polls get_nodes until node `id` is in `state`; returns the ms waited, or -1.
  int64_t WaitForNodeState(const std::string& id, const std::string& state) {
    GcsClient client = Client();
    int64_t start = MonoMillis();
    while (MonoMillis() - start < kDeadlineMs) {
      auto nodes = client.GetNodes();
      if (!nodes.ok()) return -1;
      const NodeInfo* n = FindNode(*nodes, id);
      if (n && n->state == state) return MonoMillis() - start;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return -1;
  }

  bool LogsContain(const std::string& needle) {
    auto lines = logs_->last_formatted();
    return std::any_of(lines.begin(), lines.end(),
                       [&](const std::string& l) { return l.find(needle) != std::string::npos; });
  }
  size_t CountLogLines(const std::string& needle) {
    auto lines = logs_->last_formatted();
    return std::count_if(lines.begin(), lines.end(),
                         [&](const std::string& l) { return l.find(needle) != std::string::npos; });
  }

  test_util::TempDir dir_;
  std::shared_ptr<spdlog::sinks::ringbuffer_sink_mt> logs_;
  test_util::GcsThread gcs_{dir_.path(), kToken};
  std::string endpoint_;
};

TEST_F(GcsServerTest, RegisterHeartbeatAndGetNodes) {
  Start();
  GcsClient client = Client();
  ASSERT_TRUE(client.Ping().ok());
  ASSERT_TRUE(client.RegisterNode(MakeNode("n1")).ok());
  ASSERT_TRUE(client.Heartbeat("n1", {{"CPU", 1.5}}).ok());

  auto nodes = client.GetNodes();
  ASSERT_TRUE(nodes.ok()) << nodes.status().ToString();
  ASSERT_EQ(nodes->size(), 1u);
  const NodeInfo& n = (*nodes)[0];
  EXPECT_EQ(n.node_id, "n1");
  EXPECT_EQ(n.state, "ALIVE");
  EXPECT_EQ(n.total.at("CPU"), 4);
  EXPECT_EQ(n.available.at("CPU"), 1.5);
  EXPECT_EQ(n.raylet_socket, "ipc:///tmp/raylet-n1");
  EXPECT_EQ(n.pid, 1234);
  EXPECT_GT(n.last_heartbeat_ms, 0);
  EXPECT_EQ(n.token, "");  // never handed out

  EXPECT_EQ(client.Heartbeat("nobody", {}).code(), StatusCode::kNotFound);
  EXPECT_EQ(client.UnregisterNode("nobody").code(), StatusCode::kNotFound);

  // Unregistered: DEAD, still listed; heartbeats are refused until it re-registers.
  ASSERT_TRUE(client.UnregisterNode("n1").ok());
  nodes = client.GetNodes();
  ASSERT_TRUE(nodes.ok());
  ASSERT_EQ(nodes->size(), 1u);
  EXPECT_EQ((*nodes)[0].state, "DEAD");
  Status hb = client.Heartbeat("n1", {});
  EXPECT_EQ(hb.code(), StatusCode::kNotFound);
  EXPECT_EQ(hb.message(), "unknown node");
  ASSERT_TRUE(client.RegisterNode(MakeNode("n1")).ok());
  EXPECT_TRUE(client.Heartbeat("n1", {}).ok());
}

TEST_F(GcsServerTest, RefusesRequestsWithoutTheToken) {
  Start();
  for (const std::string& token : {std::string("wrong"), std::string()}) {
    GcsClient bad = Client(token);
    Status ping = bad.Ping();
    EXPECT_EQ(ping.code(), StatusCode::kPermissionDenied) << ping.ToString();
    EXPECT_EQ(ping.message(), "invalid cluster token");
    EXPECT_EQ(bad.RegisterNode(MakeNode("intruder")).code(), StatusCode::kPermissionDenied);
    EXPECT_EQ(bad.Heartbeat("intruder", {}).code(), StatusCode::kPermissionDenied);
    EXPECT_EQ(bad.UnregisterNode("intruder").code(), StatusCode::kPermissionDenied);
    EXPECT_EQ(bad.PutPlugin("h", "n", "b").code(), StatusCode::kPermissionDenied);
  }
  auto nodes = Client().GetNodes();
  ASSERT_TRUE(nodes.ok());
  EXPECT_TRUE(nodes->empty());
  EXPECT_EQ(Client().GetPlugin("h").status().code(), StatusCode::kNotFound);
  EXPECT_TRUE(LogsContain("invalid cluster token"));
}

TEST_F(GcsServerTest, SilentNodeIsMarkedDeadAndItsActorsFreed) {
  Start(/*heartbeat_timeout_ms=*/300);
  GcsClient client = Client();
  int64_t registered = MonoMillis();
  ASSERT_TRUE(client.RegisterNode(MakeNode("quiet")).ok());
  ASSERT_TRUE(client.RegisterNamedActor("svc", "actor-1", "quiet").ok());
  EXPECT_EQ(client.LookupNamedActor("svc").value(), "actor-1");

  int64_t waited = WaitForNodeState("quiet", "DEAD");
  ASSERT_GE(waited, 0) << "node never marked DEAD";
  EXPECT_GE(MonoMillis() - registered, 300);
  EXPECT_TRUE(LogsContain("missed heartbeats"));
  EXPECT_EQ(client.LookupNamedActor("svc").value(), "");

  // The raylet learns it is unknown and registers again.
  EXPECT_EQ(client.Heartbeat("quiet", {}).code(), StatusCode::kNotFound);
  ASSERT_TRUE(client.RegisterNode(MakeNode("quiet")).ok());
  EXPECT_GE(WaitForNodeState("quiet", "ALIVE"), 0);
}

TEST_F(GcsServerTest, NamedActorsAreUniqueUntilRemoved) {
  Start();
  GcsClient client = Client();
  ASSERT_TRUE(client.RegisterNamedActor("svc", "a1", "n1").ok());
  Status taken = client.RegisterNamedActor("svc", "a2", "n1");
  EXPECT_EQ(taken.code(), StatusCode::kAlreadyExists);
  EXPECT_EQ(taken.message(), "actor name 'svc' is taken");
  EXPECT_TRUE(client.RegisterNamedActor("svc", "a1", "n1").ok());  // same actor: idempotent
  EXPECT_EQ(client.LookupNamedActor("svc").value(), "a1");
  EXPECT_EQ(client.LookupNamedActor("other").value(), "");

  ASSERT_TRUE(client.RemoveActor("a1").ok());
  EXPECT_EQ(client.LookupNamedActor("svc").value(), "");
  ASSERT_TRUE(client.RegisterNamedActor("svc", "a2", "n1").ok());
  EXPECT_EQ(client.LookupNamedActor("svc").value(), "a2");

  // Unnamed actors are just recorded.
  EXPECT_TRUE(client.RegisterNamedActor("", "u1", "n1").ok());
  EXPECT_TRUE(client.RegisterNamedActor("", "u2", "n1").ok());
  EXPECT_EQ(client.LookupNamedActor("").value(), "");
}

TEST_F(GcsServerTest, NamesAreUniquePerNamespaceAndAnEmptyOneIsTheJobs) {
  Start();
  GcsClient client = Client();
  // Job ids are the first 4 bytes of actor ids.
  ASSERT_TRUE(client.AddJob("jobA", 1, "a.so", "alpha").ok());
  ASSERT_TRUE(client.AddJob("jobB", 2, "b.so", "beta").ok());
  ASSERT_TRUE(client.RegisterNamedActor("svc", "jobA-actor", "n1").ok());
  ASSERT_TRUE(client.RegisterNamedActor("svc", "jobB-actor", "n1").ok());  // another namespace
  Status taken = client.RegisterNamedActor("svc", "jobA-other", "n1");
  EXPECT_EQ(taken.code(), StatusCode::kAlreadyExists);
  EXPECT_EQ(taken.message(), "actor name 'svc' is taken in namespace 'alpha'");
  EXPECT_EQ(client.LookupNamedActor("svc", "", "jobA").value(), "jobA-actor");
  EXPECT_EQ(client.LookupNamedActor("svc", "", "jobB").value(), "jobB-actor");
  EXPECT_EQ(client.LookupNamedActor("svc", "beta", "jobA").value(), "jobB-actor");
  EXPECT_EQ(client.LookupNamedActor("svc", "gamma", "jobA").value(), "");
  // An explicit namespace at registration.
  ASSERT_TRUE(client.RegisterNamedActor("svc", "jobA-third", "n1", "gamma").ok());
  EXPECT_EQ(client.LookupNamedActor("svc", "gamma", "jobB").value(), "jobA-third");
  std::map<std::string, std::string> ns_of;
  auto actors = client.GetActors();
  ASSERT_TRUE(actors.ok()) << actors.status().ToString();
  for (const auto& a : *actors) ns_of[a.actor_id] = a.ray_namespace;
  EXPECT_EQ(ns_of["jobA-actor"], "alpha");
  EXPECT_EQ(ns_of["jobB-actor"], "beta");
  EXPECT_EQ(ns_of["jobA-third"], "gamma");
}

TEST_F(GcsServerTest, ActorLocationsAndTheObjectDirectory) {
  Start();
  GcsClient client = Client();
  NodeInfo n1 = MakeNode("n1");
  n1.peer_address = "tcp://10.0.0.1:7000";
  ASSERT_TRUE(client.RegisterNode(n1).ok());
  ASSERT_TRUE(client.RegisterNode(MakeNode("n2")).ok());
  auto nodes = client.GetNodes();
  ASSERT_TRUE(nodes.ok());
  EXPECT_EQ(FindNode(*nodes, "n1")->peer_address, "tcp://10.0.0.1:7000");

  ASSERT_TRUE(client.RegisterActor("actor1", "n2").ok());
  EXPECT_EQ(client.ActorNode("actor1").value(), "n2");
  // Recording where a named actor runs keeps its name.
  ASSERT_TRUE(client.RegisterNamedActor("svc", "actor2", "n1").ok());
  ASSERT_TRUE(client.RegisterActor("actor2", "n1").ok());
  EXPECT_EQ(client.LookupNamedActor("svc").value(), "actor2");
  EXPECT_EQ(client.ActorNode("nobody").value(), "");
  // Unnamed actors in bulk, in order: born, born, and the first dead.
  ASSERT_TRUE(client.RecordActors({{"actor3", "n1", true}, {"actor4", "n2", true},
                                   {"actor3", "n1", false}}).ok());
  EXPECT_EQ(client.ActorNode("actor3").value(), "");
  EXPECT_EQ(client.ActorNode("actor4").value(), "n2");
  EXPECT_FALSE(client.RecordActors({{"", "n1", true}}).ok()) << "an empty actor id";

  // Object ids begin with their job id ("jobA" here).
  ASSERT_TRUE(client.AddObjectLocations({{"jobAobj1", "n1"}, {"jobAobj1", "n2"},
                                         {"jobAobj1", "n1"}, {"jobBobj2", "n2"}})
                  .ok());
  auto where = client.GetObjectLocations({"jobAobj1", "jobBobj2", "missing"});
  ASSERT_TRUE(where.ok());
  EXPECT_EQ((*where)[0], (std::vector<std::string>{"n1", "n2"}));
  EXPECT_EQ((*where)[1], (std::vector<std::string>{"n2"}));
  EXPECT_TRUE((*where)[2].empty());

  // A dead node's copies are gone; so are a finished job's objects.
  ASSERT_TRUE(client.UnregisterNode("n2").ok());
  where = client.GetObjectLocations({"jobAobj1", "jobBobj2"});
  EXPECT_EQ((*where)[0], (std::vector<std::string>{"n1"}));
  EXPECT_TRUE((*where)[1].empty());
  EXPECT_EQ(client.ActorNode("actor1").value(), "") << "actors of a dead node are dead";
  ASSERT_TRUE(client.AddJob("jobA", 1, "job.so").ok());
  ASSERT_TRUE(client.FinishJob("jobA", 0).ok());
  EXPECT_TRUE(client.GetObjectLocations({"jobAobj1"}).value()[0].empty());
}

TEST_F(GcsServerTest, StateApiListsObjectsActorsAndTaskEvents) {
  Start();
  GcsClient client = Client();
  ASSERT_TRUE(client.RegisterNode(MakeNode("n1")).ok());
  ASSERT_TRUE(client.RegisterNode(MakeNode("n2")).ok());

  // Objects with sizes; a location reported without a size keeps the known size.
  ASSERT_TRUE(client.AddObjects({{"jobAbig", "n1", 5 << 20}, {"jobAbig", "n2", 0},
                                 {"jobBsmall", "n2", 12}})
                  .ok());
  auto objects = client.GetObjects();
  ASSERT_TRUE(objects.ok()) << objects.status().ToString();
  ASSERT_EQ(objects->size(), 2u);
  EXPECT_EQ((*objects)[0].object_id, "jobAbig");
  EXPECT_EQ((*objects)[0].node_ids, (std::vector<std::string>{"n1", "n2"}));
  EXPECT_EQ((*objects)[0].size, 5u << 20);
  EXPECT_EQ((*objects)[1].size, 12u);
  EXPECT_EQ(client.GetObjectLocations({"jobAbig"}).value()[0].size(), 2u)
      << "add_objects feeds the directory the raylets read";
  EXPECT_EQ(client.GetObjects(/*limit=*/1).value().size(), 1u);
  ASSERT_TRUE(client.UnregisterNode("n2").ok());
  objects = client.GetObjects();
  ASSERT_EQ(objects->size(), 1u) << "jobBsmall was only on the dead node";
  EXPECT_EQ((*objects)[0].node_ids, (std::vector<std::string>{"n1"}));
  ASSERT_TRUE(client.AddJob("jobA", 1, "job.so").ok());
  ASSERT_TRUE(client.FinishJob("jobA", 0).ok());
  EXPECT_TRUE(client.GetObjects().value().empty());

  // Actors, named or not, ALIVE until removed.
  ASSERT_TRUE(client.RegisterNamedActor("svc", "actor-1", "n1").ok());
  ASSERT_TRUE(client.RegisterActor("actor-2", "n1").ok());
  ASSERT_TRUE(client.RemoveActor("actor-2").ok());
  auto actors = client.GetActors();
  ASSERT_TRUE(actors.ok()) << actors.status().ToString();
  ASSERT_EQ(actors->size(), 2u);
  EXPECT_EQ((*actors)[0].actor_id, "actor-1");
  EXPECT_EQ((*actors)[0].name, "svc");
  EXPECT_EQ((*actors)[0].node_id, "n1");
  EXPECT_EQ((*actors)[0].state, "ALIVE");
  EXPECT_EQ((*actors)[1].state, "DEAD");

  // Task events are listed as soon as they are added (buffered ones included),
  // oldest first, by job and the last `limit`.
  std::vector<TaskEvent> events = {{"t1", "j1", "f", "n1", "11", 10, 0, "RUNNING"},
                                   {"t1", "j1", "f", "n1", "11", 10, 20, "FINISHED"},
                                   {"t2", "j2", "g", "n1", "12", 15, 30, "FAILED"},
                                   {"", "j1", "span", "n1", "driver:9", 12, 14, "PROFILE"}};
  ASSERT_TRUE(client.AddTaskEvents(events).ok());
  auto all = client.GetTaskEvents();
  ASSERT_TRUE(all.ok()) << all.status().ToString();
  ASSERT_EQ(all->size(), 4u);
  EXPECT_EQ((*all)[1].state, "FINISHED");
  EXPECT_EQ((*all)[1].end_ms, 20);
  auto j1 = client.GetTaskEvents("j1");
  ASSERT_EQ(j1->size(), 3u);
  auto last = client.GetTaskEvents("", 2);
  ASSERT_EQ(last->size(), 2u);
  EXPECT_EQ((*last)[0].task_id, "t2");
  EXPECT_EQ((*last)[1].name, "span");

  EXPECT_FALSE(client.Call("add_objects", Pack(std::make_tuple(1))).ok());
  EXPECT_FALSE(client.Call("get_task_events", Pack(std::make_tuple(1, 2, 3))).ok());
  EXPECT_FALSE(client.Call("get_objects", "\xc1").ok());
  EXPECT_TRUE(client.Ping().ok());
}

TEST_F(GcsServerTest, PluginRoundTripOfOneMebibyte) {
  Start();
  GcsClient client = Client();
  std::string bytes = RandomBytes(1 << 20);
  std::string hash = ContentHash(bytes);
  ASSERT_TRUE(client.PutPlugin(hash, "libbig.so", bytes).ok());
  ASSERT_TRUE(client.PutPlugin(hash, "libbig.so", bytes).ok());  // idempotent
  auto got = client.GetPlugin(hash);
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_EQ(got->size(), bytes.size());
  EXPECT_TRUE(*got == bytes);

  auto missing = client.GetPlugin("feedface");
  EXPECT_EQ(missing.status().code(), StatusCode::kNotFound);
  EXPECT_EQ(missing.status().message(), "plugin feedface not found");
}

TEST_F(GcsServerTest, JobsAndTaskEvents) {
  Start();
  GcsClient client = Client();
  ASSERT_TRUE(client.AddJob("j1", 111, "python a.py").ok());
  ASSERT_TRUE(client.AddJob("j2", 222, "./b").ok());
  ASSERT_TRUE(client.FinishJob("j1", 7).ok());
  EXPECT_EQ(client.FinishJob("nope", 0).code(), StatusCode::kNotFound);

  // get_jobs is a msgpack vector of tuples.
  auto raw = client.Call("get_jobs", "");
  ASSERT_TRUE(raw.ok());
  using Row = std::tuple<std::string, int, std::string, int64_t, int64_t, int>;
  auto rows = protocol::DecodeBody<std::vector<Row>>(*raw, "jobs");
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  ASSERT_EQ(rows->size(), 2u);
  EXPECT_EQ(std::get<0>((*rows)[0]), "j1");
  EXPECT_EQ(std::get<1>((*rows)[0]), 111);
  EXPECT_GT(std::get<4>((*rows)[0]), 0);
  EXPECT_EQ(std::get<5>((*rows)[0]), 7);
  EXPECT_EQ(std::get<4>((*rows)[1]), 0);

  std::vector<TaskEvent> events = {{"t1", "j2", "f", "n1", "w1", 10, 20, "FINISHED"},
                                   {"t2", "j2", "g", "n1", "w1", 15, 0, "RUNNING"}};
  ASSERT_TRUE(client.AddTaskEvents(events).ok());
  ASSERT_TRUE(Stop().ok());  // the server flushes the write-behind buffer on exit

  auto store = GcsStore::Open(dir_.path() + "/session/gcs.sqlite3");
  ASSERT_TRUE(store.ok()) << store.status().ToString();
  auto stored = (*store)->LoadTaskEvents();
  ASSERT_TRUE(stored.ok());
  ASSERT_EQ(stored->size(), 2u);
  EXPECT_EQ((*stored)[1].task_id, "t2");
  EXPECT_EQ((*stored)[1].state, "RUNNING");
}

TEST_F(GcsServerTest, UnknownOperationAndMalformedBodies) {
  Start();
  GcsClient client = Client();
  auto unknown = client.Call("frobnicate", "");
  EXPECT_EQ(unknown.status().message(), "unknown GCS operation 'frobnicate'");
  EXPECT_FALSE(client.Call("put_plugin", "\xc1").ok());
  EXPECT_FALSE(client.Call("register_actor", Pack(std::make_tuple(1, 2))).ok());
  EXPECT_FALSE(client.Call("add_task_events", Pack(42)).ok());
  EXPECT_TRUE(client.Ping().ok());
}

TEST_F(GcsServerTest, StatePersistsAcrossRestart) {
  Start();
  std::string plugin = RandomBytes(4096);
  {
    GcsClient client = Client();
    ASSERT_TRUE(client.RegisterNode(MakeNode("n1")).ok());
    ASSERT_TRUE(client.Heartbeat("n1", {{"CPU", 1}}).ok());
    ASSERT_TRUE(client.RegisterNode(MakeNode("n2")).ok());
    ASSERT_TRUE(client.UnregisterNode("n2").ok());
    ASSERT_TRUE(client.RegisterNamedActor("svc", "a1", "n1").ok());
    ASSERT_TRUE(client.PutPlugin("h1", "libp.so", plugin).ok());
    ASSERT_TRUE(client.AddJob("j1", 1, "entry").ok());
  }
  ASSERT_TRUE(Stop().ok());

  Start();
  {
    GcsClient client = Client();
    auto nodes = client.GetNodes();
    ASSERT_TRUE(nodes.ok());
    ASSERT_EQ(nodes->size(), 2u);
    const NodeInfo* n1 = FindNode(*nodes, "n1");
    ASSERT_NE(n1, nullptr);
    EXPECT_EQ(n1->state, "ALIVE");
    EXPECT_EQ(n1->available.at("CPU"), 1);
    EXPECT_EQ(FindNode(*nodes, "n2")->state, "DEAD");
    EXPECT_TRUE(client.Heartbeat("n1", {}).ok());  // no re-registration needed
    EXPECT_EQ(client.LookupNamedActor("svc").value(), "a1");
    EXPECT_EQ(client.GetPlugin("h1").value(), plugin);
    auto jobs = client.GetJobs();
    ASSERT_TRUE(jobs.ok());
    ASSERT_EQ(jobs->size(), 1u);
    EXPECT_EQ((*jobs)[0].job_id, "j1");
  }
  ASSERT_TRUE(Stop().ok());

  // A node that never checks in with the restarted GCS goes DEAD after the timeout.
  Start(/*heartbeat_timeout_ms=*/300);
  EXPECT_GE(WaitForNodeState("n1", "DEAD"), 0);
  EXPECT_EQ(Client().LookupNamedActor("svc").value(), "");
}

TEST_F(GcsServerTest, AWatchedClientFailsAtOnceWhileTheGcsIsDownUntilItIsBack) {
  Start();
  GcsWatch watch(endpoint_, kToken, {/*probe_timeout_ms=*/100, /*probe_interval_ms=*/20});
  GcsClient client(endpoint_, kToken, 300);
  client.set_watch(&watch);
  ASSERT_TRUE(client.Ping().ok());
  std::string endpoint = endpoint_;
  ASSERT_TRUE(Stop().ok());

  // The first call waits for its timeout and marks the GCS down; the next ones fail
  // without sending anything.
  EXPECT_EQ(client.Ping().code(), StatusCode::kUnavailable);
  EXPECT_FALSE(watch.Up());
  Status fast = client.Ping();
  EXPECT_EQ(fast.code(), StatusCode::kUnavailable);
  EXPECT_NE(fast.message().find("is down"), std::string::npos) << fast.ToString();

  Start(10000, endpoint);  // started again on the same address
  int64_t deadline = MonoMillis() + kDeadlineMs;
  while (!watch.Up() && MonoMillis() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_TRUE(watch.Up()) << "the watch did not see the GCS come back";
  EXPECT_EQ(watch.reconnects(), 1u);
  EXPECT_TRUE(client.Ping().ok());
  auto starts = client.GetStarts();
  ASSERT_TRUE(starts.ok()) << starts.status().ToString();
  EXPECT_EQ(starts->starts, 2);
  EXPECT_EQ(starts->restarts(), 1);
}

TEST_F(GcsServerTest, TheObjectDirectoryIsReloadedAfterARestart) {
  Start();
  {
    GcsClient client = Client();
    ASSERT_TRUE(client.RegisterNode(MakeNode("live")).ok());
    ASSERT_TRUE(client.RegisterNode(MakeNode("gone")).ok());
    ASSERT_TRUE(client.AddJob("jobA", 1, "a").ok());
    ASSERT_TRUE(client.AddJob("jobB", 1, "b").ok());
    ASSERT_TRUE(client.AddObjectLocations({{"jobA-o1", "live"}, {"jobA-o1", "gone"},
                                           {"jobA-o2", "gone"}, {"jobB-o3", "live"}})
                    .ok());
    ASSERT_TRUE(client.UnregisterNode("gone").ok());
    ASSERT_TRUE(client.FinishJob("jobB", 0).ok());
  }
  ASSERT_TRUE(Stop().ok());
  Start();
  // What the directory listed before: on live nodes, of jobs not finished.
  auto where = Client().GetObjectLocations({"jobA-o1", "jobA-o2", "jobB-o3"});
  ASSERT_TRUE(where.ok()) << where.status().ToString();
  ASSERT_EQ(where->size(), 3u);
  EXPECT_EQ((*where)[0], std::vector<std::string>{"live"});
  EXPECT_TRUE((*where)[1].empty());
  EXPECT_TRUE((*where)[2].empty());
}

TEST_F(GcsServerTest, GarbageFramesAreLoggedAndDropped) {
  Start();
  const std::string peer = "garbage-peer";
  transport::Dealer dealer(peer);
  ASSERT_TRUE(dealer.Connect(endpoint_).ok());

  protocol::CallRequest ping{"ping", "", kToken};
  std::string valid = protocol::Encode(MessageType::kGcsCall, 5, ping);
  std::string wrong_version;
  {
    msgpack::sbuffer buf;
    msgpack::packer<msgpack::sbuffer> pk(buf);
    pk.pack_array(3);
    pk.pack(protocol::kProtocolVersion + 1);
    pk.pack(static_cast<uint16_t>(MessageType::kGcsCall));
    pk.pack(uint64_t{6});
    wrong_version = std::string(buf.data(), buf.size()) + Pack(ping);
  }
  const std::vector<std::string> dropped_frames = {
      RandomBytes(1000),
      std::string(),
      valid.substr(0, valid.size() / 2),
      wrong_version,
      protocol::Encode(MessageType::kGcsCall, 7, Pack(42)),
      protocol::Encode(MessageType::kRegisterNode, 8, Pack(std::string("not a node"))),
      protocol::Encode(MessageType::kHeartbeat, 9, valid),  // trailing bytes
      protocol::Encode(static_cast<MessageType>(999), 10, Pack(ping)),
      protocol::Encode(MessageType::kGcsReply, 11, Pack(protocol::GcsReply{})),
      std::string("\xdd\x7f\xff\xff\xff", 5),  // claims 2^31 array elements
  };
  for (const auto& frame : dropped_frames) dealer.Send(frame);
  // A multi-part message, even one made of valid frames, is dropped too.
  dealer.socket().send(zmq::buffer(valid), zmq::send_flags::sndmore);
  dealer.socket().send(zmq::buffer(valid), zmq::send_flags::none);

  dealer.Send(protocol::Encode(MessageType::kGcsCall, 77, ping));
  auto reply = dealer.Recv(kDeadlineMs);
  ASSERT_TRUE(reply.has_value()) << "server stopped answering";
  auto env = protocol::DecodeEnvelope(*reply);
  ASSERT_TRUE(env.ok());
  EXPECT_EQ(env->type, MessageType::kCallReply);
  EXPECT_EQ(env->request_id, 77u) << "a dropped frame was answered";
  auto body = protocol::DecodeBody<protocol::CallReply>(env->body, "CallReply");
  ASSERT_TRUE(body.ok());
  EXPECT_EQ(body->error, "");
  EXPECT_FALSE(dealer.Recv(100).has_value());

  // One warning naming the peer per dropped single-part frame.
  EXPECT_EQ(CountLogLines("from peer " + ToHex(peer)), dropped_frames.size());
  EXPECT_TRUE(LogsContain("protocol version"));
  EXPECT_TRUE(LogsContain("multi-part"));
  EXPECT_TRUE(Client().Ping().ok());
}

TEST_F(GcsServerTest, ConcurrentClients) {
  Start();
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      GcsClient client = Client();
      for (int i = 0; i < 25; ++i) {
        std::string node = "n" + std::to_string(t);
        if (!client.RegisterNode(MakeNode(node)).ok() || !client.Heartbeat(node, {}).ok() ||
            !client.Ping().ok()) {
          ++failures;
        }
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(failures.load(), 0);
  auto nodes = Client().GetNodes();
  ASSERT_TRUE(nodes.ok());
  EXPECT_EQ(nodes->size(), 4u);
}

}  // namespace
}  // namespace ray::gcs
