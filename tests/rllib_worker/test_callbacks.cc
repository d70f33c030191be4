// A callbacks plugin for the tests (<ray/rllib/callbacks.h>): it counts the callbacks,
// keeps per-episode user data, and reports custom metrics:
//   last_obs      the episode's last raw observation (element 0)
//   steps_seen    on_episode_step calls during the episode + 1 (its start)
//   worker_index  the worker that ran it
//   traj_rows     rows of the episode's postprocessed trajectories (on_postprocess_traj)
//   first_advantage  the advantage of the first row of its last trajectory
// on_postprocess_traj multiplies the advantages by env_config "scale_advantages" (if
// given). on_train_result adds "callbacks_train_results" (how many results it saw). With
// env_config "callbacks_fail" naming a callback, that callback throws.

#include <ray/rllib/callbacks.h>

#include <stdexcept>
#include <string>

namespace {

class TestCallbacks : public ray::rllib::Callbacks {
 public:
  TestCallbacks(const nlohmann::json& config, int worker_index)
      : worker_index_(worker_index),
        fail_(config.value("env_config", nlohmann::json::object()).value("callbacks_fail", "")),
        scale_(config.value("env_config", nlohmann::json::object()).value("scale_advantages", 1.0)) {}

  void OnEpisodeStart(ray::rllib::Episode& e) override {
    Fail("on_episode_start");
    e.user_data["steps"] = 1;
  }
  void OnEpisodeStep(ray::rllib::Episode& e) override {
    Fail("on_episode_step");
    e.user_data["steps"] = e.user_data["steps"].get<int>() + 1;
  }
  void OnEpisodeEnd(ray::rllib::Episode& e) override {
    Fail("on_episode_end");
    e.custom_metrics["last_obs"] = e.last_observation.at(0);
    e.custom_metrics["steps_seen"] = e.user_data.value("steps", 0);
    e.custom_metrics["worker_index"] = worker_index_;
  }
  void OnPostprocessTraj(ray::rllib::Episode& e, ray::rllib::TrajectoryView& t) override {
    Fail("on_postprocess_traj");
    if (t.count <= 0 || t.advantages == nullptr) throw std::logic_error("a trajectory without advantages");
    e.custom_metrics["traj_rows"] += static_cast<double>(t.count);
    e.custom_metrics["first_advantage"] = t.advantages[0];
    for (int64_t i = 0; i < t.count; ++i) t.advantages[i] = static_cast<float>(t.advantages[i] * scale_);
  }
  void OnSampleEnd(const ray::rllib::SampleView& s) override {
    Fail("on_sample_end");
    if (s.count <= 0 || s.obs == nullptr) throw std::logic_error("an empty sample");
  }
  void OnTrainResult(nlohmann::json& result) override {
    Fail("on_train_result");
    result["callbacks_train_results"] = ++train_results_;
  }

 private:
  void Fail(const char* callback) const {
    if (fail_ == callback) throw std::runtime_error(std::string("asked to fail in ") + callback);
  }
  int worker_index_;
  std::string fail_;
  double scale_;
  int train_results_ = 0;
};

}  // namespace

RAY_RLLIB_CALLBACKS(TestCallbacks)
