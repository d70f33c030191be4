// The raylet survives hostile input on its socket: a raw ZeroMQ DEALER sends garbage,
// truncated and wrong-version frames, and for every client message type a valid
// envelope around a malformed body. Each frame must be dropped with one warning in
// logs/raylet.err, the raylet must keep answering, and a normal job must still run.

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <random>
#include <regex>
#include <sstream>
#include <thread>

#include <gtest/gtest.h>
#include <msgpack.hpp>
#include <nlohmann/json.hpp>
#include <zmq.hpp>

#include "runtime/base/util.h"
#include "runtime/ids/ids.h"
#include "runtime/serialization/protocol.h"
#include "tests/integration/ray_harness.h"

namespace ray::testing {
namespace {

using protocol::MessageType;
using namespace std::string_literals;

template <typename T>
std::string Pack(const T& v) {
  msgpack::sbuffer buf;
  msgpack::pack(buf, v);
  return std::string(buf.data(), buf.size());
}

ObjectId Oid(char c) { return ObjectId::FromBinary(std::string(ObjectId::kSize, c)); }

// The shapes of GetRequest, WaitRequest, FreeObjects and ObjectPayload with ids as
// plain strings: how a faulty or hostile client sends ids of the wrong size.
struct RawGet {
  std::vector<std::string> ids;
  int64_t timeout_ms = -1;
  std::string from_node;
  MSGPACK_DEFINE_ARRAY(ids, timeout_ms, from_node);
};
struct RawWait {
  std::vector<std::string> ids;
  uint32_t num = 1;
  int64_t timeout_ms = -1;
  MSGPACK_DEFINE_ARRAY(ids, num, timeout_ms);
};
struct RawFree {
  std::vector<std::string> ids, keep_segments, borrowed, unborrowed;
  MSGPACK_DEFINE_ARRAY(ids, keep_segments, borrowed, unborrowed);
};
struct RawPayload {
  std::string id;
  uint8_t state = 0;
  std::string data, shm_name;
  uint64_t size = 0;
  MSGPACK_DEFINE_ARRAY(id, state, data, shm_name, size);
};
struct RawPut {
  RawPayload object;
  std::vector<std::string> contained_refs;
  MSGPACK_DEFINE_ARRAY(object, contained_refs);
};

class RayletRobustnessTest : public ::testing::Test {
 protected:
  void SetUp() override {
    RunResult start = RunRay({"start", "--head", "--port", "0", "--num-cpus", "1", "--temp-dir",
                              tmp_.path()},
                             tmp_.path(), 30);
    ASSERT_EQ(start.exit_code, 0) << start.all();
    auto sessions = Sessions(tmp_.path());
    ASSERT_EQ(sessions.size(), 1u);
    session_ = sessions[0];
    log_ = session_ + "/logs/raylet.err";
    // Usually <session>/sockets/raylet; node.json has the endpoint either way.
    auto node = nlohmann::json::parse(ReadText(session_ + "/node.json"), nullptr, false);
    ASSERT_TRUE(node.is_object() && node.contains("raylet_socket")) << session_;
    raylet_endpoint_ = node["raylet_socket"].get<std::string>();
  }

  void TearDown() override {
    RunResult stop = RunRay({"stop", "--temp-dir", tmp_.path()}, tmp_.path(), 30);
    EXPECT_EQ(stop.exit_code, 0) << stop.all();
    EXPECT_EQ(AwaitNoProcessesMentioning(tmp_.path()), std::vector<int>{});
    EXPECT_EQ(SegmentsOfSessions(tmp_.path()), std::vector<std::string>{});
  }

  std::unique_ptr<zmq::socket_t> Connect(const std::string& identity) {
    auto s = std::make_unique<zmq::socket_t>(ctx_, zmq::socket_type::dealer);
    s->set(zmq::sockopt::routing_id, identity);
    s->set(zmq::sockopt::linger, 0);
    s->connect(raylet_endpoint_);
    return s;
  }

  int Warnings() { return CountLines(ReadText(log_), "[warning]"); }

  // Processes of this session whose command line mentions `role` ("_worker", ...).
  std::vector<int> PidsOf(const std::string& role) {
    std::vector<int> pids;
    for (int pid : ProcessesMentioning(tmp_.path())) {
      if (ReadText("/proc/" + std::to_string(pid) + "/cmdline").find(role) != std::string::npos) {
        pids.push_back(pid);
      }
    }
    return pids;
  }

  // Whether worker `pid` took its own id (a forked worker starts with the zygote's
  // placeholder id on its command line).
  bool Renamed(int pid) {
    return ReadText("/proc/" + std::to_string(pid) + "/cmdline")
               .find("00000000000000000000000000000000") == std::string::npos;
  }

  // The raylet, the zygote and the prestarted workers. The zygote forks the workers
  // soon after start, and a child caught between its fork and its new command line
  // still reads as the zygote, so this looks (for at most 20 s) until the forks are
  // done; the caller checks what it found.
  void AwaitPrestartedWorkers(std::vector<int>& raylet, std::vector<int>& zygote,
                              std::vector<int>& workers) {
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    do {
      raylet = PidsOf("_raylet");
      zygote = PidsOf("_zygote");
      workers = PidsOf("_worker");
      if (zygote.size() == 1 && !workers.empty() &&
          std::all_of(workers.begin(), workers.end(), [&](int w) { return Renamed(w); })) {
        return;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    } while (std::chrono::steady_clock::now() < deadline);
  }

  // The command lines of this session's live workers, joined: each names its worker's
  // id, whose first 16 hex digits name its socket (w-<id>).
  std::string LiveWorkers() {
    std::string live;
    for (int w : PidsOf("_worker")) live += ReadText("/proc/" + std::to_string(w) + "/cmdline");
    return live;
  }

  // Kills the idle workers (a job needs new ones then) and runs a job. The files the
  // killed workers left (their sockets for direct calls, their running-task slots) are
  // gone after it.
  void KillWorkersAndRunAJob() {
    std::vector<int> killed = PidsOf("_worker");
    for (int w : killed) ::kill(w, SIGKILL);
    RunResult job = SubmitSemantics({"objects"});
    EXPECT_EQ(job.exit_code, 0) << job.all();
    std::string live = LiveWorkers();
    for (const auto& f : std::filesystem::directory_iterator(session_ + "/sockets")) {
      std::string name = f.path().filename().string();
      if (name.rfind("w-", 0) != 0) continue;  // w-<id>: its socket; w-<id>.task, .gate
      EXPECT_NE(live.find(name.substr(2, 16)), std::string::npos)
          << name << " of a dead worker (" << killed.size() << " killed)";
    }
  }

  // Submits the semantics plugin's `cases` to this node, with a scratch dir.
  RunResult SubmitSemantics(std::vector<std::string> cases) {
    std::string work = tmp_.path() + "/work";
    std::filesystem::create_directories(work);
    std::vector<std::string> args = {"submit", "--temp-dir", tmp_.path(), IT_SEMANTICS_PLUGIN};
    args.insert(args.end(), cases.begin(), cases.end());
    args.insert(args.end(), {"--dir", work});
    return RunRay(args, tmp_.path());
  }

  // Sends one frame and waits (bounded) for the raylet to log a new warning about it.
  void ExpectDropped(zmq::socket_t& s, const std::string& frame, const std::string& what) {
    int before = Warnings();
    s.send(zmq::buffer(frame), zmq::send_flags::none);
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(3);
    while (Warnings() <= before) {
      if (std::chrono::steady_clock::now() > deadline) {
        ADD_FAILURE() << "no warning in " << log_ << " for " << what;
        return;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
  }

  std::optional<std::string> Recv(zmq::socket_t& s, int timeout_ms) {
    zmq::pollitem_t item{s.handle(), 0, ZMQ_POLLIN, 0};
    if (zmq::poll(&item, 1, std::chrono::milliseconds(timeout_ms)) == 0) return std::nullopt;
    zmq::message_t msg;
    if (!s.recv(msg, zmq::recv_flags::none)) return std::nullopt;
    return msg.to_string();
  }

  // Waits for the reply of `type` to request `id`, skipping anything else.
  std::optional<std::string> AwaitReply(zmq::socket_t& s, MessageType type, uint64_t id) {
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
    while (std::chrono::steady_clock::now() < deadline) {
      auto frame = Recv(s, 200);
      if (!frame) continue;
      auto env = protocol::DecodeEnvelope(*frame);
      if (env.ok() && env->type == type && env->request_id == id) return std::string(env->body);
    }
    return std::nullopt;
  }

  TempDir tmp_;
  std::string session_;
  std::string log_;
  std::string raylet_endpoint_;
  zmq::context_t ctx_;
};

TEST_F(RayletRobustnessTest, DropsMalformedFramesAndKeepsServing) {
  // 1. Frames that are not envelopes, from a peer that never registered.
  auto stranger = Connect("stranger-0123456");
  std::mt19937 rng(42);
  for (int i = 0; i < 10; ++i) {
    std::string junk(rng() % 200, '\0');
    for (auto& c : junk) c = static_cast<char>(rng());
    ExpectDropped(*stranger, junk, "random bytes #" + std::to_string(i));
  }
  std::string reg = protocol::Encode(MessageType::kRegisterClient, 1,
                                     protocol::RegisterClient{"x", 1, true, JobId::FromBinary("abcd"), ""});
  ExpectDropped(*stranger, reg.substr(0, 2), "a truncated envelope");
  const std::string other_version = "protocol version " + std::to_string(protocol::kProtocolVersion + 1);
  msgpack::sbuffer wrong;
  msgpack::packer<msgpack::sbuffer>(wrong).pack(
      std::make_tuple(protocol::kProtocolVersion + 1, uint16_t{1}, uint64_t{1}));
  ExpectDropped(*stranger, std::string(wrong.data(), wrong.size()) + Pack(protocol::RegisterClient{}),
                other_version);
  EXPECT_NE(ReadText(log_).find(other_version), std::string::npos);
  ExpectDropped(*stranger, "\xdd\xff\xff\xff\xff\x01", "an envelope claiming 4G elements");
  ExpectDropped(*stranger, protocol::Encode(MessageType::kSubmitTask, 0, protocol::TaskSpec{}),
                "a task from an unregistered peer");
  {
    int before = Warnings();
    stranger->send(zmq::buffer(reg), zmq::send_flags::sndmore);
    stranger->send(zmq::buffer(reg), zmq::send_flags::none);
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(3);
    while (Warnings() <= before && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    EXPECT_GT(Warnings(), before) << "a multi-part message";
  }

  // 2. A registered driver sends each client message type with a malformed body.
  auto driver = Connect("driver-abcdef012");
  driver->send(zmq::buffer(protocol::Encode(
                   MessageType::kRegisterClient, 7,
                   protocol::RegisterClient{"", static_cast<int32_t>(::getpid()), true, JobId::FromBinary("jobX"), ""})),
               zmq::send_flags::none);
  auto registered = AwaitReply(*driver, MessageType::kRegisterReply, 7);
  ASSERT_TRUE(registered.has_value()) << "the raylet did not answer a registration";

  const std::vector<std::pair<MessageType, std::string>> valid{
      {MessageType::kRegisterClient, Pack(protocol::RegisterClient{"", 1, true, JobId::FromBinary("jobX"), ""})},
      // Qualified: TaskSpec's base brings in ray::internal::Pack by argument-dependent lookup.
      {MessageType::kSubmitTask, ray::testing::Pack(protocol::TaskSpec{})},
      {MessageType::kGetObjects, Pack(protocol::GetRequest{{Oid('a')}, 10, ""})},
      {MessageType::kWaitObjects, Pack(protocol::WaitRequest{{Oid('a')}, 1, 10})},
      {MessageType::kPutObject, Pack(protocol::PutRequest{})},
      {MessageType::kTaskDone, Pack(protocol::TaskDone{})},
      {MessageType::kCall, Pack(protocol::CallRequest{"cluster_resources", "", ""})},
      {MessageType::kFreeObjects, Pack(protocol::FreeObjects{{Oid('f')}, {}})},
      {MessageType::kBatch,
       std::string(protocol::DecodeEnvelope(protocol::EncodeBatch({protocol::Encode(
                                                MessageType::kCall, 0,
                                                protocol::CallRequest{"node_id", "", ""})}))
                       ->body)},
  };
  for (const auto& [type, body] : valid) {
    std::string name = "message type " + std::to_string(static_cast<int>(type));
    auto send = [&, type = type](const std::string& b, const std::string& how) {
      ExpectDropped(*driver, protocol::Encode(type, 0, b), name + " with " + how);
    };
    send("\xc1", "a reserved byte");
    send(body.substr(0, body.size() - 1), "a truncated body");
    send(Pack(std::map<std::string, int>{{"a", 1}}), "a map for a body");
    send(Pack(std::string("hello")), "a string for a body");
    send("\xdd\xff\xff\xff\xff\x01", "a body claiming 4G elements");
    send("\x92\xdd\x00\x3f\xff\xff"s, "a body with a 4M-element array and no elements");
    send("\x91\xdb\x10\x00\x00\x00"s, "a body with a 256 MiB string and no bytes");
    send(body + "\x01", "trailing bytes");
  }

  // 3. Well-formed bodies with impossible contents.
  auto ids_of_size = [](size_t n) { return std::vector<std::string>{std::string(n, 'i')}; };
  for (size_t n : {3, 19, 21}) {
    const std::string size = std::to_string(n) + "-byte id";
    ExpectDropped(*driver,
                  protocol::Encode(MessageType::kGetObjects, 0, RawGet{ids_of_size(n), 10, ""}),
                  "Get of a " + size);
    ExpectDropped(*driver,
                  protocol::Encode(MessageType::kWaitObjects, 0, RawWait{ids_of_size(n), 1, 10}),
                  "Wait on a " + size);
    ExpectDropped(*driver, protocol::Encode(MessageType::kFreeObjects, 0, RawFree{ids_of_size(n)}),
                  "Free of a " + size);
    RawPayload bad_id{std::string(n, 'b'), 1, "data", "", 0};
    ExpectDropped(*driver, protocol::Encode(MessageType::kPutObject, 0, RawPut{bad_id}),
                  "Put of a " + size);
  }
  ExpectDropped(*driver,
                protocol::Encode(MessageType::kTaskDone, 0,
                                 std::make_tuple(std::string(5, 't'), std::vector<int>{}, false,
                                                 int64_t{0}, int64_t{0}, std::vector<int>{},
                                                 int64_t{0})),
                "a TaskDone of a 5-byte task id");
  ExpectDropped(*driver,
                protocol::Encode(MessageType::kLeaseWorker, 0,
                                 std::make_tuple(std::map<std::string, double>{{"CPU", 1}},
                                                 std::string(3, 'j'))),
                "a lease for a 3-byte job id");
  // An id of the right size sent as a string, not as binary.
  ExpectDropped(*driver,
                protocol::Encode(MessageType::kGetObjects, 0, RawGet{ids_of_size(20), 10, ""}),
                "Get of a 20-byte id as a string");
  protocol::ObjectPayload bad_state{Oid('p'), 9, "data", "", 0};
  ExpectDropped(*driver,
                protocol::Encode(MessageType::kPutObject, 0, protocol::PutRequest{bad_state}),
                "Put in state 9");
  protocol::ObjectPayload foreign{Oid('q'), 2, "", "/not-this-stores-segment", 8};
  ExpectDropped(*driver, protocol::Encode(MessageType::kPutObject, 0, protocol::PutRequest{foreign}),
                "Put naming a segment outside this node's store");
  protocol::TaskSpec spec;
  spec.task_id = TaskId::FromBinary(std::string(16, 't'));
  spec.job_id = JobId::FromBinary("jobX");
  spec.plugin = "0123456789abcdef";
  spec.function = "F";
  spec.args = {ray::internal::TaskArg{true, "short"}};
  ExpectDropped(*driver, protocol::Encode(MessageType::kSubmitTask, 0, spec),
                "a task with a 5-byte ObjectRef argument");
  spec.args.clear();
  spec.resources = {{"CPU", -4}};
  ExpectDropped(*driver, protocol::Encode(MessageType::kSubmitTask, 0, spec),
                "a task asking for -4 CPUs");
  spec.resources = {{"Custom", 2.5}};
  ExpectDropped(*driver, protocol::Encode(MessageType::kSubmitTask, 0, spec),
                "a task asking for 2.5 of a resource");
  spec.resources = {{"", 1}};
  ExpectDropped(*driver, protocol::Encode(MessageType::kSubmitTask, 0, spec),
                "a task asking for a resource without a name");
  ExpectDropped(*driver,
                protocol::Encode(MessageType::kLeaseWorker, 0,
                                 protocol::LeaseRequest{{{"CPU", 1.5}}, JobId::FromBinary(std::string(4, 'j'))}),
                "a lease of 1.5 CPUs");
  spec.resources.clear();
  spec.plugin = "../../../../tmp/evil";
  ExpectDropped(*driver, protocol::Encode(MessageType::kSubmitTask, 0, spec),
                "a task whose plugin hash is a path");
  spec.plugin = "0123456789abcdef";
  spec.kind = 9;
  ExpectDropped(*driver, protocol::Encode(MessageType::kSubmitTask, 0, spec), "a task of kind 9");
  ExpectDropped(*driver, protocol::Encode(MessageType::kTaskDone, 0, protocol::TaskDone{spec.task_id, {}, false}),
                "TaskDone from a driver");

  std::string call = protocol::Encode(MessageType::kCall, 0, protocol::CallRequest{"node_id", "", ""});
  ExpectDropped(*driver, protocol::EncodeBatch({call, protocol::EncodeBatch({call})}),
                "a batch inside a batch");
  ExpectDropped(*driver, protocol::EncodeBatch({call, "\xc1\xc1"}), "a batch holding a junk frame");

  // An unknown operation is answered with an error, not dropped.
  driver->send(zmq::buffer(protocol::Encode(MessageType::kCall, 11,
                                            protocol::CallRequest{"no_such_op", "", ""})),
               zmq::send_flags::none);
  auto unknown = AwaitReply(*driver, MessageType::kCallReply, 11);
  ASSERT_TRUE(unknown.has_value()) << "no reply to an unknown operation";
  auto unknown_reply = protocol::DecodeBody<protocol::CallReply>(*unknown, "CallReply");
  ASSERT_TRUE(unknown_reply.ok());
  EXPECT_NE(unknown_reply->error.find("no_such_op"), std::string::npos) << unknown_reply->error;

  // 4. The raylet still answers, and the CPU count was not disturbed.
  driver->send(zmq::buffer(protocol::Encode(MessageType::kCall, 12,
                                            protocol::CallRequest{"available_resources", "", ""})),
               zmq::send_flags::none);
  auto resources = AwaitReply(*driver, MessageType::kCallReply, 12);
  ASSERT_TRUE(resources.has_value()) << "the raylet stopped answering";
  auto reply = protocol::DecodeBody<protocol::CallReply>(*resources, "CallReply");
  ASSERT_TRUE(reply.ok() && reply->error.empty());
  auto available = protocol::DecodeBody<std::map<std::string, double>>(reply->body, "resources");
  ASSERT_TRUE(available.ok());
  EXPECT_EQ((*available)["CPU"], 1) << "resources were corrupted by hostile tasks";
  driver->send(zmq::buffer(protocol::Encode(MessageType::kDisconnect, 0, std::string())),
               zmq::send_flags::none);

  // 5. A normal job runs.
  RunResult job = SubmitSemantics({"objects", "returns"});
  EXPECT_EQ(job.exit_code, 0) << job.all();
  EXPECT_NE(job.out.find("CASE PASSED: returns"), std::string::npos) << job.all();
}

// A worker hosting an actor takes calls straight from callers on a socket of its own.
// Junk and malformed calls there are dropped with a warning; a well-formed call,
// even from a stranger, is answered on that socket; a normal task from a caller the
// worker is not leased to is bounced back; and the job goes on unharmed.
// The socket other nodes reach this raylet on: messages before the token, malformed
// ones, and forged ones (asks from nodes that do not exist, news of leases never
// granted) are dropped with a warning, and the raylet keeps serving.
TEST_F(RayletRobustnessTest, PeerMessagesMalformedOrForgedAreDropped) {
  std::smatch m;
  std::string log = ReadText(log_);
  ASSERT_TRUE(std::regex_search(log, m, std::regex("other nodes at (tcp://[^ )]+)"))) << log;
  zmq::socket_t peer(ctx_, zmq::socket_type::dealer);
  peer.set(zmq::sockopt::routing_id, std::string("forger"));
  peer.set(zmq::sockopt::linger, 0);
  peer.connect(m[1].str());
  const JobId job = JobId::FromBinary(std::string(4, 'j'));
  protocol::LeaseAsk ask{7, protocol::LeaseRequest{{{"CPU", 1}}, job}, "caller", "nodeX"};
  ExpectDropped(peer, protocol::Encode(MessageType::kLeaseAsk, 0, ask), "a lease ask before the token");
  ExpectDropped(peer, protocol::Encode(MessageType::kPeerHello, 0, protocol::PeerHello{"nodeX", "wrong"}),
                "a hello with the wrong token");
  std::string token = ReadText(session_ + "/token");
  ASSERT_FALSE(token.empty());
  peer.send(zmq::buffer(protocol::Encode(MessageType::kPeerHello, 0, protocol::PeerHello{"nodeX", token})),
            zmq::send_flags::none);
  for (MessageType type : {MessageType::kLeaseAsk, MessageType::kLeaseAnswer,
                           MessageType::kPeerLeaseGone, MessageType::kRouteAsk,
                           MessageType::kRouteAnswer, MessageType::kPeerActorGone,
                           MessageType::kForwardTask, MessageType::kTaskFinished,
                           MessageType::kKillActor}) {
    std::string name = "peer message type " + std::to_string(static_cast<int>(type));
    ExpectDropped(peer, protocol::Encode(type, 0, std::string("\xc1")), name + " with a reserved byte");
    ExpectDropped(peer, protocol::Encode(type, 0, Pack(std::string("hello"))),
                  name + " with a string for a body");
  }
  ExpectDropped(peer,
                protocol::Encode(MessageType::kLeaseAsk, 0,
                                 protocol::LeaseAsk{8, protocol::LeaseRequest{{{"CPU", 1}}, job}, "", ""}),
                "a lease ask naming no node or caller");
  ExpectDropped(peer,
                protocol::Encode(MessageType::kLeaseAsk, 0,
                                 protocol::LeaseAsk{9, protocol::LeaseRequest{{{"CPU", -1}}, job},
                                                    "caller", "nodeX"}),
                "a lease ask for -1 CPUs");
  // Forged, well formed: a lease for a caller on a node that does not exist (the
  // worker returns it unused), news of a lease never granted, an answer to nothing.
  for (const std::string& frame :
       {protocol::Encode(MessageType::kLeaseAsk, 0, ask),
        protocol::Encode(MessageType::kPeerLeaseGone, 0,
                         protocol::PeerLeaseGone{"caller", {"tcp://127.0.0.1:1", "forged"}}),
        protocol::Encode(MessageType::kLeaseAnswer, 0, protocol::LeaseAnswer{12345, 1, "tcp://x:1"})}) {
    peer.send(zmq::buffer(frame), zmq::send_flags::none);
  }
  // The worker it leased to nobody comes back: a job that needs the node's one CPU runs.
  RunResult job_run = SubmitSemantics({"objects", "returns"});
  EXPECT_EQ(job_run.exit_code, 0) << job_run.all();
}

TEST_F(RayletRobustnessTest, WorkersDropMalformedDirectCalls) {
  std::string sync = tmp_.path() + "/sync";
  std::filesystem::create_directories(sync);
  int pid = SpawnRay({"submit", "--temp-dir", tmp_.path(), IT_STATE_PLUGIN, "state", sync},
                     tmp_.path());
  ASSERT_GT(pid, 0);
  // The job is still until its holder actor runs Hold: a worker that takes up a task
  // meanwhile would answer the call below, then bounce the task only after that.
  std::string out;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (((out = ReadText(sync + "/out.txt")).empty() || !std::filesystem::exists(sync + "/holding")) &&
         std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  ASSERT_FALSE(out.empty()) << "the job did not get to its checks";
  ASSERT_TRUE(std::filesystem::exists(sync + "/holding")) << "the holder actor did not start Hold";
  std::string keeper = KeyValue(out, "keeper");
  auto actor_id = FromHex(keeper);
  ASSERT_TRUE(actor_id.has_value()) << keeper;

  std::vector<std::string> sockets;
  for (const auto& e : std::filesystem::directory_iterator(session_ + "/sockets")) {
    std::string name = e.path().filename().string();
    if (name.rfind("w-", 0) == 0 && e.is_socket()) sockets.push_back(e.path().string());
  }
  ASSERT_FALSE(sockets.empty()) << "no worker sockets in " << session_ << "/sockets";

  JobId job = JobId::FromHex(keeper.substr(0, 2 * JobId::kSize));
  protocol::ExecuteTask call;
  call.spec.task_id = NewTaskId(job);
  call.spec.job_id = job;
  call.spec.kind = ray::internal::kActorTask;
  call.spec.plugin = "00";
  call.spec.function = "Keeper::Bump";
  call.spec.actor_id = *actor_id;
  std::vector<std::pair<std::string, std::string>> malformed{
      {"random bytes", "\x01\x02\x03 not an envelope"},
      {"a TaskDone", protocol::Encode(MessageType::kTaskDone, 0, protocol::TaskDone{})},
      {"an ExecuteTask with a junk body", protocol::Encode(MessageType::kExecuteTask, 0, "\xc1"s)},
  };
  protocol::ExecuteTask bad = call;
  bad.spec.task_id = TaskId();
  malformed.emplace_back("a nil task id", protocol::Encode(MessageType::kExecuteTask, 0, bad));
  bad = call;
  bad.spec.kind = ray::internal::kActorCreation;
  malformed.emplace_back("an actor creation", protocol::Encode(MessageType::kExecuteTask, 0, bad));
  bad = call;
  bad.spec.args.push_back(ray::internal::TaskArg{true, std::string(ObjectId::kSize, 'o')});
  malformed.emplace_back("a ref argument left unresolved",
                         protocol::Encode(MessageType::kExecuteTask, 0, bad));

  protocol::ExecuteTask task = call;
  task.spec.task_id = NewTaskId(job);
  task.spec.kind = ray::internal::kNormalTask;
  task.spec.function = "Square";
  task.spec.actor_id.clear();

  std::string live = LiveWorkers();
  int answered = 0, bumped = 0, bounced = 0;
  for (const std::string& path : sockets) {
    std::string name = std::filesystem::path(path).filename().string();
    bool alive = live.find(name.substr(2, 16)) != std::string::npos;
    zmq::socket_t s(ctx_, zmq::socket_type::dealer);
    s.set(zmq::sockopt::linger, 0);
    s.connect("ipc://" + path);
    for (const auto& [what, frame] : malformed) s.send(zmq::buffer(frame), zmq::send_flags::none);
    s.send(zmq::buffer(protocol::Encode(MessageType::kExecuteTask, 0, call)), zmq::send_flags::none);
    s.send(zmq::buffer(protocol::Encode(MessageType::kExecuteTask, 0, task)), zmq::send_flags::none);
    // The call's answer, and the task bounced (not run: no lease). An idle live worker
    // answers both within 5 s on a loaded machine too (2 s proved short there); the
    // socket of a worker that died (the killed actor's) answers nothing, and the
    // worker running the job's waiting task answers only after it.
    for (int n = 0; n < 2; ++n) {
      auto frame = Recv(s, alive ? 5000 : 2000);
      if (!frame) break;
      auto env = protocol::DecodeEnvelope(*frame);
      ASSERT_TRUE(env.ok()) << path;
      if (env->type == MessageType::kTaskBounced) {
        EXPECT_EQ(std::string(env->body), task.spec.task_id.Binary());
        ++bounced;
        continue;
      }
      ASSERT_EQ(env->type, MessageType::kTaskDone) << path;
      auto done = protocol::DecodeBody<protocol::TaskDone>(env->body, "TaskDone");
      ASSERT_TRUE(done.ok() && done->task_id == call.spec.task_id && done->returns.size() == 1);
      ++answered;
      // The worker hosting keeper runs the call; others refuse it with an error.
      bumped += done->returns[0].state == static_cast<uint8_t>(protocol::ObjectState::kInline);
    }
  }
  EXPECT_GE(answered, 1);
  EXPECT_EQ(bumped, 1) << "the keeper's worker did not answer a direct call";
  EXPECT_EQ(bounced, answered) << "a worker ran (or dropped) a task it was not leased for";
  int warned = 0;
  for (const auto& e : std::filesystem::directory_iterator(session_ + "/logs")) {
    if (e.path().filename().string().rfind("worker-", 0) != 0) continue;
    warned += CountLines(ReadText(e.path().string()), "dropped a direct call");
  }
  EXPECT_GE(warned, static_cast<int>(malformed.size())) << "warnings in the workers' logs";

  std::ofstream(sync + "/release").put('x');
  int status = -1;
  for (int i = 0; i < 200 && ::waitpid(pid, &status, WNOHANG) != pid; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "the job failed after the calls";
}

// Workers are forked by the raylet's zygote as children of the raylet, and read as
// workers in `ps`. If the zygote is killed, the raylet says so once and starts
// workers with fork and exec instead: jobs still run.
TEST_F(RayletRobustnessTest, WorkersOutliveAKilledZygote) {
  auto parent_of = [](int pid) {
    std::string stat = ReadText("/proc/" + std::to_string(pid) + "/stat");
    std::istringstream rest(stat.substr(stat.rfind(')') + 2));
    std::string state;
    int ppid = -1;
    rest >> state >> ppid;
    return ppid;
  };
  std::vector<int> raylet, zygote, workers;
  AwaitPrestartedWorkers(raylet, zygote, workers);
  ASSERT_EQ(raylet.size(), 1u);
  ASSERT_EQ(zygote.size(), 1u) << "no zygote, or it never finished forking";
  ASSERT_FALSE(workers.empty()) << "no prestarted worker";
  for (int w : workers) {
    EXPECT_EQ(parent_of(w), raylet[0]) << "worker " << w << " is not the raylet's child";
    EXPECT_TRUE(Renamed(w)) << "worker " << w << " kept the placeholder id";
  }

  ASSERT_EQ(::kill(zygote[0], SIGKILL), 0);
  KillWorkersAndRunAJob();
  EXPECT_EQ(CountLines(ReadText(log_), "starting workers with fork and exec from now on"), 1)
      << ReadText(log_);
}

// The raylet does not wait for the zygote's answers. If the zygote stops answering,
// the raylet gives up on it after 5 s: the workers it was asked for are started with
// fork and exec, and it is killed (it would fork them again once it went on).
TEST_F(RayletRobustnessTest, AStuckZygoteIsReplaced) {
  std::vector<int> raylet, zygote, workers;
  AwaitPrestartedWorkers(raylet, zygote, workers);
  ASSERT_EQ(zygote.size(), 1u) << "no zygote, or it never finished forking";
  ASSERT_EQ(::kill(zygote[0], SIGSTOP), 0);
  KillWorkersAndRunAJob();
  EXPECT_EQ(CountLines(ReadText(log_), "the zygote did not answer in time; starting workers with "
                                       "fork and exec from now on"),
            1)
      << ReadText(log_);
  // The raylet kills the stuck zygote when it gives up on it; the kill lands (and the
  // process goes) a moment later on a loaded machine.
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (!PidsOf("_zygote").empty() && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  EXPECT_EQ(PidsOf("_zygote"), std::vector<int>{}) << "the stuck zygote was not killed";
}

}  // namespace
}  // namespace ray::testing
