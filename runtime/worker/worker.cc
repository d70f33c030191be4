#include "runtime/worker/worker.h"

#include <unistd.h>

#include <fmt/format.h>

#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <map>
#include <memory>
#include <optional>

#include "runtime/api/core_client.h"
#include "runtime/api/runtime_api.h"
#include "runtime/base/logging.h"
#include "runtime/base/util.h"
#include "runtime/worker/call_pool.h"
#include "runtime/worker/pending_calls.h"
#include "runtime/worker/plugin.h"
#include "runtime/worker/runtime_env_setup.h"
#include "runtime/worker/task_receiver.h"

namespace ray::worker {

using protocol::ObjectPayload;
using protocol::ObjectState;
namespace ri = ray::internal;

namespace {

// Sets CUDA_VISIBLE_DEVICES to a task's GPU ids ("" for none, as Ray does for tasks
// without GPUs) for the scope, then restores the worker's own value.
class ScopedGpuEnv {
 public:
  explicit ScopedGpuEnv(const std::vector<int32_t>& ids) {
    const char* old = std::getenv(kVar);
    if (old) previous_ = old;
    std::string value;
    for (int32_t id : ids) value += (value.empty() ? "" : ",") + std::to_string(id);
    ::setenv(kVar, value.c_str(), 1);
  }
  ~ScopedGpuEnv() {
    if (previous_) {
      ::setenv(kVar, previous_->c_str(), 1);
    } else {
      ::unsetenv(kVar);
    }
  }
  ScopedGpuEnv(const ScopedGpuEnv&) = delete;
  ScopedGpuEnv& operator=(const ScopedGpuEnv&) = delete;

 private:
  static constexpr const char* kVar = "CUDA_VISIBLE_DEVICES";
  std::optional<std::string> previous_;
};

// Releases the client's lock, held once by this thread, for the scope: the user's
// code runs without it, and takes it through the API when it needs the client.
class ScopedUnlock {
 public:
  explicit ScopedUnlock(core::ClientLock& lock) : lock_(lock) { lock_.unlock(); }
  ~ScopedUnlock() { lock_.lock(); }
  ScopedUnlock(const ScopedUnlock&) = delete;
  ScopedUnlock& operator=(const ScopedUnlock&) = delete;

 private:
  core::ClientLock& lock_;
};

// Runs tasks; called with the client's lock held once by the calling thread (it is
// released while the user's code runs). The worker's thread runs every task, but the
// calls of a concurrent actor, which run on its CallPool's threads.
class Worker {
 public:
  Worker(core::CoreClient* client, core::WorkerParts parts)
      : client_(client),
        parts_(parts),
        env_(client->node().session_dir,
             [this](const std::string& hash) { return BlobPath(hash); },
             [this](const std::string& hash, const std::string& path) {
               return PluginFor(hash, path).status();
             }) {}

  // Runs a task as `call`: its answer, or nullopt if it comes later (an async actor
  // method that awaits: Complete).
  std::optional<protocol::TaskDone> Execute(const protocol::ExecuteTask& task, uint64_t call);
  uint64_t NewCall() {
    pending_.Started(++last_call_);
    return last_call_;
  }
  // Async calls (ray/async.h): a call answered later, and its result (pending_calls.h):
  // the call's answer once both are here.
  using Answered = std::optional<std::pair<PendingCalls::Call, protocol::TaskDone>>;
  Answered Pend(uint64_t call, PendingCalls::Call pending) {
    return AnswerOf(pending_.Pend(call, std::move(pending)));
  }
  Answered Complete(uint64_t call, RayResult r) { return AnswerOf(pending_.Complete(call, r)); }
  // How many calls may be in flight at once (started, not answered): max_concurrency
  // if above 1, else 1,000 (Ray's default for async actors; without async methods,
  // calls run one at a time anyway).
  int CallLimit() const { return actor_concurrency_ > 1 ? actor_concurrency_ : 1000; }
  // What takes the results of async calls (set on every plugin's binding).
  void SetCompleter(core::RuntimeBinding::Completer c) { completer_ = std::move(c); }
  // The GPUs the hosted actor holds (direct calls do not name them).
  const std::vector<int32_t>& actor_gpus() const { return actor_gpus_; }
  // The hosted actor's max_concurrency (1: its calls run one at a time, in order).
  int actor_concurrency() const { return actor_concurrency_; }

 private:
  struct Loaded {
    std::shared_ptr<Plugin> plugin;
    std::unique_ptr<core::RuntimeBinding> binding;
  };
  Result<Loaded*> PluginFor(const std::string& hash, std::string path);
  // Where this node keeps the blob (plugin, packed working_dir) stored under `hash`.
  Result<std::string> BlobPath(const std::string& hash);
  protocol::TaskDone Fail(const protocol::TaskSpec& spec, ri::ErrorInfo e);
  protocol::TaskDone SystemError(const protocol::TaskSpec& spec, const std::string& type,
                                 const std::string& message) {
    return Fail(spec, ri::ErrorInfo{ri::kSystem, type, message, "", ""});
  }
  // The answer of task `spec` from what the plugin returned (freed here).
  protocol::TaskDone Answer(const protocol::TaskSpec& spec, const Loaded* loaded, RayResult r);
  Answered AnswerOf(PendingCalls::Ready ready);
  std::string Where() const {
    return fmt::format("node {}, pid {}", client_->node().node_address, ::getpid());
  }

  core::CoreClient* client_;
  core::WorkerParts parts_;  // the client's
  RuntimeEnvSetup env_;
  std::map<std::string, Loaded> plugins_;
  // The actor this worker hosts, if any.
  Loaded* actor_plugin_ = nullptr;
  std::string actor_factory_;
  std::string actor_id_;
  std::vector<int32_t> actor_gpus_;
  int actor_concurrency_ = 1;
  void* actor_ = nullptr;
  uint64_t last_call_ = 0;
  PendingCalls pending_;  // async calls in flight
  core::RuntimeBinding::Completer completer_;
};

Result<Worker::Loaded*> Worker::PluginFor(const std::string& hash, std::string path) {
  auto it = plugins_.find(hash);
  if (it != plugins_.end()) return &it->second;
  // Tasks sent directly by their caller do not carry the plugin's local path.
  if (path.empty()) {
    RAY_ASSIGN_OR_RETURN(path, BlobPath(hash));
  }
  RAY_ASSIGN_OR_RETURN(auto plugin, Plugin::Load(path, hash));
  Loaded loaded{plugin, std::make_unique<core::RuntimeBinding>(client_, hash)};
  loaded.binding->SetCompleter(completer_);
  plugin->Attach(loaded.binding->api());
  return &(plugins_[hash] = std::move(loaded));
}

Result<std::string> Worker::BlobPath(const std::string& hash) {
  RAY_ASSIGN_OR_RETURN(auto reply, parts_.raylet->Ask<protocol::PluginPathReply>(
                                       protocol::MessageType::kPluginPath,
                                       protocol::PluginPathRequest{hash},
                                       protocol::MessageType::kPluginPathReply));
  if (!reply.error.empty()) return Status::NotFound(reply.error);
  return std::move(reply.path);
}

protocol::TaskDone Worker::Fail(const protocol::TaskSpec& spec, ri::ErrorInfo e) {
  e.task = spec.function;
  e.where = Where();
  protocol::TaskDone done;
  done.task_id = spec.task_id;
  for (uint32_t i = 1; i <= spec.num_returns; ++i) {
    ObjectPayload p;
    p.id = ObjectId::ForTaskReturn(spec.task_id, i);
    p.state = static_cast<uint8_t>(ObjectState::kError);
    p.data = ri::Pack(e);
    done.returns.push_back(std::move(p));
  }
  return done;
}

std::optional<protocol::TaskDone> Worker::Execute(const protocol::ExecuteTask& task,
                                                  uint64_t call) {
  const protocol::TaskSpec& spec = task.spec;
  const TaskId& tid = spec.task_id;
  client_->SetCurrentTask(tid, spec.job_id);
  auto system_error = [&](const std::string& type, const std::string& message) {
    return SystemError(spec, type, message);
  };

  if (spec.kind != ri::kActorTask) {
    // (An actor's calls run in the environment it was created in.)
    Status entered = env_.Enter(spec.runtime_env);
    if (!entered.ok()) return system_error("RuntimeEnvSetupError", entered.message());
    // Its tasks inherit its environment, and its group if it captures them.
    client_->SetInherited({spec.runtime_env,
                           spec.placement_group_capture_child_tasks ? spec.placement_group_id : "",
                           spec.actors_detached});
  }
  Loaded* loaded = nullptr;
  if (spec.kind == ri::kActorTask) {
    if (!actor_ || spec.actor_id != actor_id_) {
      return system_error("ActorDiedError", "this worker does not host the actor");
    }
    loaded = actor_plugin_;
  } else {
    auto p = PluginFor(spec.plugin, task.plugin_path);
    if (!p.ok()) return system_error("PluginError", p.status().message());
    loaded = *p;
  }

  // Arguments: values inline in the spec, references resolved by the raylet (or for
  // direct calls, by the caller where it could; this worker fetches the rest).
  std::vector<core::Fetched> held;
  held.reserve(task.resolved.size());  // args point at its elements
  std::vector<ObjectId> missing;
  std::vector<size_t> missing_at;
  for (const ObjectPayload& p : task.resolved) {
    auto f = parts_.objects->Materialize(p);
    // NotFound: spilled since the raylet sent the task; fetched (and restored) below.
    if (!f.ok() && f.status().code() != StatusCode::kNotFound) {
      return system_error("ObjectLostError", f.status().message());
    }
    if (!f.ok() || f->state == ObjectState::kMissing) {
      missing.push_back(p.id);
      missing_at.push_back(held.size());
    }
    held.push_back(f.ok() ? std::move(*f) : core::Fetched{});
  }
  if (!missing.empty()) {
    // (Held by its caller: pulled from its node first, if that is another.)
    auto fetched = parts_.objects->Get(missing, -1, task.caller_node);
    if (!fetched.ok()) return system_error("ObjectLostError", fetched.status().message());
    for (size_t k = 0; k < missing.size(); ++k) held[missing_at[k]] = std::move((*fetched)[k]);
  }
  std::vector<RayArg> args;
  size_t next_ref = 0;
  for (const auto& a : spec.args) {
    if (!a.is_ref) {
      args.push_back({a.data.data(), a.data.size(), nullptr});
      continue;
    }
    if (next_ref >= held.size()) return system_error("ray::Internal", "argument missing");
    core::Fetched& f = held[next_ref++];
    if (f.state == ObjectState::kError) {
      // A failed dependency fails this task with the same error.
      auto e = ri::Unpack<ri::ErrorInfo>(f.data, f.size);
      protocol::TaskDone done = Fail(spec, e);
      for (auto& r : done.returns) r.data = std::string(f.data, f.size);
      return done;
    }
    if (f.state != ObjectState::kInline && f.state != ObjectState::kShared) {
      return system_error("ObjectLostError", "an argument object is missing");
    }
    // The handle lets the plugin keep a view (a Blob) of the bytes past the call.
    args.push_back({f.data, f.size, &f.keep});
  }

  void* instance = spec.kind == ri::kActorTask ? actor_ : nullptr;
  RayResult r;
  const auto body_start = std::chrono::steady_clock::now();
  {
    ScopedUnlock unlocked(client_->lock());
    core::RuntimeBinding::SetCurrentCall(call);
    r = loaded->plugin->Invoke(spec.function, instance, args.data(), args.size());
    core::RuntimeBinding::SetCurrentCall(0);
  }
  if (r.kind == RAY_OBJECT_PENDING) {
    if (r.free_fn) r.free_fn(r.data);
    if (spec.kind == ri::kActorTask) return std::nullopt;  // Complete answers it
    return system_error("PluginError", spec.function + " answered later, which only actor "
                                                       "methods may (ray/async.h)");
  }
  if (spec.kind == ri::kActorCreation && r.kind != RAY_OBJECT_ERROR) {
    actor_ = r.instance;
    actor_plugin_ = loaded;
    actor_factory_ = spec.function;
    actor_id_ = spec.task_id.Binary();
    actor_gpus_ = task.gpu_ids;
    actor_concurrency_ = spec.max_concurrency;
  }
  protocol::TaskDone done = Answer(spec, loaded, r);  // (stores its results: counted too)
  done.run_us = std::chrono::duration_cast<std::chrono::microseconds>(
                    std::chrono::steady_clock::now() - body_start).count();
  return done;
}

protocol::TaskDone Worker::Answer(const protocol::TaskSpec& spec, const Loaded* loaded,
                                  RayResult r) {
  std::string bytes(r.data, r.size);
  r.free_fn(r.data);

  if (r.kind == RAY_OBJECT_ERROR) {
    ri::ErrorInfo e;
    try {
      e = ri::Unpack<ri::ErrorInfo>(bytes.data(), bytes.size());
    } catch (const std::exception&) {
      e = {ri::kSystem, "PluginError", "the plugin returned a malformed error", "", ""};
    }
    if (e.type == "ray::UnknownFunction") e.message += " (plugin " + loaded->plugin->path() + ")";
    return Fail(spec, e);
  }

  std::vector<std::string> parts;
  if (spec.num_returns == 1) {
    parts.push_back(std::move(bytes));
  } else {
    try {
      parts = ri::Unpack<std::vector<std::string>>(bytes.data(), bytes.size());
    } catch (const std::exception&) {
    }
    if (parts.size() != spec.num_returns) {
      return SystemError(spec, "ray::Internal", fmt::format("{} returned {} values, expected {}",
                                                            spec.function, parts.size(),
                                                            spec.num_returns));
    }
  }
  protocol::TaskDone done;
  done.task_id = spec.task_id;
  for (uint32_t i = 0; i < parts.size(); ++i) {
    auto p = parts_.objects->MakePayload(ObjectId::ForTaskReturn(spec.task_id, i + 1), parts[i]);
    if (!p.ok()) return SystemError(spec, "ObjectStoreFullError", p.status().message());
    done.returns.push_back(std::move(*p));
  }
  return done;
}

Worker::Answered Worker::AnswerOf(PendingCalls::Ready ready) {
  if (!ready) return std::nullopt;
  const protocol::TaskSpec& spec = ready->first.in.task.spec;
  protocol::TaskDone done;
  if (!actor_plugin_ || ready->second.kind == RAY_OBJECT_PENDING) {
    if (ready->second.free_fn) ready->second.free_fn(ready->second.data);
    done = SystemError(spec, "PluginError", "an async method completed without a result");
  } else {
    done = Answer(spec, actor_plugin_, ready->second);
  }
  return std::make_pair(std::move(ready->first), std::move(done));
}

}  // namespace

Status RunWorker(const WorkerOptions& options) {
  auto id = FromHex(options.worker_id_hex);
  if (!id || id->size() != WorkerId::kSize) {
    return Status::InvalidArgument("bad --worker-id " + options.worker_id_hex);
  }
  RAY_ASSIGN_OR_RETURN(auto receiver, TaskReceiver::Bind(options.raylet_endpoint, *id));
  core::WorkerParts parts;
  RAY_ASSIGN_OR_RETURN(auto client,
                       core::CoreClient::Connect(options.raylet_endpoint, false, JobId(), *id,
                                                 receiver->endpoint(), &parts));
  // This thread holds the client's lock but while a task's user code runs, and while
  // it waits for tasks (NextTask) lets the threads of a concurrent actor use it.
  std::unique_lock<core::ClientLock> hold(client->lock());
  receiver->Attach(parts.raylet, parts.objects);
  // Async calls (ray/async.h) answer later, on the plugin's callback thread: with the
  // lock, unless the worker is past its loop. No call starts while CallLimit calls are
  // in flight (`in_flight`, with the lock). (Declared before the worker: its plugins'
  // callbacks may still run while it goes.)
  std::condition_variable_any room;
  int in_flight = 0;
  bool live = true;
  Worker worker(client.get(), parts);
  auto answered = [&] {
    if (in_flight-- >= worker.CallLimit()) room.notify_all();  // (a waiter: room now)
  };
  auto send_answer = [&](Worker::Answered& answer) {
    answer->second.start_ms = answer->first.start_ms;
    answer->second.end_ms = NowMillis();
    receiver->SendTaskDone(answer->first.in, answer->second);
    answered();
  };
  worker.SetCompleter([&](uint64_t call, RayResult r) {
    std::lock_guard<core::ClientLock> hold_answer(client->lock());
    if (!live) {
      if (r.free_fn) r.free_fn(r.data);
      return;
    }
    auto answer = worker.Complete(call, r);
    if (answer) send_answer(answer);
  });
  // Runs one task, and answers it (with the lock held), or leaves it to the completer.
  auto run = [&](IncomingTask& in, bool set_gpus) {
    if (!in.reply_to.empty()) in.task.gpu_ids = worker.actor_gpus();
    int64_t start_ms = NowMillis();
    uint64_t call = worker.NewCall();
    ++in_flight;
    std::optional<protocol::TaskDone> done;
    if (set_gpus) {
      ScopedGpuEnv gpus(in.task.gpu_ids);
      done = worker.Execute(in.task, call);
    } else {
      done = worker.Execute(in.task, call);
    }
    if (!done) {
      auto early = worker.Pend(call, {std::move(in), start_ms});
      if (early) send_answer(early);
      return;
    }
    done->start_ms = start_ms;
    done->end_ms = NowMillis();
    receiver->SendTaskDone(in, *done);
    answered();
  };
  auto await_room = [&](std::unique_lock<core::ClientLock>& lock) {
    room.wait(lock, [&] { return in_flight < worker.CallLimit(); });
  };
  std::unique_ptr<CallPool> pool;  // a concurrent actor's threads
  std::optional<ScopedGpuEnv> actor_gpus;  // theirs, for the actor's life
  while (true) {
    await_room(hold);
    auto in = receiver->NextTask();
    if (!in) break;
    if (pool && in->task.spec.kind == ri::kActorTask) {
      pool->Post(std::move(*in));
      continue;
    }
    bool creation = in->task.spec.kind == ri::kActorCreation;
    run(*in, /*set_gpus=*/true);
    if (creation && !pool && worker.actor_concurrency() > 1) {
      // (Threads share the environment: set once, not per call.)
      actor_gpus.emplace(worker.actor_gpus());
      pool = std::make_unique<CallPool>(worker.actor_concurrency(), [&](IncomingTask& call) {
        std::unique_lock<core::ClientLock> hold_call(client->lock());
        await_room(hold_call);
        run(call, /*set_gpus=*/false);
      });
    }
  }
  live = false;
  hold.unlock();
  pool.reset();  // the calls running end first
  return Status::Ok();
}

}  // namespace ray::worker
