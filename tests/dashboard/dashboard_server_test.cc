// The dashboard's HTTP server against a real cluster: `ray start --head` with a job
// (tests/integration/state_plugin.cc) and a small Tune run done, then the token
// checks, every JSON endpoint, ray::GetWebuiUrl and malformed requests.

#include <httplib.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <functional>
#include <map>
#include <regex>
#include <thread>

#include <nlohmann/json.hpp>

#include "tests/integration/ray_harness.h"

namespace ray::testing {
namespace {

using nlohmann::json;

const std::string kTrainables = std::string(RAY_EXAMPLES_DIR) + "/tune_trainables.so";

bool Eventually(const std::function<bool()>& check, int seconds = 20) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
  while (std::chrono::steady_clock::now() < deadline) {
    if (check()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return check();
}

// One cluster for the suite: starting it and running the jobs is the slow part.
class DashboardServerTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new TempDir();
    temp_ = dir_->path() + "/cluster";
    results_ = dir_->path() + "/results";
    ::setenv("TUNE_RESULT_DIR", results_.c_str(), 1);  // the dashboard's results dir
    auto head = RunRay({"start", "--head", "--port", "0", "--dashboard-port", "0", "--num-cpus",
                        "2", "--temp-dir", temp_},
                       dir_->path());
    ASSERT_EQ(head.exit_code, 0) << head.all();
    std::smatch m;
    ASSERT_TRUE(std::regex_search(head.out, m,
                                  std::regex(R"(http://127\.0\.0\.1:(\d+)/\?token=([0-9a-f]+))")))
        << head.out;
    port_ = std::stoi(m[1]);
    token_ = m[2];
    auto status = RunRay({"status", "--json", "--temp-dir", temp_}, dir_->path());
    ASSERT_EQ(status.exit_code, 0) << status.all();
    address_ = json::parse(status.out)["address"];
    auto job = RunRay({"submit", "--address", address_, "--temp-dir", temp_, IT_STATE_PLUGIN,
                       "state"},
                      dir_->path());
    ASSERT_EQ(job.exit_code, 0) << job.all();
    auto echo = RunRay({"submit", "--address", address_, "--temp-dir", temp_, WEBUI_PLUGIN,
                        "hello-logs"},
                       dir_->path());
    ASSERT_EQ(echo.exit_code, 0) << echo.all();
    // A second node (a session of its own on this machine) whose worker prints too.
    temp2_ = dir_->path() + "/node2";
    auto join = RunRay({"start", "--address", address_, "--token", token_, "--num-cpus", "1",
                        "--resources", R"({"side": 1})", "--temp-dir", temp2_},
                       dir_->path());
    ASSERT_EQ(join.exit_code, 0) << join.all();
    auto side = RunRay({"submit", "--address", address_, "--temp-dir", temp_, WEBUI_PLUGIN,
                        "on-the-side", "side"},
                       dir_->path());
    ASSERT_EQ(side.exit_code, 0) << side.all();
    auto tune = RunRay({"tune", "run", kTrainables, "--address", address_, "--token", token_,
                        "--local-dir", results_, "--run", "quadratic", "--name", "dash",
                        "--config", R"({"x": {"grid_search": [1, 3]}})", "--stop",
                        R"({"training_iteration": 3})", "--metric", "loss", "--mode", "min"},
                       dir_->path(), 90);
    ASSERT_EQ(tune.exit_code, 0) << tune.all();
  }
  static void TearDownTestSuite() {
    RunRay({"stop", "--temp-dir", temp2_}, dir_->path());
    RunRay({"stop", "--temp-dir", temp_}, dir_->path());
    EXPECT_TRUE(AwaitNoProcessesMentioning(dir_->path()).empty());
    delete dir_;
  }

  static httplib::Client Client() {
    httplib::Client c("127.0.0.1", port_);
    c.set_connection_timeout(5);
    c.set_read_timeout(30);
    return c;
  }
  static httplib::Headers Bearer() { return {{"Authorization", "Bearer " + token_}}; }
  // GET /api/<path> with the token; the parsed body (null unless 200).
  static json Api(const std::string& path, int* status = nullptr) {
    auto res = Client().Get("/api/" + path, Bearer());
    if (status) *status = res ? res->status : -1;
    if (!res || res->status != 200) return nullptr;
    return json::parse(res->body, nullptr, false);
  }

  static TempDir* dir_;
  static std::string temp_, temp2_, results_, address_, token_;
  static int port_;
};

TempDir* DashboardServerTest::dir_ = nullptr;
std::string DashboardServerTest::temp_, DashboardServerTest::temp2_, DashboardServerTest::results_,
    DashboardServerTest::address_, DashboardServerTest::token_;
int DashboardServerTest::port_ = 0;

TEST_F(DashboardServerTest, RefusesRequestsWithoutTheToken) {
  auto c = Client();
  auto page = c.Get("/");
  ASSERT_TRUE(page);
  EXPECT_EQ(page->status, 401);
  EXPECT_NE(page->body.find("<form"), std::string::npos) << page->body;
  EXPECT_EQ(page->body.find(token_), std::string::npos);
  for (const std::string& path : {"/api/nodes", "/api/logs", "/api/tune", "/tasks.html",
                                 "/dashboard.js"}) {
    auto res = c.Get(path);
    ASSERT_TRUE(res) << path;
    EXPECT_EQ(res->status, 401) << path;
  }
  auto wrong = c.Get("/api/nodes", {{"Authorization", "Bearer " + token_ + "x"}});
  ASSERT_TRUE(wrong);
  EXPECT_EQ(wrong->status, 401);
  auto wrong_url = c.Get("/?token=" + token_.substr(1));
  ASSERT_TRUE(wrong_url);
  EXPECT_EQ(wrong_url->status, 401);
  EXPECT_NE(wrong_url->body.find("not the cluster token"), std::string::npos);
  // The raw token is no cookie.
  auto raw_cookie = c.Get("/api/nodes", {{"Cookie", "ray_dashboard=" + token_}});
  ASSERT_TRUE(raw_cookie);
  EXPECT_EQ(raw_cookie->status, 401);
  auto login = c.Post("/login", "token=nope", "application/x-www-form-urlencoded");
  ASSERT_TRUE(login);
  EXPECT_EQ(login->status, 401);
}

TEST_F(DashboardServerTest, TheTokenInTheUrlSetsACookieAndRedirectsWithoutIt) {
  auto c = Client();
  auto res = c.Get("/tasks.html?token=" + token_ + "&id=ab");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 303);
  EXPECT_EQ(res->get_header_value("Location"), "/tasks.html?id=ab");
  std::string cookie = res->get_header_value("Set-Cookie");
  EXPECT_NE(cookie.find("HttpOnly"), std::string::npos) << cookie;
  EXPECT_NE(cookie.find("SameSite=Strict"), std::string::npos) << cookie;
  EXPECT_EQ(cookie.find(token_), std::string::npos) << "the cookie must not carry the token";
  std::string value = cookie.substr(0, cookie.find(';'));
  auto page = c.Get("/tasks.html", {{"Cookie", value}});
  ASSERT_TRUE(page);
  EXPECT_EQ(page->status, 200);
  EXPECT_NE(page->body.find("tasks.js"), std::string::npos);
  auto api = c.Get("/api/jobs", {{"Cookie", "other=1; " + value}});
  ASSERT_TRUE(api);
  EXPECT_EQ(api->status, 200);
  // The login form sets the same cookie.
  auto login = c.Post("/login", "token=" + token_, "application/x-www-form-urlencoded");
  ASSERT_TRUE(login);
  EXPECT_EQ(login->status, 303);
  EXPECT_EQ(login->get_header_value("Set-Cookie").substr(0, value.size()), value);
  // Pages and the vendored chart library come from the head.
  for (const std::string& path : {"/", "/index.html", "/tune.html", "/vendor/uPlot.iife.min.js"}) {
    auto r = c.Get(path, Bearer());
    ASSERT_TRUE(r) << path;
    EXPECT_EQ(r->status, 200) << path;
  }
}

TEST_F(DashboardServerTest, NodesHaveResourcesUtilisationAndHistory) {
  json nodes;
  ASSERT_TRUE(Eventually([&] {
    nodes = Api("nodes");
    // Two samples, the latest taken once both nodes had joined (under load the
    // second node can join after the first samples).
    return nodes.is_object() && nodes["history"].size() >= 2 &&
           nodes["history"].back()["nodes"].size() == 2u;
  })) << nodes.dump();
  ASSERT_EQ(nodes["nodes"].size(), 2u);
  double cpus = 0;
  for (const auto& n : nodes["nodes"]) {
    EXPECT_EQ(n["state"], "ALIVE");
    EXPECT_TRUE(n["utilisation"]["CPU"].is_number());
    cpus += n["resources_total"]["CPU"].get<double>();
  }
  EXPECT_EQ(cpus, 3.0);
  EXPECT_EQ(nodes["history"].back()["total"]["CPU"], 3.0);
  EXPECT_EQ(nodes["history"].back()["nodes"].size(), 2u) << nodes["history"].back().dump();
  EXPECT_GT(nodes["history"].back()["time_ms"].get<int64_t>(), 0);
}

TEST_F(DashboardServerTest, JobsActorsObjectsAndPlacementGroupsAreListed) {
  json jobs = Api("jobs");
  ASSERT_TRUE(jobs.is_object());
  ASSERT_GE(jobs["jobs"].size(), 2u) << jobs.dump();  // the state job and the Tune driver
  for (const auto& j : jobs["jobs"]) {
    EXPECT_EQ(j["status"], "SUCCEEDED") << j.dump();
    EXPECT_GT(j["end_ms"].get<int64_t>(), 0);
  }
  json actors = Api("actors");
  ASSERT_TRUE(actors.is_object());
  bool keeper = false;
  for (const auto& a : actors["actors"]) keeper |= a["name"] == "keeper";
  EXPECT_TRUE(keeper) << actors.dump();
  json objects = Api("objects");
  ASSERT_TRUE(objects.is_object());
  EXPECT_TRUE(objects["objects"].is_array());
  json groups = Api("placement_groups");
  ASSERT_TRUE(groups.is_object());
  EXPECT_TRUE(groups["placement_groups"].is_array());
}

// An actor killed once (it may restart once) shows one restart.
TEST_F(DashboardServerTest, ActorsShowTheirRestarts) {
  auto r = RunRay({"submit", "--address", address_, "--temp-dir", temp_, WEBUI_PLUGIN, "restart"},
                  dir_->path());
  ASSERT_EQ(r.exit_code, 0) << r.all();
  EXPECT_EQ(KeyValue(r.out, "restarted"), "1") << r.out;
  json actors;
  EXPECT_TRUE(Eventually([&] {
    actors = Api("actors");
    if (!actors.is_object()) return false;
    for (const auto& a : actors["actors"]) {
      if (a["name"] == "phoenix") return a["restarts"] == 1;
    }
    return false;
  }, 10)) << actors.dump();
  for (const auto& a : actors["actors"]) {
    if (a["name"] == "keeper") EXPECT_EQ(a["restarts"], 0) << a.dump();
  }
}

TEST_F(DashboardServerTest, TasksHaveCountsAHistogramAndALookupById) {
  json tasks = Api("tasks");
  ASSERT_TRUE(tasks.is_object());
  EXPECT_GE(tasks["counts"]["FINISHED"].get<int>(), 5) << tasks["counts"].dump();
  EXPECT_EQ(tasks["counts"]["FAILED"], 1) << tasks["counts"].dump();  // Boom
  EXPECT_FALSE(tasks["histogram"].empty());
  int binned = 0;
  for (const auto& b : tasks["histogram"]) binned += b["count"].get<int>();
  EXPECT_EQ(binned, static_cast<int>(tasks["durations_ms"].size()));
  std::string id;
  for (const auto& t : tasks["tasks"]) {
    if (t["name"] == "Boom") id = t["task_id"];
  }
  ASSERT_FALSE(id.empty()) << tasks["tasks"].dump();
  json found = Api("tasks?id=" + id.substr(0, 20));
  ASSERT_TRUE(found.is_object());
  ASSERT_EQ(found["matches"].size(), 1u);
  EXPECT_EQ(found["matches"][0]["task_id"], id);
  EXPECT_EQ(found["matches"][0]["state"], "FAILED");
  EXPECT_TRUE(Api("tasks?id=ffffffffffffffffffffffff")["matches"].empty());
}

TEST_F(DashboardServerTest, TimelineIsTheChromeTraceOfTheTasks) {
  json trace = Api("timeline");
  ASSERT_TRUE(trace.is_object());
  int boxes = 0;
  for (const auto& e : trace["traceEvents"]) boxes += e["ph"] == "X";
  EXPECT_GE(boxes, 7) << trace.dump();
}

// The head's logs and the second node's (asked of its raylet), listed, read and
// searched, each confined to its node's logs dir.
TEST_F(DashboardServerTest, EveryNodesLogsAreListedReadAndSearched) {
  json logs = Api("logs");
  ASSERT_TRUE(logs.is_object());
  EXPECT_TRUE(logs["errors"].empty()) << logs.dump();
  std::string head, side;
  std::map<std::string, std::vector<std::string>> workers;  // node id -> worker-*.out
  for (const auto& l : logs["logs"]) {
    std::string name = l["name"], node = l["node_id"];
    EXPECT_EQ(l["node_address"], "127.0.0.1");
    if (name == "gcs.err") head = node;
    if (name.rfind("worker-", 0) == 0 && name.compare(name.size() - 4, 4, ".out") == 0) {
      workers[node].push_back(name);
    }
  }
  for (const auto& [node, names] : workers) {
    if (node != head) side = node;
  }
  ASSERT_FALSE(head.empty()) << logs.dump();
  ASSERT_FALSE(side.empty()) << "no worker log of the second node: " << logs.dump();
  ASSERT_NE(head, side);
  // One search of every log of every node finds each node's marker line.
  json found = Api("logs?search=DASHBOARD-MARKER&lines=5");
  ASSERT_TRUE(found.is_object());
  std::map<std::string, std::string> marker_log;  // node -> log name
  for (const auto& m : found["matches"]) {
    for (const auto& l : m["lines"]) {
      std::string text = l["text"];
      if (text == "dashboard-marker hello-logs") marker_log[m["node_id"]] = m["name"];
      if (text == "dashboard-marker on-the-side") marker_log[m["node_id"]] = m["name"];
    }
  }
  ASSERT_EQ(marker_log.size(), 2u) << found.dump();
  ASSERT_TRUE(marker_log.count(side)) << found.dump();
  // Reading the second node's log through its raylet; the head's by default.
  json side_log = Api("logs?node=" + side + "&name=" + marker_log[side] + "&search=marker");
  ASSERT_TRUE(side_log.is_object());
  ASSERT_EQ(side_log["lines"].size(), 1u) << side_log.dump();
  EXPECT_EQ(side_log["lines"][0]["text"], "dashboard-marker on-the-side");
  EXPECT_EQ(side_log["node_id"], side);
  json head_log = Api("logs?name=" + marker_log[head] + "&search=marker");
  ASSERT_TRUE(head_log.is_object());
  ASSERT_EQ(head_log["lines"].size(), 1u) << head_log.dump();
  EXPECT_EQ(head_log["lines"][0]["text"], "dashboard-marker hello-logs");
  json none = Api("logs?node=" + side + "&name=" + marker_log[side] + "&search=no-such-text-42");
  ASSERT_TRUE(none.is_object());
  EXPECT_TRUE(none["lines"].empty());
  // Nothing outside a node's logs dir: not by a path, nor through a link placed there.
  std::string side_logs = temp2_ + "/session_latest/logs";
  ASSERT_EQ(::symlink("../token", (side_logs + "/leak.out").c_str()), 0);
  int status = 0;
  for (const std::string& bad : {"../token", "..%2Ftoken", "%2Fetc%2Fpasswd", ".hidden"}) {
    Api("logs?node=" + side + "&name=" + bad, &status);
    EXPECT_EQ(status, 400) << bad;
  }
  Api("logs?node=" + side + "&name=leak.out", &status);
  EXPECT_EQ(status, 404) << "a link out of the logs dir was followed";
  Api("logs?node=" + side + "&name=absent.log", &status);
  EXPECT_EQ(status, 404);
  Api("logs?node=" + std::string(56, 'a'), &status);
  EXPECT_EQ(status, 404);
  json again = Api("logs");
  for (const auto& l : again["logs"]) EXPECT_NE(l["name"], "leak.out") << "links are not listed";
}

// The dashboard runs under a supervisor: killed, it serves again on the same port,
// and `ray status` shows its URL.
TEST_F(DashboardServerTest, TheDashboardIsStartedAgainWhenItDies) {
  std::string pid_file = temp_ + "/session_latest/dashboard.pid";
  int pid = std::stoi(ReadText(pid_file));
  ASSERT_GT(pid, 0);
  ASSERT_EQ(::kill(pid, SIGKILL), 0);
  int status = 0;
  EXPECT_TRUE(Eventually([&] {
    Api("nodes", &status);
    return status == 200 && std::stoi("0" + ReadText(pid_file)) != pid;
  }, 10)) << "the dashboard did not come back; status " << status;
  auto text = RunRay({"status", "--temp-dir", temp_}, dir_->path());
  EXPECT_NE(text.out.find("Dashboard: http://127.0.0.1:" + std::to_string(port_) + "\n"),
            std::string::npos)
      << text.out;
  auto j = RunRay({"status", "--json", "--temp-dir", temp_}, dir_->path());
  EXPECT_EQ(json::parse(j.out)["dashboard_url"], "http://127.0.0.1:" + std::to_string(port_));
}

TEST_F(DashboardServerTest, TuneShowsTrialsAndTheirResultRows) {
  json tune = Api("tune");
  ASSERT_TRUE(tune.is_object());
  EXPECT_EQ(tune["results_dir"], results_);
  ASSERT_EQ(tune["experiments"].size(), 1u) << tune.dump();
  const json& exp = tune["experiments"][0];
  EXPECT_EQ(exp["name"], "dash");
  ASSERT_EQ(exp["trials"].size(), 2u);
  for (const auto& t : exp["trials"]) {
    EXPECT_EQ(t["status"], "TERMINATED");
    EXPECT_EQ(t["last_result"]["training_iteration"], 3);
    EXPECT_TRUE(t["config"].contains("x"));
    // The way to TensorBoard: the trial's dir, which holds its event files.
    EXPECT_EQ(t["logdir"].get<std::string>().rfind(results_ + "/dash/", 0), 0u) << t.dump();
    EXPECT_EQ(t["tensorboard"], true) << t.dump();
  }
  std::string trial = exp["trials"][0]["trial_id"];
  json rows = Api("tune?experiment=dash&trial=" + trial);
  ASSERT_TRUE(rows.is_object());
  ASSERT_EQ(rows["rows"].size(), 3u);
  EXPECT_EQ(rows["rows"][2]["training_iteration"], 3);
  EXPECT_TRUE(rows["rows"][0]["loss"].is_number());
  EXPECT_FALSE(rows["rows"][0].contains("config/x"));
}

TEST_F(DashboardServerTest, GetWebuiUrlAnswersTheDashboardsUrl) {
  auto r = RunRay({"submit", "--address", address_, "--temp-dir", temp_, WEBUI_PLUGIN},
                  dir_->path());
  ASSERT_EQ(r.exit_code, 0) << r.all();
  EXPECT_EQ(KeyValue(r.out, "webui_url"), "http://127.0.0.1:" + std::to_string(port_)) << r.out;
}

TEST_F(DashboardServerTest, BadRequestsGetErrorsAndTheServerStaysUp) {
  int status = 0;
  for (const std::string& bad :
       {"tasks?limit=abc", "tasks?limit=-1", "tasks?limit=99999999999999999999", "tasks?id=XYZ",
        "tasks?bogus=1", "tasks?limit=1&limit=2", "logs?name=../token", "logs?name=%2e%2e%2ftoken",
        "logs?lines=3", "logs?node=XYZ", "tune?experiment=..&trial=x", "tune?experiment=dash", "objects?limit="}) {
    Api(bad, &status);
    EXPECT_EQ(status, 400) << bad;
  }
  for (const std::string& missing : {"nope", "logs?name=absent.log", "tune?experiment=none&trial=x",
                                    "tune?experiment=dash&trial=zzzz"}) {
    Api(missing, &status);
    EXPECT_EQ(status, 404) << missing;
  }
  // Raw garbage, a request line without a version, an enormous header, a truncated
  // request and a body too large: answered or dropped, never a crash.
  for (const std::string& raw :
       {std::string("\x00\x01\x02garbage\r\n\r\n", 15), std::string("GET /api/nodes\r\n\r\n"),
        "GET /api/nodes HTTP/1.1\r\nHost: x\r\nX-Big: " + std::string(200000, 'a') + "\r\n\r\n",
        std::string("GET /api/no"),
        std::string("POST /login HTTP/1.1\r\nContent-Length: 99999999\r\n\r\ntoken="),
        std::string("GET /%zz%/api HTTP/1.1\r\nHost: x\r\n\r\n")}) {
    int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    ASSERT_GE(fd, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(static_cast<uint16_t>(port_));
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ASSERT_EQ(::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
    (void)!::write(fd, raw.data(), raw.size());
    ::shutdown(fd, SHUT_WR);
    char buf[4096];
    timeval tv{5, 0};
    ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
    while (::read(fd, buf, sizeof(buf)) > 0) {
    }
    ::close(fd);
  }
  auto post = Client().Post("/api/nodes", Bearer(), "x", "text/plain");
  ASSERT_TRUE(post);
  EXPECT_NE(post->status, 200);
  json nodes = Api("nodes", &status);
  EXPECT_EQ(status, 200) << "the dashboard stopped answering";
}

// --include-webui false: no dashboard, GetWebuiUrl answers ""; bad values refused.
TEST(DashboardFlagsTest, TheDashboardCanBeTurnedOffAndBadFlagsAreRefused) {
  TempDir dir;
  std::string temp = dir.path() + "/cluster";
  auto bad = RunRay({"start", "--head", "--include-webui", "yes", "--temp-dir", temp}, dir.path());
  EXPECT_NE(bad.exit_code, 0);
  EXPECT_NE(bad.all().find("--include-webui takes true or false"), std::string::npos) << bad.all();
  auto join = RunRay({"start", "--address", "127.0.0.1:1", "--token", "x", "--dashboard-port",
                      "9000", "--temp-dir", temp},
                     dir.path());
  EXPECT_NE(join.exit_code, 0);
  EXPECT_NE(join.all().find("are for the head"), std::string::npos) << join.all();
  auto head = RunRay({"start", "--head", "--port", "0", "--include-webui", "false", "--temp-dir",
                      temp},
                     dir.path());
  ASSERT_EQ(head.exit_code, 0) << head.all();
  EXPECT_EQ(head.out.find("Dashboard"), std::string::npos) << head.out;
  auto status = RunRay({"status", "--json", "--temp-dir", temp}, dir.path());
  ASSERT_EQ(status.exit_code, 0) << status.all();
  std::string address = json::parse(status.out)["address"];
  auto r = RunRay({"submit", "--address", address, "--temp-dir", temp, WEBUI_PLUGIN}, dir.path());
  EXPECT_EQ(r.exit_code, 0) << r.all();
  EXPECT_NE(r.out.find("webui_url=\n"), std::string::npos) << r.out;
  RunRay({"stop", "--temp-dir", temp}, dir.path());
  EXPECT_TRUE(AwaitNoProcessesMentioning(dir.path()).empty());
}

}  // namespace
}  // namespace ray::testing
