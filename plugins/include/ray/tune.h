#pragma once
// Tune trainables in a plugin, run by `tune run plugin.so` (Ray Tune's Trainable
// class API and function API).
//
//   class Quadratic : public ray::tune::Trainable {
//    public:
//     void Setup(const ray::tune::Json& config) override { x_ = config["x"]; }
//     ray::tune::Json Step() override { return {{"mean_loss", (x_ - 3) * (x_ - 3)}}; }
//    private:
//     double x_ = 0;
//   };
//   RAY_TUNE_TRAINABLE("quadratic", Quadratic);
//
//   void Train(const ray::tune::Json& config, ray::tune::Reporter& report) {
//     for (int i = 0; i < 100; ++i) report({{"mean_accuracy", i * config["lr"].get<double>()}});
//   }
//   RAY_TUNE_FUNCTION("train", Train);
//
// Each trial runs in an actor. Step() is one iteration; its result may set any
// field, and Tune fills in the rest (training_iteration, time_this_iter_s,
// time_total_s, timesteps_total, episodes_total, done, pid, hostname, node_ip,
// date, timestamp, trial_id, experiment_id, config). `"done": true` ends the trial.
//
// Checkpoints: Save(dir) writes the trainable's state as files into an empty dir and
// Restore(dir) reads them back, possibly in another process on another node (the
// files travel to the driver, which keeps them under the trial's logdir). Without
// Save/Restore a trial cannot be paused, restored after a failure, or exploited by
// PBT. A function trainable is not checkpointable (as in Ray).
//
// sample_from: a search-space node {"sample_from": "name"} takes its value from
//   RAY_TUNE_SAMPLE_FROM("name", Fn);   // Json Fn(const Json& config_so_far)
// run in the driver after the config's other values are chosen.

#include <ray/api.h>

#include <condition_variable>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>

#include <unistd.h>

#include <nlohmann/json.hpp>

namespace ray::tune {

using Json = nlohmann::json;

class Trainable {
 public:
  virtual ~Trainable() = default;
  // Called once, with the trial's resolved config, before the first Step.
  virtual void Setup(const Json& config) {}
  // One training iteration; returns its result (a JSON object).
  virtual Json Step() = 0;
  // Writes the state into `dir`, an empty directory.
  virtual void Save(const std::string& dir) {
    throw std::logic_error("this trainable cannot be checkpointed (it has no Save)");
  }
  // Reads back what Save wrote.
  virtual void Restore(const std::string& dir) {
    throw std::logic_error("this trainable cannot be restored (it has no Restore)");
  }
  // Takes a new config in place (PBT's explore). false: Tune builds a new instance
  // and calls Setup instead.
  virtual bool ResetConfig(const Json& new_config) { return false; }

  // A class may also say what one trial needs, given its config, when the
  // experiment does not set resources_per_trial (Ray's default_resource_request):
  //   static ray::tune::Json DefaultResourceRequest(const ray::tune::Json& config) {
  //     return {{"cpu", 1}, {"extra_cpu", config.value("num_workers", 2)}};
  //   }
  // "extra_cpu" / "extra_gpu" are held for the actors the trainable starts itself.
  // Without it a trial takes 1 CPU.
};

// Thrown by a Reporter when the trial is being stopped; function trainables let it
// propagate (catching it is harmless: the next report throws again).
struct StopTrial {};

// What a function trainable reports through. Each call hands one result to Tune
// and returns when Tune wants the next one.
class Reporter {
 public:
  virtual ~Reporter() = default;
  virtual void operator()(Json result) = 0;
};

using TrainFunction = void (*)(const Json& config, Reporter& reporter);
using SampleFromFunction = Json (*)(const Json& config);

namespace internal {

struct TuneRegistry {
  std::map<std::string, std::function<std::unique_ptr<Trainable>()>> trainables;
  std::map<std::string, std::function<Json(const Json&)>> resource_requests;
  std::map<std::string, SampleFromFunction> samplers;
  static TuneRegistry& Get() {
    static TuneRegistry r;
    return r;
  }
};

// Marks a Step result that repeats the previous one (a function trainable that
// returned): Tune logs the previous result again with done, counting nothing twice.
constexpr char kDuplicate[] = "__duplicate__";

// Runs a function trainable on its own thread, one report per Step().
class FunctionTrainable : public Trainable, private Reporter {
 public:
  explicit FunctionTrainable(TrainFunction fn) : fn_(fn) {}
  // Stops the function at its next report. One that does not stop (it ignores
  // StopTrial, or computes without reporting) for 30 s takes its worker down with
  // it, as Ray kills the actor: the thread cannot be left running without its state.
  ~FunctionTrainable() override {
    std::unique_lock<std::mutex> lock(mu_);
    stopping_ = true;
    turn_ = kFunction;
    cv_.notify_all();
    if (!thread_.joinable()) return;
    if (!cv_.wait_for(lock, std::chrono::seconds(30), [this] { return finished_; })) {
      std::fprintf(stderr, "a function trainable did not stop within 30 s; its worker exits\n");
      std::_Exit(1);
    }
    lock.unlock();
    thread_.join();
  }
  void Setup(const Json& config) override { config_ = config; }
  Json Step() override {
    std::unique_lock<std::mutex> lock(mu_);
    if (finished_) throw std::logic_error("the function trainable has already returned");
    if (!thread_.joinable()) {
      thread_ = std::thread([this] { Run(); });
    } else {
      turn_ = kFunction;
      cv_.notify_all();
    }
    cv_.wait(lock, [this] { return turn_ == kStep; });
    if (error_) std::rethrow_exception(error_);
    return result_;
  }

 private:
  enum Turn { kFunction, kStep };

  void Run() {
    std::exception_ptr error;
    try {
      fn_(config_, *this);
    } catch (const StopTrial&) {
    } catch (...) {
      error = std::current_exception();
    }
    std::lock_guard<std::mutex> lock(mu_);
    finished_ = true;
    error_ = error;
    // The last result again, marked done (Ray's duplicate result: not counted again).
    result_ = Json{{"done", true}, {kDuplicate, true}};
    turn_ = kStep;
    cv_.notify_all();
  }

  void operator()(Json result) override {
    if (!result.is_object()) throw std::invalid_argument("a report must be a JSON object");
    std::unique_lock<std::mutex> lock(mu_);
    if (stopping_) throw StopTrial{};
    result_ = std::move(result);
    turn_ = kStep;
    cv_.notify_all();
    cv_.wait(lock, [this] { return turn_ == kFunction; });
    if (stopping_) throw StopTrial{};
  }

  TrainFunction fn_;
  Json config_;
  std::thread thread_;
  std::mutex mu_;
  std::condition_variable cv_;
  Turn turn_ = kFunction;
  Json result_ = Json::object();
  std::exception_ptr error_;
  bool finished_ = false;
  bool stopping_ = false;
};

// Fields of every result filled in by the trainable's side of a trial, when the
// trainable has not set them. They survive checkpoints (.tune_metadata).
struct Progress {
  int64_t iteration = 0;
  double time_total_s = 0;
  int64_t timesteps_total = 0;
  int64_t episodes_total = 0;
};

inline std::map<std::string, Blob> ReadTree(const std::string& root) {
  namespace fs = std::filesystem;
  std::map<std::string, Blob> files;
  for (const auto& e : fs::recursive_directory_iterator(root)) {
    if (!e.is_regular_file()) continue;
    std::ifstream in(e.path(), std::ios::binary);
    std::stringstream bytes;
    bytes << in.rdbuf();
    files[fs::relative(e.path(), root).string()] = Blob(bytes.str());
  }
  return files;
}

inline void WriteTree(const std::string& root, const std::map<std::string, Blob>& files) {
  namespace fs = std::filesystem;
  for (const auto& [name, blob] : files) {
    fs::path p = fs::path(root) / name;
    if (name.find("..") != std::string::npos || fs::path(name).is_absolute()) {
      throw std::invalid_argument("bad file name in a checkpoint: " + name);
    }
    fs::create_directories(p.parent_path());
    std::ofstream out(p, std::ios::binary);
    out.write(blob.data(), static_cast<std::streamsize>(blob.size()));
    if (!out) throw std::runtime_error("cannot write " + p.string());
  }
}

// A scratch directory, removed on destruction.
struct ScratchDir {
  ScratchDir() {
    char tmpl[] = "/tmp/ray-tune-XXXXXX";
    if (!::mkdtemp(tmpl)) throw std::runtime_error("cannot create a scratch directory");
    path = tmpl;
  }
  ~ScratchDir() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
  std::string path;
};

// The actor that hosts one trial at a time. The driver starts a trial with Start
// (optionally restoring checkpoint files) and then calls Step repeatedly; an actor
// is reused for the next trial with the same resources.
class TrialActor {
 public:
  static TrialActor* Create() { return new TrialActor(); }

  // A trial begins (or continues, after a restore). Errors surface at the next Step.
  void Start(std::string trainable, std::string config_json, std::string info_json,
             std::map<std::string, Blob> checkpoint) {
    start_error_ = nullptr;
    try {
      Json config = Json::parse(config_json);
      info_ = Json::parse(info_json);
      progress_ = Progress{};
      last_ = Json();
      bool reused = instance_ && trainable == trainable_ && instance_->ResetConfig(config);
      if (!reused) {
        instance_.reset();
        auto& reg = TuneRegistry::Get().trainables;
        auto it = reg.find(trainable);
        if (it == reg.end()) throw std::invalid_argument("no trainable named '" + trainable + "'");
        instance_ = it->second();
        trainable_ = trainable;
        instance_->Setup(config);
      }
      if (!checkpoint.empty()) {
        ScratchDir dir;
        WriteTree(dir.path, checkpoint);
        auto meta = checkpoint.find(".tune_metadata");
        if (meta != checkpoint.end()) {
          Json m = Json::parse(meta->second.str());
          progress_ = Progress{m.value("training_iteration", int64_t{0}),
                               m.value("time_total_s", 0.0), m.value("timesteps_total", int64_t{0}),
                               m.value("episodes_total", int64_t{0})};
          std::filesystem::remove(dir.path + "/.tune_metadata");
        }
        instance_->Restore(dir.path);
      }
    } catch (...) {
      instance_.reset();
      start_error_ = std::current_exception();
    }
  }

  // One iteration: the trainable's result with the auto-filled fields, as JSON.
  std::string Step() {
    if (start_error_) std::rethrow_exception(start_error_);
    if (!instance_) throw std::logic_error("no trial is running in this actor");
    auto begin = std::chrono::steady_clock::now();
    Json r = instance_->Step();
    double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
    if (!r.is_object()) throw std::invalid_argument("Step() must return a JSON object");
    if (r.value(kDuplicate, false)) {
      Json again = last_.is_object() ? last_ : Json::object();
      again["done"] = true;
      return again.dump();
    }
    auto fill = [&](const char* key, Json value) {
      if (!r.contains(key)) r[key] = std::move(value);
    };
    ++progress_.iteration;
    fill("time_this_iter_s", took);
    progress_.time_total_s += r["time_this_iter_s"].is_number() ? r["time_this_iter_s"].get<double>() : took;
    progress_.timesteps_total += r.value("timesteps_this_iter", int64_t{0});
    progress_.episodes_total += r.value("episodes_this_iter", int64_t{0});
    fill("training_iteration", progress_.iteration);
    fill("time_total_s", progress_.time_total_s);
    fill("timesteps_total", progress_.timesteps_total);
    fill("episodes_total", progress_.episodes_total);
    fill("done", false);
    fill("pid", static_cast<int>(::getpid()));
    fill("hostname", Hostname());
    fill("node_ip", NodeIp());
    fill("trial_id", info_.value("trial_id", ""));
    fill("experiment_id", info_.value("experiment_id", ""));
    last_ = r;
    return r.dump();
  }

  // The trainable's checkpoint files, with .tune_metadata for the progress counters.
  std::map<std::string, Blob> Save() {
    if (!instance_) throw std::logic_error("no trial is running in this actor");
    ScratchDir dir;
    instance_->Save(dir.path);
    auto files = ReadTree(dir.path);
    Json meta = {{"training_iteration", progress_.iteration},
                 {"time_total_s", progress_.time_total_s},
                 {"timesteps_total", progress_.timesteps_total},
                 {"episodes_total", progress_.episodes_total}};
    files[".tune_metadata"] = Blob(meta.dump());
    return files;
  }

  // The trial is over here; the actor waits for the next one.
  void Stop() { instance_.reset(); }

 private:
  // The address of the node this actor runs on (looked up once).
  const std::string& NodeIp() {
    if (node_ip_.empty()) {
      std::string me = GetNodeId();
      for (const auto& n : Nodes()) {
        if (n.node_id == me) node_ip_ = n.address;
      }
    }
    return node_ip_;
  }

  static std::string Hostname() {
    char host[256] = {0};
    ::gethostname(host, sizeof(host) - 1);
    return host;
  }

  std::unique_ptr<Trainable> instance_;
  std::string trainable_;
  Json info_ = Json::object();
  Progress progress_;
  Json last_;  // the last result Step returned
  std::exception_ptr start_error_;
  std::string node_ip_;
};

// The registered trainable names, for the driver to check `--run`.
inline std::vector<std::string> Trainables() {
  std::vector<std::string> names;
  for (const auto& [name, make] : TuneRegistry::Get().trainables) names.push_back(name);
  return names;
}

// A trainable's DefaultResourceRequest for a trial's config, as JSON text ("null":
// it has none).
inline std::string ResourceRequest(std::string trainable, std::string config_json) {
  auto& reg = TuneRegistry::Get().resource_requests;
  auto it = reg.find(trainable);
  if (it == reg.end()) return "null";
  return it->second(Json::parse(config_json)).dump();
}

// {"sample_from": name} evaluated on the config resolved so far (JSON text in and out).
inline std::string SampleFrom(std::string name, std::string config_json) {
  auto& reg = TuneRegistry::Get().samplers;
  auto it = reg.find(name);
  if (it == reg.end()) throw std::invalid_argument("no sample_from function named '" + name + "'");
  return it->second(Json::parse(config_json)).dump();
}

// The registered names of the trial actor's methods and the driver's helpers.
constexpr char kCreate[] = "ray::tune::TrialActor::Create";
constexpr char kStart[] = "ray::tune::TrialActor::Start";
constexpr char kStep[] = "ray::tune::TrialActor::Step";
constexpr char kSave[] = "ray::tune::TrialActor::Save";
constexpr char kStop[] = "ray::tune::TrialActor::Stop";
constexpr char kTrainables[] = "ray::tune::Trainables";
constexpr char kSampleFrom[] = "ray::tune::SampleFrom";
constexpr char kResourceRequest[] = "ray::tune::ResourceRequest";

// Registers them once per plugin.
inline bool RegisterTuneRuntime() {
  static const bool done = [] {
    using ::ray::internal::RegisterOne;
    RegisterOne<&TrialActor::Create>(kCreate);
    RegisterOne<&TrialActor::Start>(kStart);
    RegisterOne<&TrialActor::Step>(kStep);
    RegisterOne<&TrialActor::Save>(kSave);
    RegisterOne<&TrialActor::Stop>(kStop);
    RegisterOne<&Trainables>(kTrainables);
    RegisterOne<&SampleFrom>(kSampleFrom);
    RegisterOne<&ResourceRequest>(kResourceRequest);
    return true;
  }();
  return done;
}

template <typename Make>
bool RegisterTrainable(const char* name, Make make) {
  RegisterTuneRuntime();
  TuneRegistry::Get().trainables[name] = std::move(make);
  return true;
}

template <typename Class>
bool RegisterTrainableClass(const char* name) {
  if constexpr (requires(const Json& c) { Class::DefaultResourceRequest(c); }) {
    TuneRegistry::Get().resource_requests[name] = &Class::DefaultResourceRequest;
  }
  return RegisterTrainable(name, [] { return std::unique_ptr<Trainable>(new Class()); });
}

inline bool RegisterSampleFrom(const char* name, SampleFromFunction fn) {
  RegisterTuneRuntime();
  TuneRegistry::Get().samplers[name] = fn;
  return true;
}

}  // namespace internal
}  // namespace ray::tune

// Registers a Trainable subclass (default-constructible) under `name`.
#define RAY_TUNE_TRAINABLE(name, Class)                              \
  static const bool RAY_CONCAT_NAME(ray_tune_trainable_, __LINE__) = \
      ::ray::tune::internal::RegisterTrainableClass<Class>(name)

// Registers a function trainable `void fn(const Json& config, Reporter& report)`.
#define RAY_TUNE_FUNCTION(name, fn)                                                  \
  static const bool RAY_CONCAT_NAME(ray_tune_function_, __LINE__) =                  \
      ::ray::tune::internal::RegisterTrainable(name, [] {                            \
        return std::unique_ptr<::ray::tune::Trainable>(                              \
            new ::ray::tune::internal::FunctionTrainable(fn));                       \
      })

// Registers `Json fn(const Json& config)` for {"sample_from": name} nodes.
#define RAY_TUNE_SAMPLE_FROM(name, fn)                                               \
  static const bool RAY_CONCAT_NAME(ray_tune_sampler_, __LINE__) =                   \
      ::ray::tune::internal::RegisterSampleFrom(name, fn)
