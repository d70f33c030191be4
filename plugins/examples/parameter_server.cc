// Ray's parameter-server example: workers pull weights from a parameter-server
// actor, compute gradients of a least-squares problem, and push them back.
//   ray run parameter_server.so   prints the loss falling towards 0

#include <ray/api.h>

#include <cmath>
#include <cstdio>
#include <vector>

using Vector = std::vector<double>;

constexpr int kDim = 10;

// The target the model should learn: w* = (1, 2, ..., kDim).
static Vector Target() {
  Vector w(kDim);
  for (int i = 0; i < kDim; ++i) w[i] = i + 1;
  return w;
}

class ParameterServer {
 public:
  static ParameterServer* Create(double learning_rate) { return new ParameterServer(learning_rate); }
  Vector GetWeights() { return weights_; }
  Vector ApplyGradients(std::vector<Vector> gradients) {
    for (const auto& g : gradients) {
      for (int i = 0; i < kDim; ++i) weights_[i] -= lr_ * g[i] / gradients.size();
    }
    return weights_;
  }

 private:
  explicit ParameterServer(double lr) : weights_(kDim, 0.0), lr_(lr) {}
  Vector weights_;
  double lr_;
};

// Gradient of 0.5 * |w - w*|^2 on one worker's shard (here, the whole target).
Vector ComputeGradient(Vector weights, int seed) {
  Vector target = Target();
  Vector g(kDim);
  for (int i = 0; i < kDim; ++i) g[i] = weights[i] - target[i];
  return g;
}

double Loss(const Vector& w) {
  Vector t = Target();
  double s = 0;
  for (int i = 0; i < kDim; ++i) s += 0.5 * (w[i] - t[i]) * (w[i] - t[i]);
  return s;
}

RAY_REMOTE(ParameterServer::Create, &ParameterServer::GetWeights,
           &ParameterServer::ApplyGradients, ComputeGradient);

RAY_MAIN(int argc, char** argv) {
  constexpr int kWorkers = 4;
  auto ps = ray::Actor(ParameterServer::Create).Remote(0.5);
  auto weights = ps.Task(&ParameterServer::GetWeights).Remote();
  for (int step = 0; step < 10; ++step) {
    std::vector<ray::ObjectRef<Vector>> grads;
    for (int w = 0; w < kWorkers; ++w) grads.push_back(ray::Task(ComputeGradient).Remote(weights, w));
    std::vector<Vector> values;
    for (const auto& g : ray::Get(grads)) values.push_back(*g);
    weights = ps.Task(&ParameterServer::ApplyGradients).Remote(values);
    std::printf("step %d: loss %.6f\n", step, Loss(*ray::Get(weights)));
  }
  return Loss(*ray::Get(weights)) < 1e-3 ? 0 : 1;
}
