#include "runtime/api/async_gets.h"

#include <algorithm>

#include "runtime/base/logging.h"

namespace ray::core {

namespace ri = ray::internal;

namespace {
// How long one wait lasts: objects asked for meanwhile join the next one.
constexpr int64_t kWaitSliceMs = 10;

Fetched ErrorObject(const std::string& type, const std::string& message) {
  auto bytes = std::make_shared<std::string>(
      ri::Pack(ri::ErrorInfo{ri::kSystem, type, message, "", ""}));
  return Fetched{protocol::ObjectState::kError, bytes->data(), bytes->size(), bytes};
}
}  // namespace

void AsyncGets::Add(const ObjectId& id, Callback done) {
  {
    std::lock_guard<std::mutex> g(mu_);
    if (!stop_) {
      pending_[id].push_back(std::move(done));
      if (!thread_.joinable()) thread_ = std::thread([this] { Run(); });
      cv_.notify_one();
      return;
    }
  }
  done(ErrorObject("RayException", "ray is shutting down: no more callbacks on objects"));
}

void AsyncGets::Stop() {
  {
    std::lock_guard<std::mutex> g(mu_);
    stop_ = true;
    cv_.notify_one();
  }
  if (thread_.joinable()) thread_.join();
  std::unordered_map<ObjectId, std::vector<Callback>, IdHash> left;
  {
    std::lock_guard<std::mutex> g(mu_);
    left.swap(pending_);
  }
  Fetched error = ErrorObject("RayException",
                              "ray shut down before the object was ready (the job ended)");
  for (auto& [id, callbacks] : left) {
    for (auto& cb : callbacks) cb(error);
  }
}

namespace {
thread_local bool on_callback_thread = false;
}  // namespace

bool AsyncGets::OnCallbackThread() { return on_callback_thread; }

void AsyncGets::Run() {
  on_callback_thread = true;
  while (true) {
    std::vector<ObjectId> ids;
    {
      std::unique_lock<std::mutex> g(mu_);
      cv_.wait(g, [&] { return stop_ || !pending_.empty(); });
      if (stop_) return;
      ids.reserve(pending_.size());
      for (const auto& [id, callbacks] : pending_) ids.push_back(id);
    }
    // Block until one is ready, then take every one ready.
    auto one = client_->Wait(ids, 1, kWaitSliceMs);
    if (one.ok() && std::find(one->begin(), one->end(), true) == one->end()) continue;
    auto ready = one.ok() ? client_->Wait(ids, ids.size(), 0) : one;
    if (!ready.ok()) {
      RAY_LOG_WARN("callbacks on objects: {}", ready.status().message());
      Deliver(ids, std::vector<Fetched>(ids.size(), ErrorObject("RaySystemError",
                                                                ready.status().message())));
      continue;
    }
    std::vector<ObjectId> done;
    for (size_t i = 0; i < ids.size(); ++i) {
      if ((*ready)[i]) done.push_back(ids[i]);
    }
    if (done.empty()) continue;
    auto objects = client_->Get(done, 0);
    if (!objects.ok()) {
      Deliver(done, std::vector<Fetched>(done.size(), ErrorObject("RaySystemError",
                                                                  objects.status().message())));
      continue;
    }
    Deliver(done, *objects);
  }
}

void AsyncGets::Deliver(const std::vector<ObjectId>& ids, const std::vector<Fetched>& objects) {
  for (size_t i = 0; i < ids.size(); ++i) {
    if (objects[i].state == protocol::ObjectState::kMissing) continue;  // gone again: wait on
    std::vector<Callback> callbacks;
    {
      std::lock_guard<std::mutex> g(mu_);
      auto it = pending_.find(ids[i]);
      if (it == pending_.end()) continue;
      callbacks.swap(it->second);
      pending_.erase(it);
    }
    for (auto& cb : callbacks) cb(objects[i]);
  }
}

}  // namespace ray::core
