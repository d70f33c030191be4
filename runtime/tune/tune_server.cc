#include "runtime/tune/tune_server.h"

#include <httplib.h>

#include <fmt/format.h>

#include "runtime/base/strings.h"

namespace ray::tune {

using Json = nlohmann::json;

struct TuneServer::Request::Reply {
  std::mutex mu;
  std::condition_variable cv;
  std::optional<Result<Json>> body;
};

void TuneServer::Request::Answer(Result<Json> body) const {
  std::lock_guard<std::mutex> lock(reply->mu);
  reply->body = std::move(body);
  reply->cv.notify_all();
}

namespace {

int HttpStatus(const Status& s) {
  switch (s.code()) {
    case StatusCode::kInvalidArgument: return 400;
    case StatusCode::kNotFound: return 404;
    default: return 503;
  }
}

void Reply(httplib::Response& res, int status, const Json& body) {
  res.status = status;
  res.set_content(body.dump(), "application/json");
}

void Fail(httplib::Response& res, const Status& s) {
  Reply(res, HttpStatus(s), {{"error", s.message()}});
}

}  // namespace

TuneServer::TuneServer(Options options)
    : options_(std::move(options)), http_(std::make_unique<httplib::Server>()) {}

Result<std::unique_ptr<TuneServer>> TuneServer::Start(const Options& options) {
  if (options.token.empty()) return Status::InvalidArgument("the Tune server needs the cluster token");
  std::unique_ptr<TuneServer> server(new TuneServer(options));
  server->Route();
  int port = options.port == 0 ? server->http_->bind_to_any_port(options.host)
                               : (server->http_->bind_to_port(options.host, options.port)
                                      ? options.port
                                      : -1);
  if (port < 0) {
    return Status::Unavailable(fmt::format("the Tune server cannot listen on {}:{} (in use?)",
                                           options.host, options.port));
  }
  server->port_ = port;
  server->thread_ = std::thread([s = server.get()] { s->http_->listen_after_bind(); });
  return server;
}

TuneServer::~TuneServer() {
  http_->stop();
  if (thread_.joinable()) thread_.join();
  std::lock_guard<std::mutex> lock(mu_);
  for (auto& r : requests_) r.Answer(Status::Unavailable("the experiment ended"));
}

std::string TuneServer::url() const { return fmt::format("http://{}:{}", options_.host, port_); }

void TuneServer::Publish(Json trials) {
  std::lock_guard<std::mutex> lock(mu_);
  trials_ = std::move(trials);
}

std::vector<TuneServer::Request> TuneServer::TakeRequests() {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<Request> out(std::make_move_iterator(requests_.begin()),
                           std::make_move_iterator(requests_.end()));
  requests_.clear();
  return out;
}

void TuneServer::SetRunning(bool running) {
  std::lock_guard<std::mutex> lock(mu_);
  running_ = running;
  if (running) return;
  for (auto& r : requests_) r.Answer(Status::Unavailable("the experiment ended"));
  requests_.clear();
}

Result<Json> TuneServer::Ask(Request request) {
  request.reply = std::make_shared<Request::Reply>();
  auto reply = request.reply;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!running_) return Status::Unavailable("no experiment is running");
    requests_.push_back(std::move(request));
  }
  std::unique_lock<std::mutex> lock(reply->mu);
  if (!reply->cv.wait_for(lock, options_.answer_within, [&] { return reply->body.has_value(); })) {
    return Status::Unavailable(fmt::format("the experiment's runner did not take the call within {} ms",
                                           options_.answer_within.count()));
  }
  return std::move(*reply->body);
}

void TuneServer::Route() {
  http_->set_pre_routing_handler([this](const httplib::Request& req, httplib::Response& res) {
    std::string auth = req.get_header_value("Authorization");
    const std::string bearer = "Bearer ";
    if (auth.rfind(bearer, 0) == 0 && ConstantTimeEquals(auth.substr(bearer.size()), options_.token)) {
      return httplib::Server::HandlerResponse::Unhandled;
    }
    Reply(res, 401, {{"error", "send the cluster token: Authorization: Bearer TOKEN"}});
    return httplib::Server::HandlerResponse::Handled;
  });
  http_->Get("/trials", [this](const httplib::Request&, httplib::Response& res) {
    std::lock_guard<std::mutex> lock(mu_);
    Reply(res, 200, {{"trials", trials_}});
  });
  http_->Get(R"(/trials/([0-9a-zA-Z_-]+))", [this](const httplib::Request& req, httplib::Response& res) {
    std::lock_guard<std::mutex> lock(mu_);
    for (const auto& t : trials_) {
      if (t.value("id", "") == req.matches[1].str()) return Reply(res, 200, {{"trial", t}});
    }
    Fail(res, Status::NotFound("no trial " + req.matches[1].str()));
  });
  http_->Put(R"(/trials/([0-9a-zA-Z_-]+))", [this](const httplib::Request& req, httplib::Response& res) {
    Request r{Request::Kind::kStopTrial, req.matches[1].str(), Json(), nullptr};
    auto body = Ask(std::move(r));
    body.ok() ? Reply(res, 200, *body) : Fail(res, body.status());
  });
  http_->Post("/trials", [this](const httplib::Request& req, httplib::Response& res) {
    Json body = Json::parse(req.body, nullptr, false);
    if (body.is_discarded() || !body.is_object() || !body.contains("spec") || !body["spec"].is_object()) {
      return Fail(res, Status::InvalidArgument(R"(expected JSON {"spec": {"config": {...}}})"));
    }
    auto added = Ask({Request::Kind::kAddTrials, "", body["spec"], nullptr});
    added.ok() ? Reply(res, 200, *added) : Fail(res, added.status());
  });
  http_->set_error_handler([](const httplib::Request&, httplib::Response& res) {
    if (res.body.empty()) Reply(res, res.status, {{"error", "no such call (see GET/PUT /trials)"}});
  });
}

}  // namespace ray::tune
