#include "runtime/dashboard/dashboard.h"

#include <httplib.h>

#include <chrono>
#include <filesystem>
#include <regex>
#include <thread>

#include "runtime/base/clock.h"
#include "runtime/base/fs.h"
#include "runtime/base/logging.h"
#include "runtime/dashboard/api.h"
#include "runtime/dashboard/auth.h"
#include "runtime/dashboard/login_page.h"
#include "runtime/dashboard/page_shell.h"
#include "runtime/gcs/gcs_client.h"
#include "runtime/gcs/state_json.h"
#include "runtime/tune/result_logger.h"

namespace ray::dashboard {

namespace fs = std::filesystem;

std::string DashboardUrl(const std::string& host, int port) {
  bool v6 = host.find(':') != std::string::npos;
  return "http://" + (v6 ? "[" + host + "]" : host) + ":" + std::to_string(port);
}

std::optional<int> PortOfUrl(const std::string& url) {
  size_t colon = url.rfind(':');
  if (colon == std::string::npos || colon + 1 >= url.size() || colon + 6 < url.size()) {
    return std::nullopt;
  }
  int port = 0;
  for (size_t i = colon + 1; i < url.size(); ++i) {
    if (url[i] < '0' || url[i] > '9') return std::nullopt;
    port = port * 10 + (url[i] - '0');
  }
  if (port < 1 || port > 65535) return std::nullopt;
  return port;
}

namespace {

// Percent-encodes a query component.
std::string Encode(const std::string& s) {
  static const char* kHex = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : s) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  return out;
}

// The request's URL without its token parameter.
std::string WithoutToken(const httplib::Request& req) {
  std::string query;
  for (const auto& [k, v] : req.params) {
    if (k == "token") continue;
    query += (query.empty() ? "?" : "&") + Encode(k) + "=" + Encode(v);
  }
  return req.path + query;
}

std::string ContentType(const std::string& name) {
  auto ends = [&](const char* ext) {
    std::string e(ext);
    return name.size() >= e.size() && name.compare(name.size() - e.size(), e.size(), e) == 0;
  };
  if (ends(".html")) return "text/html; charset=utf-8";
  if (ends(".js")) return "text/javascript; charset=utf-8";
  if (ends(".css")) return "text/css; charset=utf-8";
  return "application/octet-stream";
}

class Server {
 public:
  explicit Server(const DashboardOptions& o) : options_(o), node_logs_(o.token) {
    assets_ = o.assets_dir.empty()
                  ? (fs::path(SelfExecutable()).parent_path() / ".." / "share" / "ray" / "dashboard")
                        .lexically_normal()
                        .string()
                  : o.assets_dir;
    api_.gcs_address = o.gcs_address;
    api_.token = o.token;
    api_.session_dir = o.session_dir;
    api_.node_logs = &node_logs_;
    api_.results_dir = o.results_dir.empty() ? tune::DefaultLocalDir() : o.results_dir;
    api_.history = &history_;
  }

  Status Run(const std::atomic<bool>& stop) {
    Routes();
    http_.set_read_timeout(5, 0);
    http_.set_write_timeout(5, 0);
    http_.set_payload_max_length(64 * 1024);
    int port = options_.port;
    if (port == 0) {
      port = http_.bind_to_any_port(options_.host);
      if (port <= 0) return Status::Unavailable("cannot bind " + options_.host + " (any port)");
    } else if (!http_.bind_to_port(options_.host, port)) {
      return Status::Unavailable("cannot bind " + DashboardUrl(options_.host, port) +
                                 " (in use? pick another with --dashboard-port)");
    }
    std::string host = options_.advertise_host.empty() ? options_.host : options_.advertise_host;
    url_ = DashboardUrl(host, port);
    std::thread listener([this] { http_.listen_after_bind(); });
    RAY_LOG_INFO("dashboard serving on {} (assets {}, Tune results {})", url_, assets_,
                 api_.results_dir);
    Status st = options_.ready_file.empty() ? Status::Ok() : WriteFile(options_.ready_file, url_);
    int64_t next_sample = 0, next_report = 0;
    while (st.ok() && !stop) {
      int64_t now = MonoMillis();
      if (now >= next_sample) {
        next_sample = now + 1000;
        Sample();
      }
      if (now >= next_report) {
        next_report = now + 5000;
        gcs::GcsClient gcs(options_.gcs_address, options_.token, 2000);
        (void)gcs.Call("set_webui_url", url_);  // again after a GCS restart
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    http_.stop();
    listener.join();
    return st;
  }

 private:
  void Sample() {
    gcs::GcsClient gcs(options_.gcs_address, options_.token, 2000);
    if (auto rows = gcs::NodeRowsJson(gcs); rows.ok()) history_.Add(NowMillis(), *rows);
  }

  static Credentials CredentialsOf(const httplib::Request& req) {
    Credentials c;
    c.authorization = req.get_header_value("Authorization");
    c.cookie = req.get_header_value("Cookie");
    if (req.has_param("token")) c.url_token = req.get_param_value("token");
    return c;
  }

  static void Refuse(const httplib::Request& req, httplib::Response& res, bool wrong) {
    res.status = 401;
    if (req.path.rfind("/api/", 0) == 0) {
      res.set_content(R"json({"error": "the cluster token is needed (Authorization: Bearer, )json"
                      R"json(?token= or the login cookie)"})json",
                      "application/json");
    } else {
      res.set_content(LoginPage(wrong), "text/html; charset=utf-8");
    }
  }

  void Routes() {
    http_.set_pre_routing_handler([this](const httplib::Request& req, httplib::Response& res) {
      res.set_header("X-Content-Type-Options", "nosniff");
      res.set_header("Referrer-Policy", "no-referrer");
      res.set_header("X-Frame-Options", "DENY");
      res.set_header("Cache-Control", "no-store");
      if (req.path == "/login") return httplib::Server::HandlerResponse::Unhandled;
      Credentials c = CredentialsOf(req);
      AuthResult auth = Authenticate(c, options_.token);
      if (auth == AuthResult::kRefused) {
        Refuse(req, res, c.url_token.has_value());
        return httplib::Server::HandlerResponse::Handled;
      }
      if (auth == AuthResult::kByUrlToken) {
        res.set_header("Set-Cookie", SetCookieHeader(options_.token));
        if (req.path.rfind("/api/", 0) != 0) {
          res.set_redirect(WithoutToken(req), 303);  // the token leaves the address bar
          return httplib::Server::HandlerResponse::Handled;
        }
      }
      return httplib::Server::HandlerResponse::Unhandled;
    });
    http_.Post("/login", [this](const httplib::Request& req, httplib::Response& res) {
      Credentials c;
      if (req.has_param("token")) c.url_token = req.get_param_value("token");
      if (Authenticate(c, options_.token) != AuthResult::kByUrlToken) {
        Refuse(req, res, true);
        return;
      }
      res.set_header("Set-Cookie", SetCookieHeader(options_.token));
      res.set_redirect("/", 303);
    });
    http_.Get("/login", [](const httplib::Request&, httplib::Response& res) {
      res.set_content(LoginPage(false), "text/html; charset=utf-8");
    });
    http_.Get(R"(/api/([a-z_]+))", [this](const httplib::Request& req, httplib::Response& res) {
      ApiParams params(req.params.begin(), req.params.end());
      ApiReply reply = HandleApi(api_, req.matches[1], params);
      res.status = reply.status;
      res.set_content(reply.body, reply.content_type);
    });
    http_.Get("/", [this](const httplib::Request&, httplib::Response& res) {
      Asset("index.html", res);
    });
    http_.Get(R"(/((vendor/)?[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*\.(html|js|css)))",
              [this](const httplib::Request& req, httplib::Response& res) {
                Asset(req.matches[1], res);
              });
    http_.set_error_handler([](const httplib::Request& req, httplib::Response& res) {
      if (!res.body.empty()) return;
      res.set_content(R"({"error": "not found"})", "application/json");
    });
    http_.set_exception_handler(
        [](const httplib::Request& req, httplib::Response& res, std::exception_ptr) {
          res.status = 500;
          res.set_content(R"({"error": "internal error"})", "application/json");
        });
  }

  // A file of the assets dir; the route's pattern admits no "..".
  void Asset(const std::string& name, httplib::Response& res) {
    auto text = ReadFile(assets_ + "/" + name);
    if (!text.ok()) {
      res.status = 404;
      res.set_content("not found: " + name + " (dashboard assets are read from " + assets_ + ")",
                      "text/plain; charset=utf-8");
      return;
    }
    const std::string html = ".html";
    if (name.size() > html.size() && name.compare(name.size() - html.size(), html.size(), html) == 0) {
      res.set_content(PageHtml(name.substr(0, name.size() - html.size()), *text), ContentType(name));
      return;
    }
    res.set_content(*text, ContentType(name));
  }

  DashboardOptions options_;
  std::string assets_;
  std::string url_;
  ApiContext api_;
  UtilisationHistory history_;
  NodeLogs node_logs_;
  httplib::Server http_;
};

}  // namespace

Status RunDashboard(const DashboardOptions& options, const std::atomic<bool>& stop) {
  if (options.token.empty()) {
    return Status::InvalidArgument("the dashboard needs the cluster token (none in the session)");
  }
  Server server(options);
  return server.Run(stop);
}

}  // namespace ray::dashboard
