// The dashboard's HTTP server against a real cluster: `ray start --head` with a job
// (tests/integration/state_plugin.cc) and a small Tune run done, then the token
// checks, every JSON endpoint, ray::GetWebuiUrl and malformed requests.

#include <httplib.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <functional>
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
    auto tune = RunRay({"tune", "run", kTrainables, "--address", address_, "--token", token_,
                        "--local-dir", results_, "--run", "quadratic", "--name", "dash",
                        "--config", R"({"x": {"grid_search": [1, 3]}})", "--stop",
                        R"({"training_iteration": 3})", "--metric", "loss", "--mode", "min"},
                       dir_->path(), 90);
    ASSERT_EQ(tune.exit_code, 0) << tune.all();
  }
  static void TearDownTestSuite() {
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
  static std::string temp_, results_, address_, token_;
  static int port_;
};

TempDir* DashboardServerTest::dir_ = nullptr;
std::string DashboardServerTest::temp_, DashboardServerTest::results_,
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
    return nodes.is_object() && nodes["history"].size() >= 2;
  })) << nodes.dump();
  ASSERT_EQ(nodes["nodes"].size(), 1u);
  const json& n = nodes["nodes"][0];
  EXPECT_EQ(n["state"], "ALIVE");
  EXPECT_EQ(n["resources_total"]["CPU"], 2.0);
  EXPECT_TRUE(n["utilisation"]["CPU"].is_number());
  EXPECT_EQ(nodes["history"].back()["total"]["CPU"], 2.0);
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

TEST_F(DashboardServerTest, LogsAreListedFetchedAndSearched) {
  json logs = Api("logs");
  ASSERT_TRUE(logs.is_object());
  std::vector<std::string> workers;
  bool raylet = false;
  for (const auto& l : logs["logs"]) {
    std::string name = l["name"];
    raylet |= name == "raylet.err";
    if (name.rfind("worker-", 0) == 0 && name.size() > 4 &&
        name.compare(name.size() - 4, 4, ".out") == 0) {
      workers.push_back(name);
    }
  }
  EXPECT_TRUE(raylet) << logs.dump();
  ASSERT_FALSE(workers.empty()) << logs.dump();
  // The worker that ran Echo printed the marker; a search finds it in one log.
  int found = 0;
  for (const auto& name : workers) {
    json all = Api("logs?name=" + name);
    ASSERT_TRUE(all.is_object()) << name;
    json hits = Api("logs?name=" + name + "&search=DASHBOARD-MARKER&lines=5");
    ASSERT_TRUE(hits.is_object()) << name;
    for (const auto& l : hits["lines"]) {
      EXPECT_EQ(l["text"], "dashboard-marker hello-logs");
      ++found;
    }
  }
  EXPECT_EQ(found, 1);
  json none = Api("logs?name=" + workers[0] + "&search=no-such-text-anywhere-42");
  ASSERT_TRUE(none.is_object());
  EXPECT_TRUE(none["lines"].empty());
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
        "logs?search=x", "tune?experiment=..&trial=x", "tune?experiment=dash", "objects?limit="}) {
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
