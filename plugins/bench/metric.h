#pragma once
// A metric of `ray microbenchmark`: its name, what one call of its body counts for,
// and how to set it up. Set-up (actors, objects) happens only when the metric runs;
// the returned Body owns what it made and `done` releases it.

#include <functional>
#include <string>
#include <vector>

#include "timing.h"

namespace ray::bench {

// What the metrics are sized by: Ray's multiprocessing.cpu_count() (this machine's
// cores, not the cluster's CPUs).
struct Machine {
  int cores = 1;
  int HalfCores() const { return cores / 2 > 0 ? cores / 2 : 1; }  // Ray's n_cpu
};

struct Prepared {
  Body body;
  std::function<void()> done;  // kills the metric's actors (may be empty)
  double per_call = 0;  // set: overrides MetricDef::per_call (sized by the machine)
};

// A metric that is just its call.
inline Prepared JustCall(std::function<void()> call) {
  Prepared p;
  p.body.call = std::move(call);
  return p;
}

struct MetricDef {
  enum class Kind {
    kRay,    // one of Ray's ray_perf.py metrics, with Ray's name, body and size
    kExtra,  // not Ray's: an easier variant or a metric of our own
  };
  std::string name;
  Kind kind = Kind::kRay;
  double per_call = 1;  // Ray's multiplier: operations one call of the body counts for
  std::function<Prepared(const Machine&)> make;
  std::string missing;  // set: a Ray metric whose feature this runtime lacks (why)
};

// Ray's set, in ray_perf.py's order, then Ray Client's (ray_perf.cc).
std::vector<MetricDef> RayMetrics();
// Not Ray's (extra_metrics.cc).
std::vector<MetricDef> ExtraMetrics();

}  // namespace ray::bench
