// Trainables for `tune run`, with a known optimum so that searches can be judged.
//
//   tune run build/plugins/examples/tune_trainables.so --run quadratic
//       --config '{"x": {"grid_search": [0, 1, 2, 3, 4]}, "y": {"uniform": [-5, 5]}}'
//       --num-samples 4 --stop '{"training_iteration": 20}' --metric loss --mode min
//
// quadratic: a model whose loss falls with training towards (x - 3)^2 + (y + 1)^2,
//   so the best config is x = 3, y = -1 and its final loss 0. Checkpointable.
// train_func: Ray's function-API example; mean_accuracy grows with lr and momentum.

#include <ray/tune.h>

#include <cmath>
#include <fstream>

using ray::tune::Json;

class Quadratic : public ray::tune::Trainable {
 public:
  void Setup(const Json& config) override { ResetConfig(config); }

  // One "epoch": the loss approaches the config's floor as 1/sqrt(epochs).
  Json Step() override {
    ++epochs_;
    double floor = (x_ - 3) * (x_ - 3) + (y_ + 1) * (y_ + 1);
    double loss = floor + 10.0 / std::sqrt(static_cast<double>(epochs_));
    return {{"loss", loss}, {"neg_loss", -loss}, {"timesteps_this_iter", 100}};
  }

  void Save(const std::string& dir) override { std::ofstream(dir + "/state") << epochs_; }
  void Restore(const std::string& dir) override { std::ifstream(dir + "/state") >> epochs_; }

  // Takes a new config in place (PBT explores x and y without losing the epochs).
  bool ResetConfig(const Json& config) override {
    x_ = config.value("x", 0.0);
    y_ = config.value("y", 0.0);
    return true;
  }

 private:
  double x_ = 0, y_ = 0;
  int64_t epochs_ = 0;
};
RAY_TUNE_TRAINABLE("quadratic", Quadratic);

void TrainFunc(const Json& config, ray::tune::Reporter& report) {
  double lr = config.value("lr", 0.1), momentum = config.value("momentum", 0.9);
  double accuracy = 0;
  for (int i = 0; i < config.value("iterations", 20); ++i) {
    accuracy += (100 - accuracy) * lr * momentum * 0.1;
    report({{"mean_accuracy", accuracy}, {"timesteps_this_iter", 10}});
  }
}
RAY_TUNE_FUNCTION("train_func", TrainFunc);

// {"sample_from": "half_x"}: y derived from the x already chosen.
Json HalfX(const Json& config) { return config.value("x", 0.0) / 2; }
RAY_TUNE_SAMPLE_FROM("half_x", HalfX);
