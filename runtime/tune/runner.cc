#include "runtime/tune/runner.h"

#include <ray/api.h>
#include <ray/tune.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <deque>
#include <filesystem>
#include <fstream>
#include <memory>
#include <thread>

#include <fmt/format.h>

#include "runtime/base/util.h"
#include "runtime/tune/result_logger.h"
#include "runtime/tune/scheduler.h"
#include "runtime/tune/tune_server.h"

namespace ray::tune {

NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(ExperimentSpec, name, trainable, config, stop,
                                                num_samples, resources_per_trial,
                                                checkpoint_freq, checkpoint_at_end,
                                                keep_checkpoints_num, checkpoint_score_attr,
                                                max_failures, restore, local_dir, seed,
                                                scheduler,
                                                scheduler_config, search_alg, search_config,
                                                metric, mode, verbose, reuse_actors,
                                                status_interval_s, loggers)

Json ExperimentSpec::ToJson() const { return *this; }

Result<ExperimentSpec> ExperimentSpec::FromJson(const Json& j) {
  if (!j.is_object()) return Status::InvalidArgument("an experiment must be a JSON object");
  const Json known = ExperimentSpec{}.ToJson();
  ExperimentSpec spec;
  for (auto it = j.begin(); it != j.end(); ++it) {
    if (!known.contains(it.key())) return Status::InvalidArgument(it.key() + ": unknown key");
    try {
      Json one = known;
      one[it.key()] = it.value();
      ExperimentSpec parsed = one.get<ExperimentSpec>();
      Json value = parsed.ToJson()[it.key()];
      Json all = spec.ToJson();
      all[it.key()] = value;
      spec = all.get<ExperimentSpec>();
    } catch (const std::exception&) {
      return Status::InvalidArgument(it.key() + ": expected " +
                                     std::string(known[it.key()].type_name()) + ", got " +
                                     it.value().dump());
    }
  }
  return spec;
}

namespace {

namespace fs = std::filesystem;
namespace ri = ray::internal;
using Clock = std::chrono::steady_clock;
using Resources = std::map<std::string, double>;

// An actor hosting trials. `trial` is the one it runs (nullptr: idle, reusable).
struct Actor {
  std::string id;
  std::string placement_group;  // what it and its trainable's work run in ("": none)
  Resources resources;
  struct TrialState* trial = nullptr;
  // The last Stop sent to it: its trainable is being destroyed.
  std::optional<ray::ObjectRef<msgpack::type::nil_t>> stopping;
};

// A trial with the runner's bookkeeping.
struct TrialState {
  Trial trial;
  std::unique_ptr<ResultLogger> logger;
  Actor* actor = nullptr;
  std::optional<ray::ObjectRef<std::string>> step;  // the Step in flight, if any
  std::string restore_from;   // checkpoint to restore at the next start
  bool restart = false;       // call Start before the next Step
  int searcher_index = -1;    // its order among the searcher's suggestions; -1: added by a client
  bool stop_requested = false;  // by a client: the trial ends at its next result
};

// A trial's resources may hold "extra_CPU" / "extra_GPU" (Ray's extra_cpu): room the
// trainable's own actors use (an RLlib trainer's rollout workers). The trial's actor
// asks for the rest; the runner counts both.
Resources ActorRequest(const Resources& r) {
  Resources out;
  for (const auto& [name, amount] : r) {
    if (name.rfind("extra_", 0) != 0) out[name] = amount;
  }
  return out;
}

Resources Accounted(const Resources& r) {
  Resources out = ActorRequest(r);
  for (const auto& [name, amount] : r) {
    if (name.rfind("extra_", 0) == 0) out[name.substr(6)] += amount;
  }
  return out;
}

// The bundles a trial reserves as one placement group (see Runner::Start): first its
// actor's request, then its extra resources: CPUs and GPUs in bundles of at most one
// of each (as RLlib's rollout workers ask for one CPU each, so that they may spread
// over nodes), any other extra resource whole in the first of them. None when the
// actor asks for nothing or the trial has no extra resources.
std::vector<std::unordered_map<std::string, double>> TrialBundles(const Resources& r) {
  constexpr double kMaxUnitBundles = 1024;
  std::unordered_map<std::string, double> own;
  for (const auto& [name, amount] : ActorRequest(r)) {
    if (amount > 0) own[name] = amount;
  }
  Resources units, whole;
  for (const auto& [name, amount] : r) {
    if (name.rfind("extra_", 0) != 0 || amount <= 0) continue;
    std::string base = name.substr(6);
    bool split = (base == "CPU" || base == "GPU") && amount <= kMaxUnitBundles;
    (split ? units : whole)[base] = amount;
  }
  if (own.empty() || (units.empty() && whole.empty())) return {};
  std::vector<std::unordered_map<std::string, double>> bundles{own};
  bundles.emplace_back(whole.begin(), whole.end());
  while (!units.empty()) {
    std::unordered_map<std::string, double>& b = bundles.back();
    for (auto it = units.begin(); it != units.end();) {
      b[it->first] = std::min(1.0, it->second);
      it->second -= b[it->first];
      it = it->second > 1e-9 ? std::next(it) : units.erase(it);
    }
    if (!units.empty()) bundles.emplace_back();
  }
  return bundles;
}

bool Fits(const Resources& need, const Resources& free) {
  for (const auto& [name, amount] : need) {
    if (amount <= 0) continue;
    auto it = free.find(name);
    if (it == free.end() || it->second + 1e-9 < amount) return false;
  }
  return true;
}

std::string Describe(const Resources& r) {
  std::string out;
  for (const auto& [name, amount] : r) out += fmt::format("{}{}: {}", out.empty() ? "" : ", ", name, amount);
  return "{" + out + "}";
}

// Result fields as the runner reads them: the trainable is user code, so a field of
// the wrong type reads as absent instead of failing the experiment.
double NumberOr(const Json& j, const char* key, double fallback) {
  auto it = j.is_object() ? j.find(key) : j.end();
  return j.is_object() && it != j.end() && it->is_number() ? it->get<double>() : fallback;
}

bool Done(const Json& j) {
  auto it = j.find("done");
  if (it == j.end()) return false;
  return it->is_boolean() ? it->get<bool>() : it->is_number() && it->get<double>() != 0;
}

// error.txt keeps every error of the trial, in order.
void AppendError(const Trial& t, const std::string& error) {
  std::ofstream(t.logdir + "/error.txt", std::ios::app) << error << "\n";
}

// A file-system-safe piece of a dir name.
std::string Sanitize(std::string s, size_t max) {
  for (char& c : s) {
    if (c == '/' || c == ' ' || c == '\\' || c == ':') c = '_';
  }
  return s.substr(0, max);
}

class Runner final : public TrialRunner {
 public:
  Runner(ExperimentSpec spec, std::string dir, std::unique_ptr<Searcher> searcher,
         std::unique_ptr<TrialScheduler> scheduler, ResourceRequestFn resource_request,
         SampleFromFn sample_from, TuneServer* server)
      : spec_(std::move(spec)),
        dir_(std::move(dir)),
        searcher_(std::move(searcher)),
        scheduler_(std::move(scheduler)),
        resource_request_(std::move(resource_request)),
        sample_from_(std::move(sample_from)),
        server_(server),
        experiment_id_(ToHex(RandomBytes(16))) {}

  // The trials of an earlier run of this experiment: resumed (`resume`) or kept as
  // history beside the new run's.
  Status Load(const Json& state, bool resume);
  Result<ExperimentOutcome> Run();

  // TrialRunner
  std::vector<Trial*> Trials() override {
    std::vector<Trial*> out;
    for (auto& s : trials_) out.push_back(&s->trial);
    return out;
  }
  bool HasResources(const Trial& trial) override;
  Result<std::string> SaveCheckpoint(Trial& trial) override;
  void StopTrial(Trial& trial) override;
  Status ResetTrial(Trial& trial, Json new_config, std::string new_tag,
                    const std::string& checkpoint) override;

 private:
  TrialState& StateOf(const Trial& t) { return *trials_[t.index]; }
  Status AddTrials();
  // A new pending trial of `config` (the searcher's suggestion number `searcher_index`,
  // or -1 for a client's).
  Result<Trial*> NewTrial(Json config, const std::string& tag, int searcher_index);
  // The Client API: carries out the calls that came and publishes the trials.
  void ServeClients();
  Result<Json> AddClientTrials(const Json& spec);
  Json TrialInfo(const Trial& t) const;
  // The searcher hears only of its own suggestions.
  void SearcherResult(const TrialState& s, const Json& result) {
    if (s.searcher_index >= 0) searcher_->OnTrialResult(s.searcher_index, result);
  }
  void SearcherComplete(const TrialState& s, const Json& result, bool error) {
    if (s.searcher_index >= 0) searcher_->OnTrialComplete(s.searcher_index, result, error);
  }
  Result<Resources> ResourcesFor(const std::string& trainable, const Json& config);
  Status Start(TrialState& s);
  void SubmitStep(TrialState& s);
  Status OnStepDone(TrialState& s);
  Status OnResult(TrialState& s, Json result);
  void OnFailure(TrialState& s, const std::string& error, bool actor_died);
  // Ends the trial's run on its actor (which becomes idle) with `status`.
  void Release(TrialState& s, TrialStatus status);
  void KillActor(Actor* a);
  Result<std::string> Checkpoint(TrialState& s);
  void PruneCheckpoints(TrialState& s);
  // The trial cannot run on this cluster: it errors, naming why ("": its resources).
  Status Unrunnable(TrialState& s, const std::string& why = "");
  Resources Held() const;
  void PrintStatus(bool final);
  Status SaveState(bool force);
  void Event(const std::string& line) {
    if (spec_.verbose >= 2) std::printf("%s\n", line.c_str());
  }
  std::string Name(const Trial& t) const { return fmt::format("{}_{:05}", t.trainable, t.index); }

  ExperimentSpec spec_;
  std::string dir_;
  std::unique_ptr<Searcher> searcher_;
  std::unique_ptr<TrialScheduler> scheduler_;
  ResourceRequestFn resource_request_;
  SampleFromFn sample_from_;
  TuneServer* server_;  // null: no Client API
  std::string experiment_id_;
  std::vector<std::unique_ptr<TrialState>> trials_;
  int first_index_ = 0;  // trials_ before it belong to earlier runs of the experiment
  std::vector<std::unique_ptr<Actor>> actors_;
  Resources total_;
  Clock::time_point last_status_{}, last_save_{};
  Clock::time_point started_ = Clock::now();
};

// ---------------------------------------------------------------------------
// Actors and resources.

Resources Runner::Held() const {
  Resources held;
  for (const auto& a : actors_) {
    for (const auto& [name, amount] : Accounted(a->resources)) held[name] += amount;
  }
  return held;
}

bool Runner::HasResources(const Trial& trial) {
  Resources free = total_;
  for (const auto& a : actors_) {
    if (!a->trial && a->resources == trial.resources) return true;
    if (a->trial) {
      for (const auto& [name, amount] : Accounted(a->resources)) free[name] -= amount;
    }
  }
  return Fits(Accounted(trial.resources), free);  // idle actors can be stopped to make room
}

void Runner::KillActor(Actor* a) {
  try {
    // Let its trainable clean up first (a trainer stops the actors it made).
    if (a->stopping) (void)ray::Wait(std::vector{*a->stopping}, 1, std::chrono::seconds(10));
    ray::ActorHandle<Actor>(a->id).Kill();
  } catch (const std::exception&) {
    // Already gone.
  }
  if (!a->placement_group.empty()) {
    try {
      ray::RemovePlacementGroup(a->placement_group);  // (with what ran in it)
    } catch (const std::exception& e) {
      Event(fmt::format("could not remove placement group {}: {}", a->placement_group, e.what()));
    }
  }
  actors_.erase(std::remove_if(actors_.begin(), actors_.end(),
                               [a](const auto& p) { return p.get() == a; }),
                actors_.end());
}

// ---------------------------------------------------------------------------
// Starting, stepping and stopping trials.

ri::TaskRequest ActorCall(const std::string& actor, const char* method) {
  ri::TaskRequest req;
  req.kind = ri::kActorTask;
  req.actor_id = actor;
  req.function = method;
  req.max_retries = 0;
  return req;
}

Status Runner::Start(TrialState& s) {
  Trial& t = s.trial;
  Actor* actor = nullptr;
  for (auto& a : actors_) {
    if (!a->trial && a->resources == t.resources) actor = a.get();
  }
  if (!actor) {
    // Stop idle actors until the new one fits.
    while (!Fits(Accounted(t.resources), [&] {
      Resources free = total_;
      for (const auto& [name, amount] : Held()) free[name] -= amount;
      return free;
    }())) {
      auto idle = std::find_if(actors_.begin(), actors_.end(), [](auto& a) { return !a->trial; });
      if (idle == actors_.end()) break;
      KillActor(idle->get());
    }
    ri::TaskRequest create;
    create.kind = ri::kActorCreation;
    create.function = internal::kCreate;
    create.resources = ActorRequest(t.resources);
    create.max_retries = 0;
    // A trial with extra resources reserves all it needs at once, as a placement
    // group: its actor runs in bundle 0, and what its trainable starts (an RLlib
    // trainer's rollout workers) is captured into the group, so that no other work
    // takes those resources meanwhile. (A trial without extras reserves nothing more
    // than its actor: what its trainable starts runs wherever there is room.)
    std::string group;
    if (auto bundles = TrialBundles(t.resources); !bundles.empty()) {
      try {
        group = ray::CreatePlacementGroup(bundles, ray::PlacementStrategy::PACK).GetID();
      } catch (const std::exception& e) {
        std::string why = e.what();
        if (why.find("cannot be placed") != std::string::npos ||
            why.find("bundle") != std::string::npos) {
          return Unrunnable(s, "its placement group was refused: " + why);
        }
        // (The GCS did not answer, say: the trial runs without a reservation.)
        Event(fmt::format("Trial {} runs without a placement group: {}", Name(t), why));
      }
    }
    if (!group.empty()) {
      create.placement_group_id = group;
      create.bundle_index = 0;
      create.placement_group_capture_child_tasks = true;
    }
    auto ids = ri::SubmitRaw(create);
    actors_.push_back(std::make_unique<Actor>(
        Actor{ids[0].substr(0, 16), group, t.resources, nullptr, std::nullopt}));
    actor = actors_.back().get();
  }
  actor->trial = &s;
  s.actor = actor;
  if (!s.logger) {
    RAY_ASSIGN_OR_RETURN(s.logger, ResultLogger::Create(t.logdir, t.config, experiment_id_,
                                                        t.trial_id, spec_.loggers));
  }
  bool resumed = t.status == TrialStatus::kPaused || !s.restore_from.empty();
  t.status = TrialStatus::kRunning;
  Event(fmt::format("{} {} ({})", resumed ? "Resumed" : "Started", Name(t), t.experiment_tag));
  s.restart = true;
  SubmitStep(s);
  return Status::Ok();
}

void Runner::SubmitStep(TrialState& s) {
  if (s.restart) {
    // The trial (re)starts on its actor: a new trial, a resumed one, or a new config
    // (PBT), restoring the checkpoint if there is one. Start's errors surface at Step.
    std::map<std::string, Blob> files;
    try {
      if (!s.restore_from.empty()) files = internal::ReadTree(s.restore_from);
    } catch (const std::exception& e) {
      std::string error = "cannot read checkpoint " + s.restore_from + ": " + e.what();
      s.restore_from.clear();
      s.restart = false;
      OnFailure(s, error, false);
      return;
    }
    Json info = {{"trial_id", s.trial.trial_id}, {"experiment_id", experiment_id_}};
    ri::TaskRequest start = ActorCall(s.actor->id, internal::kStart);
    start.args = {ri::TaskArg{false, ri::Pack(s.trial.trainable)},
                  ri::TaskArg{false, ri::Pack(s.trial.config.dump())},
                  ri::TaskArg{false, ri::Pack(info.dump())}, ri::TaskArg{false, ri::Pack(files)}};
    ri::SubmitRaw(start);
    s.restore_from.clear();
    s.restart = false;
  }
  s.step.emplace(ri::SubmitRaw(ActorCall(s.actor->id, internal::kStep))[0]);
}

void Runner::Release(TrialState& s, TrialStatus status) {
  s.trial.status = status;
  s.step.reset();
  if (Actor* a = s.actor) {
    s.actor = nullptr;
    a->trial = nullptr;
    a->stopping.emplace(ri::SubmitRaw(ActorCall(a->id, internal::kStop))[0]);
    if (!spec_.reuse_actors) KillActor(a);
  }
}

Status Runner::Unrunnable(TrialState& s, const std::string& why) {
  s.trial.status = TrialStatus::kError;
  s.trial.error = "trial needs " + Describe(Accounted(s.trial.resources)) +
                  (why.empty() ? " but the cluster has only " + Describe(total_) : ": " + why) +
                  ": lower resources_per_trial, or give the cluster more (--num-cpus, more nodes)";
  Event(fmt::format("Trial {} cannot run: {}", Name(s.trial), s.trial.error));
  scheduler_->OnTrialError(*this, s.trial);
  SearcherComplete(s, s.trial.last_result, true);
  return Status::Ok();
}

// ---------------------------------------------------------------------------
// Results and failures.

Status Runner::OnStepDone(TrialState& s) {
  ray::ObjectRef<std::string> step = std::move(*s.step);
  s.step.reset();
  std::shared_ptr<std::string> text;
  try {
    text = ray::Get(step);
  } catch (const ray::ActorDiedError& e) {
    OnFailure(s, e.what(), true);
    return Status::Ok();
  } catch (const ray::WorkerCrashedError& e) {
    OnFailure(s, e.what(), true);
    return Status::Ok();
  } catch (const ray::RayException& e) {
    OnFailure(s, e.what(), false);
    return Status::Ok();
  }
  Json result = Json::parse(*text, nullptr, false);
  if (!result.is_object()) {
    OnFailure(s, "the trial's result is not a JSON object", false);
    return Status::Ok();
  }
  return OnResult(s, std::move(result));
}

Status Runner::OnResult(TrialState& s, Json result) {
  Trial& t = s.trial;
  t.last_result = result;
  auto iteration = static_cast<int64_t>(NumberOr(result, "training_iteration", 0));
  bool done = Done(result) || ShouldStop(spec_.stop, result) || s.stop_requested;
  Decision decision = Decision::kStop;
  if (done) {
    scheduler_->OnTrialComplete(*this, t, result);
    SearcherComplete(s, result, false);
  } else {
    decision = scheduler_->OnTrialResult(*this, t, result);
    SearcherResult(s, result);
    if (decision == Decision::kStop) SearcherComplete(s, result, false);
  }
  // The trial's last result says it is done, however it ended (as Ray logs it).
  if (decision == Decision::kStop) result["done"] = true;
  RAY_ASSIGN_OR_RETURN(t.last_result, s.logger->Log(std::move(result)));
  bool periodic = spec_.checkpoint_freq > 0 && iteration % spec_.checkpoint_freq == 0;
  bool at_end = decision == Decision::kStop && spec_.checkpoint_at_end;
  // (Not after a PBT exploit: the actor still holds the state it is about to drop.)
  if ((periodic || at_end || decision == Decision::kPause) && !s.restart &&
      t.checkpoint_iteration != iteration) {
    auto saved = Checkpoint(s);
    if (!saved.ok() && decision == Decision::kStop) {
      // The trial is over and its results are in: it ends without that checkpoint.
      AppendError(t, "checkpoint at end failed: " + saved.status().message());
    } else if (!saved.ok()) {
      OnFailure(s, "checkpoint failed: " + saved.status().message(), false);
      return Status::Ok();
    }
  }
  switch (decision) {
    case Decision::kContinue:
      SubmitStep(s);
      break;
    case Decision::kPause:
      s.restore_from = t.checkpoint;
      Release(s, TrialStatus::kPaused);
      Event(fmt::format("Paused {} at iteration {}", Name(t), iteration));
      break;
    case Decision::kStop:
      Release(s, TrialStatus::kTerminated);
      Event(fmt::format("{} {} after {} iterations", done ? "Completed" : "Stopped", Name(t),
                        iteration));
      break;
  }
  return Status::Ok();
}

void Runner::OnFailure(TrialState& s, const std::string& error, bool actor_died) {
  Trial& t = s.trial;
  if (actor_died && s.actor) {
    Actor* a = s.actor;
    s.actor = nullptr;
    KillActor(a);
  }
  ++t.num_failures;
  AppendError(t, fmt::format("failure {}: {}", t.num_failures, error));
  bool recover = spec_.checkpoint_freq > 0 &&
                 (spec_.max_failures < 0 || t.num_failures <= spec_.max_failures);
  if (recover) {
    Release(s, TrialStatus::kPending);
    s.restore_from = t.checkpoint;
    Event(fmt::format("Trial {} failed ({} of {} recoveries), restarting from {}: {}", Name(t),
                      t.num_failures, spec_.max_failures,
                      t.checkpoint.empty() ? std::string("scratch") : t.checkpoint, error));
    return;
  }
  Release(s, TrialStatus::kError);
  t.error = error;
  Event(fmt::format("Trial {} errored: {}", Name(t), error));
  scheduler_->OnTrialError(*this, t);
  SearcherComplete(s, t.last_result, true);
}

// ---------------------------------------------------------------------------
// Checkpoints.

Result<std::string> Runner::Checkpoint(TrialState& s) {
  Trial& t = s.trial;
  if (!s.actor) return Status::FailedPrecondition("trial " + Name(t) + " is not running");
  auto id = ri::SubmitRaw(ActorCall(s.actor->id, internal::kSave))[0];
  std::map<std::string, Blob> files;
  try {
    files = *ray::Get(ray::ObjectRef<std::map<std::string, Blob>>(id));
  } catch (const std::exception& e) {
    return Status::Internal(e.what());
  }
  int64_t iteration = 0;
  if (auto meta = files.find(".tune_metadata"); meta != files.end()) {
    iteration = static_cast<int64_t>(
        NumberOr(Json::parse(meta->second.str(), nullptr, false), "training_iteration", 0));
  }
  std::string dir = fmt::format("{}/checkpoint_{}", t.logdir, iteration);
  std::string tmp = dir + ".tmp";
  std::error_code ec;
  fs::remove_all(tmp, ec);
  fs::create_directories(tmp, ec);
  try {
    internal::WriteTree(tmp, files);
  } catch (const std::exception& e) {
    return Status::ResourceExhausted(std::string("cannot write a checkpoint: ") + e.what());
  }
  fs::remove_all(dir, ec);
  fs::rename(tmp, dir, ec);
  if (ec) return Status::Internal("cannot move " + tmp + " to " + dir + ": " + ec.message());
  t.checkpoint = dir;
  t.checkpoint_iteration = iteration;
  PruneCheckpoints(s);
  return dir;
}

// Keeps the keep_checkpoints_num best checkpoints by checkpoint_score_attr (their
// .tune_metadata iteration, or the result logged at that iteration).
void Runner::PruneCheckpoints(TrialState& s) {
  if (spec_.keep_checkpoints_num <= 0) return;
  std::string attr = spec_.checkpoint_score_attr;
  bool lower_better = attr.rfind("min-", 0) == 0;
  if (lower_better) attr = attr.substr(4);
  // Scores of the trial's results, by iteration.
  std::map<int64_t, double> score;
  if (attr != "training_iteration") {
    auto text = ReadFile(s.trial.logdir + "/result.json");
    if (text.ok()) {
      size_t start = 0;
      while (start < text->size()) {
        size_t end = std::min(text->find('\n', start), text->size());
        Json r = Json::parse(text->substr(start, end - start), nullptr, false);
        if (r.is_object() && r.contains(attr) && r[attr].is_number()) {
          score[static_cast<int64_t>(NumberOr(r, "training_iteration", 0))] = r[attr].get<double>();
        }
        start = end + 1;
      }
    }
  }
  std::vector<std::pair<double, fs::path>> found;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(s.trial.logdir, ec)) {
    std::string name = e.path().filename().string();
    if (!e.is_directory() || name.rfind("checkpoint_", 0) != 0 || name.find('.') != std::string::npos) continue;
    int64_t it = std::atoll(name.c_str() + 11);
    double value = attr == "training_iteration" ? it : (score.count(it) ? score[it] : -1e300);
    found.emplace_back(lower_better ? -value : value, e.path());
  }
  if (found.size() <= static_cast<size_t>(spec_.keep_checkpoints_num)) return;
  std::sort(found.begin(), found.end(), [](auto& a, auto& b) { return a.first > b.first; });
  for (size_t i = spec_.keep_checkpoints_num; i < found.size(); ++i) {
    if (found[i].second == s.trial.checkpoint) continue;  // the latest is needed to recover
    fs::remove_all(found[i].second, ec);
  }
}

Result<std::string> Runner::SaveCheckpoint(Trial& trial) {
  TrialState& s = StateOf(trial);
  if (!s.actor && !trial.checkpoint.empty()) return trial.checkpoint;
  return Checkpoint(s);
}

void Runner::StopTrial(Trial& trial) {
  TrialState& s = StateOf(trial);
  if (s.actor) return;  // running trials stop through their next result's decision
  trial.status = TrialStatus::kTerminated;
  SearcherComplete(s, trial.last_result, false);
  Event(fmt::format("Stopped {} (paused)", Name(trial)));
}

Status Runner::ResetTrial(Trial& trial, Json new_config, std::string new_tag,
                          const std::string& checkpoint) {
  TrialState& s = StateOf(trial);
  trial.config = std::move(new_config);
  trial.experiment_tag = std::move(new_tag);
  if (s.logger) RAY_RETURN_IF_ERROR(s.logger->SetConfig(trial.config));
  s.restore_from = checkpoint;
  s.restart = s.actor != nullptr;
  return Status::Ok();
}

// ---------------------------------------------------------------------------
// The loop.

Result<Resources> Runner::ResourcesFor(const std::string& trainable, const Json& config) {
  if (!spec_.resources_per_trial.empty()) return spec_.resources_per_trial;
  if (resource_request_) {
    RAY_ASSIGN_OR_RETURN(auto requested, resource_request_(trainable, config));
    if (requested) {
      auto parsed = ParseTrialResources(*requested);
      if (!parsed.ok()) {
        return Status::InvalidArgument(trainable + "'s DefaultResourceRequest: " +
                                       parsed.status().message());
      }
      return parsed;
    }
  }
  return Resources{{"CPU", 1}};
}

Status Runner::AddTrials() {
  size_t waiting = 0;
  for (const auto& s : trials_) waiting += s->trial.status == TrialStatus::kPending;
  // Enough pending trials to fill the cluster, and no more: a searcher that learns
  // from results suggests later configs with more knowledge.
  Resources typical = trials_.empty() ? Resources{{"CPU", 1}} : trials_.back()->trial.resources;
  size_t slots = SIZE_MAX;
  for (const auto& [name, amount] : Accounted(typical)) {
    if (amount > 0) slots = std::min(slots, static_cast<size_t>(total_[name] / amount));
  }
  slots = std::max<size_t>(1, std::min<size_t>(slots, 1 << 16));
  while (waiting < slots && !searcher_->Finished()) {
    RAY_ASSIGN_OR_RETURN(auto next, searcher_->Next());
    if (!next) break;
    RAY_RETURN_IF_ERROR(NewTrial(std::move(next->config), next->tag,
                                 static_cast<int>(trials_.size()) - first_index_).status());
    ++waiting;
  }
  return Status::Ok();
}

Result<Trial*> Runner::NewTrial(Json config, const std::string& tag, int searcher_index) {
  auto s = std::make_unique<TrialState>();
  Trial& t = s->trial;
  t.index = static_cast<int>(trials_.size());
  t.trial_id = ToHex(RandomBytes(4));
  t.trainable = spec_.trainable;
  t.experiment_tag = tag.empty() ? std::to_string(t.index) : fmt::format("{}_{}", t.index, tag);
  t.config = std::move(config);
  RAY_ASSIGN_OR_RETURN(t.resources, ResourcesFor(t.trainable, t.config));
  // Ray's trial names carry the env, when the config has one (PPO_CartPole-v1_0...).
  std::string env = t.config.is_object() && t.config.contains("env") && t.config["env"].is_string()
                        ? "_" + Sanitize(t.config["env"].get<std::string>(), 40)
                        : "";
  t.logdir = fmt::format("{}/{}{}_{}_{}", dir_, Sanitize(t.trainable, 40), env,
                         Sanitize(t.experiment_tag, 80), t.trial_id);
  s->searcher_index = searcher_index;
  s->restore_from = spec_.restore;
  trials_.push_back(std::move(s));
  scheduler_->OnTrialAdd(*this, t);
  return &t;
}

// ---------------------------------------------------------------------------
// The Client API.

Json Runner::TrialInfo(const Trial& t) const {
  return {{"id", t.trial_id},
          {"trainable_name", t.trainable},
          {"status", ToString(t.status)},
          {"experiment_tag", t.experiment_tag},
          {"config", t.config},
          {"logdir", t.logdir},
          {"last_result", t.last_result}};
}

Result<Json> Runner::AddClientTrials(const Json& spec) {
  for (auto it = spec.begin(); it != spec.end(); ++it) {
    bool known = it.key() == "config" || it.key() == "num_samples" ||
                 (it.key() == "run" && *it == spec_.trainable);
    if (!known) {
      return Status::InvalidArgument("spec." + it.key() +
                                     ": a client adds trials of this experiment's trainable by "
                                     "config and num_samples only");
    }
  }
  Json space = spec.value("config", Json::object());
  Json samples = spec.value("num_samples", Json(1));
  if (!space.is_object() || !samples.is_number_integer() || samples.get<int64_t>() < 1) {
    return Status::InvalidArgument("spec: config must be an object and num_samples a positive integer");
  }
  RAY_ASSIGN_OR_RETURN(auto variants,
                       MakeVariantGenerator(space, samples.get<int64_t>(), spec_.seed, sample_from_));
  Json ids = Json::array();
  while (!variants->Finished()) {
    RAY_ASSIGN_OR_RETURN(auto next, variants->Next());
    if (!next) break;
    RAY_ASSIGN_OR_RETURN(Trial * t, NewTrial(std::move(next->config), next->tag, -1));
    Event(fmt::format("Added {} for a client", Name(*t)));
    ids.push_back(t->trial_id);
  }
  return Json{{"trial_ids", ids}};
}

void Runner::ServeClients() {
  if (!server_) return;
  // Each request is answered once the trial list it changed is published: a client
  // that reads a trial it just added or stopped finds it as it now is.
  std::vector<std::pair<TuneServer::Request, Result<Json>>> answered;
  for (auto& r : server_->TakeRequests()) {
    if (r.kind == TuneServer::Request::Kind::kAddTrials) {
      Result<Json> added = AddClientTrials(r.spec);
      answered.emplace_back(std::move(r), std::move(added));
      continue;
    }
    auto it = std::find_if(trials_.begin(), trials_.end(),
                           [&](const auto& s) { return s->trial.trial_id == r.trial_id; });
    if (it == trials_.end()) {
      Status missing = Status::NotFound("no trial " + r.trial_id);
      answered.emplace_back(std::move(r), std::move(missing));
      continue;
    }
    Trial& t = (*it)->trial;
    if (t.status == TrialStatus::kRunning) {
      (*it)->stop_requested = true;
      Event(fmt::format("Stopping {} for a client", Name(t)));
    } else if (t.status == TrialStatus::kPending || t.status == TrialStatus::kPaused) {
      scheduler_->OnTrialRemove(*this, t);
      StopTrial(t);
    }
    Json info{{"trial", TrialInfo(t)}};
    answered.emplace_back(std::move(r), std::move(info));
  }
  Json infos = Json::array();
  for (const auto& s : trials_) infos.push_back(TrialInfo(s->trial));
  server_->Publish(std::move(infos));
  for (auto& [r, answer] : answered) r.Answer(std::move(answer));
}

Result<ExperimentOutcome> Runner::Run() {
  total_ = ray::ClusterResources();
  std::printf("Tune: experiment %s in %s\n", spec_.name.c_str(), dir_.c_str());
  std::fflush(stdout);
  while (true) {
    ServeClients();
    RAY_RETURN_IF_ERROR(AddTrials());
    while (Trial* t = scheduler_->ChooseTrialToRun(*this)) {
      TrialState& s = StateOf(*t);
      if (!Fits(Accounted(t->resources), total_)) {
        RAY_RETURN_IF_ERROR(Unrunnable(s));
        continue;
      }
      RAY_RETURN_IF_ERROR(Start(s));
    }
    std::vector<ray::ObjectRef<std::string>> in_flight;
    std::vector<TrialState*> owners;
    for (auto& s : trials_) {
      if (s->step) {
        in_flight.push_back(*s->step);
        owners.push_back(s.get());
      }
    }
    if (in_flight.empty()) {
      bool waiting = std::any_of(trials_.begin(), trials_.end(), [](const auto& s) {
        return s->trial.status == TrialStatus::kPending || s->trial.status == TrialStatus::kPaused;
      });
      if (!waiting && searcher_->Finished()) break;
      if (!waiting) return Status::Internal("the searcher has no config to try and no trial runs");
      // Trials wait for resources held elsewhere (another job): look again soon.
      for (auto& s : trials_) {
        if ((s->trial.status == TrialStatus::kPending || s->trial.status == TrialStatus::kPaused) &&
            !Fits(Accounted(s->trial.resources), total_)) {
          RAY_RETURN_IF_ERROR(Unrunnable(*s));
        }
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
      total_ = ray::ClusterResources();
      continue;
    }
    auto ready = ray::Wait(in_flight, 1, std::chrono::milliseconds(500));
    size_t r = 0;
    for (size_t i = 0; i < in_flight.size() && r < ready.ready.size(); ++i) {
      if (!(in_flight[i] == ready.ready[r])) continue;
      ++r;
      RAY_RETURN_IF_ERROR(OnStepDone(*owners[i]));
    }
    PrintStatus(false);
    RAY_RETURN_IF_ERROR(SaveState(false));
  }
  PrintStatus(true);
  RAY_RETURN_IF_ERROR(SaveState(true));
  std::printf("Tune: %zu trials finished in %.3f s\n", trials_.size(),
              std::chrono::duration<double>(Clock::now() - started_).count());
  while (!actors_.empty()) KillActor(actors_.back().get());
  ExperimentOutcome out;
  out.dir = dir_;
  for (auto& s : trials_) {
    out.errored += s->trial.status == TrialStatus::kError;
    out.trials.push_back(s->trial);
  }
  return out;
}

// ---------------------------------------------------------------------------
// Status and state.

void Runner::PrintStatus(bool final) {
  auto now = Clock::now();
  if (spec_.verbose < 1) return;
  if (!final && now - last_status_ < std::chrono::duration<double>(spec_.status_interval_s)) return;
  last_status_ = now;
  std::map<std::string, int> counts;
  for (const auto& s : trials_) ++counts[ToString(s->trial.status)];
  std::string by_status;
  for (const auto& [status, n] : counts) by_status += fmt::format("{}{} {}", by_status.empty() ? "" : ", ", n, status);
  Resources held = Held();
  std::string out = "== Status ==\n" + scheduler_->DebugString() + "\n";
  out += fmt::format("Resources requested: {}/{} CPUs, {}/{} GPUs\n", held["CPU"], total_["CPU"],
                     held["GPU"], total_["GPU"]);
  out += fmt::format("Result logdir: {}\n", dir_);
  out += fmt::format("Number of trials: {} ({})\n", trials_.size(), by_status);
  // The table: running trials first, at most 20 rows.
  std::vector<const TrialState*> rows;
  for (const auto& s : trials_) rows.push_back(s.get());
  std::stable_sort(rows.begin(), rows.end(), [](auto* a, auto* b) {
    return static_cast<int>(a->trial.status) < static_cast<int>(b->trial.status);
  });
  // Columns for what the trials report: timesteps, the experiment's metric, Ray's usual ones.
  std::vector<std::string> metrics;
  for (const std::string& m : {std::string("timesteps_total"), spec_.metric,
                               std::string("episode_reward_mean"), std::string("episode_reward_min"),
                               std::string("episode_reward_max"), std::string("mean_loss"),
                               std::string("mean_accuracy")}) {
    if (m.empty() || std::find(metrics.begin(), metrics.end(), m) != metrics.end()) continue;
    for (auto* s : rows) {
      if (s->trial.Metric(m).value_or(0) != 0) {
        metrics.push_back(m);
        break;
      }
    }
  }
  const size_t kMaxRows = 20;
  std::vector<std::vector<std::string>> table;
  std::vector<std::string> header = {"Trial name", "status", "params", "iter", "total time (s)"};
  header.insert(header.end(), metrics.begin(), metrics.end());
  table.push_back(header);
  for (size_t i = 0; i < rows.size() && i < kMaxRows; ++i) {
    const Trial& t = rows[i]->trial;
    size_t cut = t.experiment_tag.find('_');
    std::string tag = cut == std::string::npos ? "" : t.experiment_tag.substr(cut + 1);
    std::vector<std::string> row = {Name(t), ToString(t.status), tag.substr(0, 40),
                                    t.last_result.is_object() ? fmt::format("{}", NumberOr(t.last_result, "training_iteration", 0)) : "",
                                    t.last_result.is_object() ? fmt::format("{:.1f}", NumberOr(t.last_result, "time_total_s", 0)) : ""};
    for (const auto& m : metrics) row.push_back(t.Metric(m) ? fmt::format("{:.5g}", *t.Metric(m)) : "");
    table.push_back(row);
  }
  std::vector<size_t> width(header.size());
  for (const auto& row : table) {
    for (size_t c = 0; c < row.size(); ++c) width[c] = std::max(width[c], row[c].size());
  }
  for (const auto& row : table) {
    std::string line;
    for (size_t c = 0; c < row.size(); ++c) line += fmt::format("{:<{}}  ", row[c], width[c]);
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += line + "\n";
  }
  if (rows.size() > kMaxRows) out += fmt::format("... {} more trials not shown\n", rows.size() - kMaxRows);
  std::printf("%s\n", out.c_str());
  std::fflush(stdout);
}

Status Runner::SaveState(bool force) {
  auto now = Clock::now();
  if (!force && now - last_save_ < std::chrono::seconds(1)) return Status::Ok();
  last_save_ = now;
  Json trials = Json::array();
  for (const auto& s : trials_) trials.push_back(s->trial.ToJson());
  Json state = {{"name", spec_.name},
                {"trainable", spec_.trainable},
                {"experiment_id", experiment_id_},
                {"first_trial", first_index_},
                {"timestamp", static_cast<int64_t>(std::time(nullptr))},
                {"spec", spec_.ToJson()},
                {"searcher", searcher_->SaveState()},
                {"trials", std::move(trials)}};
  std::string path = dir_ + "/experiment_state.json";
  RAY_RETURN_IF_ERROR(WriteFile(path + ".tmp", state.dump()));
  std::error_code ec;
  fs::rename(path + ".tmp", path, ec);
  if (ec) return Status::Internal("cannot write " + path + ": " + ec.message());
  return Status::Ok();
}

Status Runner::Load(const Json& state, bool resume) {
  const int first = state.value("first_trial", 0);
  if (resume) {
    experiment_id_ = state.value("experiment_id", experiment_id_);
    if (state.contains("searcher")) RAY_RETURN_IF_ERROR(searcher_->RestoreState(state["searcher"]));
  }
  for (const auto& j : state.value("trials", Json::array())) {
    auto s = std::make_unique<TrialState>();
    try {
      s->trial = Trial::FromJson(j);
    } catch (const std::exception& e) {
      return Status::DataLoss("a trial in the experiment state is malformed: " +
                              std::string(e.what()));
    }
    Trial& t = s->trial;
    t.index = static_cast<int>(trials_.size());
    bool unfinished = t.status != TrialStatus::kTerminated && t.status != TrialStatus::kError;
    if (resume && t.index >= first) {
      // A trial of the run being resumed: it goes on from its last checkpoint.
      s->searcher_index = t.index - first;
      if (unfinished) {
        t.status = TrialStatus::kPending;
        s->restore_from = t.checkpoint;
      }
    } else if (unfinished) {
      // A trial of an earlier run that a new run leaves behind.
      t.status = TrialStatus::kError;
      t.error = "its run ended before it finished, and a new run was started instead of --resume";
    }
    trials_.push_back(std::move(s));
    if (t.status == TrialStatus::kPending) scheduler_->OnTrialAdd(*this, t);
  }
  first_index_ = resume ? first : static_cast<int>(trials_.size());
  return Status::Ok();
}

}  // namespace

std::string ExperimentDir(const ExperimentSpec& spec) {
  fs::path root = spec.local_dir.empty() ? DefaultLocalDir() : spec.local_dir;
  return fs::absolute(root / (spec.name.empty() ? spec.trainable : spec.name))
      .lexically_normal()
      .string();
}

namespace {
Result<Json> LoadState(const std::string& state_file) {
  RAY_ASSIGN_OR_RETURN(std::string text, ReadFile(state_file));
  Json state = Json::parse(text, nullptr, false);
  if (!state.is_object() || !state.contains("spec")) {
    return Status::DataLoss(state_file + " is not an experiment state file");
  }
  return state;
}
}  // namespace

Result<std::optional<ExperimentSpec>> StoredExperiment(const ExperimentSpec& spec) {
  std::string state_file = ExperimentDir(spec) + "/experiment_state.json";
  if (!fs::exists(state_file)) return std::optional<ExperimentSpec>();
  RAY_ASSIGN_OR_RETURN(Json state, LoadState(state_file));
  RAY_ASSIGN_OR_RETURN(ExperimentSpec stored, ExperimentSpec::FromJson(state["spec"]));
  return std::optional<ExperimentSpec>(std::move(stored));
}

Result<std::map<std::string, double>> ParseTrialResources(const Json& r) {
  if (!r.is_object()) return Status::InvalidArgument("resources_per_trial must be a JSON object");
  static const std::map<std::string, std::string> kRay = {
      {"cpu", "CPU"}, {"gpu", "GPU"}, {"extra_cpu", "extra_CPU"}, {"extra_gpu", "extra_GPU"}};
  std::map<std::string, double> out = {{"CPU", 1}};
  for (auto it = r.begin(); it != r.end(); ++it) {
    if (!it->is_number() || it->get<double>() < 0) {
      return Status::InvalidArgument("resources_per_trial." + it.key() +
                                     " must be a non-negative number");
    }
    auto known = kRay.find(it.key());
    out[known == kRay.end() ? it.key() : known->second] = it->get<double>();
  }
  std::erase_if(out, [](const auto& kv) { return kv.second == 0; });
  return out;
}

Result<ExperimentOutcome> RunExperiment(const ExperimentSpec& given, bool resume,
                                        const SampleFromFn& sample_from,
                                        const ResourceRequestFn& resource_request,
                                        TuneServer* server) {
  ExperimentSpec spec = given;
  std::string dir = ExperimentDir(spec);
  if (!spec.restore.empty() && !fs::is_directory(spec.restore)) {
    return Status::InvalidArgument("restore: " + spec.restore +
                                   " is not a checkpoint directory (give a trial's checkpoint_<N>/)");
  }
  if (spec.local_dir.empty()) spec.local_dir = DefaultLocalDir();
  if (spec.name.empty()) spec.name = spec.trainable;
  std::string state_file = dir + "/experiment_state.json";
  Json state;
  if (fs::exists(state_file)) {
    RAY_ASSIGN_OR_RETURN(state, LoadState(state_file));
    if (resume) {
      RAY_ASSIGN_OR_RETURN(spec, ExperimentSpec::FromJson(state["spec"]));
      std::printf("Resuming experiment %s (changes to its spec are ignored)\n", spec.name.c_str());
    }
  } else if (resume) {
    return Status::NotFound("no experiment to resume in " + dir +
                            ": check --name and --local-dir, or run without --resume to start it");
  }
  RAY_RETURN_IF_ERROR(CheckLoggers(spec.loggers));
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return Status::PermissionDenied("cannot create " + dir + ": " + ec.message());

  auto with_defaults = [&](Json config) {
    if (!spec.metric.empty() && !config.contains("metric")) config["metric"] = spec.metric;
    if (!spec.mode.empty() && !config.contains("mode")) config["mode"] = spec.mode;
    return config;
  };
  std::unique_ptr<Searcher> searcher;
  if (spec.search_alg == "variant" || spec.search_alg == "BasicVariantGenerator") {
    for (auto it = spec.search_config.begin(); it != spec.search_config.end(); ++it) {
      if (it.key() != "shuffle" || !it->is_boolean()) {
        return Status::InvalidArgument("search_config." + it.key() +
                                       ": the variant generator takes only \"shuffle\": true|false");
      }
    }
    RAY_ASSIGN_OR_RETURN(searcher, MakeVariantGenerator(spec.config, spec.num_samples, spec.seed,
                                                        sample_from,
                                                        spec.search_config.value("shuffle", false)));
  } else if (spec.search_alg == "tpe" || spec.search_alg == "TPE") {
    RAY_ASSIGN_OR_RETURN(searcher, MakeTpeSearcher(spec.config, with_defaults(spec.search_config),
                                                   spec.num_samples, spec.seed, sample_from));
  } else {
    return Status::InvalidArgument("unknown search algorithm '" + spec.search_alg +
                                   "' (variant, tpe)");
  }
  Json scheduler_config = spec.scheduler == "FIFO" ? spec.scheduler_config
                                                   : with_defaults(spec.scheduler_config);
  RAY_ASSIGN_OR_RETURN(auto scheduler, MakeScheduler(spec.scheduler, scheduler_config, spec.seed));
  Runner runner(spec, dir, std::move(searcher), std::move(scheduler), resource_request,
                sample_from, server);
  if (!state.is_null()) RAY_RETURN_IF_ERROR(runner.Load(state, resume));
  if (server) server->SetRunning(true);
  auto outcome = runner.Run();
  if (server) server->SetRunning(false);
  return outcome;
}

}  // namespace ray::tune
