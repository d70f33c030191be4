// `ray microbenchmark`'s job: Ray's microbenchmark set metric for metric
// (ray_perf.cc), then metrics of our own (extra_metrics.cc), each rate read against
// the hardware floor measured just before. Metrics whose feature this runtime lacks
// are listed as missing, with the reason.
//
//   args: [--quick] [--duration SECONDS] [--repeat N] [--json] [--filter SUBSTRING]
//         [--skip SUBSTRING] [--floor-roundtrips R] [--floor-messages M]

#include <ray/api.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "metric.h"
#include "timing.h"

namespace {

using ray::bench::MetricDef;

struct Settings {
  bool quick = false;
  std::optional<double> duration;  // overrides the timing's interval
  std::optional<int> repeat;       // and its number of measurements
  bool json = false;
  std::string filter;  // only metrics whose name contains it (Ray's TESTS_TO_RUN)
  std::string skip;    // no metric whose name contains it (Ray's TESTS_TO_SKIP)
  // The hardware floor, measured by `ray microbenchmark` just before (0: unknown):
  // raw ZeroMQ round trips and one-way messages per second between two processes.
  double floor_roundtrips = 0;
  double floor_messages = 0;

  ray::bench::Timing Timing() const {
    ray::bench::Timing t = quick ? ray::bench::QuickTiming() : ray::bench::RayTiming();
    if (duration) {
      t.interval_s = *duration;
      if (!quick) t.warmup_s = *duration / 2;  // Ray: 1 s before 2 s measurements
    }
    if (repeat) t.repeat = *repeat;
    return t;
  }
};

const char* kFloorRoundtrips = "zeromq_roundtrips (hardware floor)";
const char* kFloorMessages = "zeromq_one_way_messages (hardware floor)";
const char* kMemcpyFloor = "memcpy_gigabytes (hardware floor)";

std::string JsonString(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      out += buf;
    } else {
      out += c;
    }
  }
  return out + "\"";
}

// Prints results as they come: lines of text, or one JSON array.
class Printer {
 public:
  explicit Printer(bool json) : json_(json) {
    if (json_) std::printf("[");
  }
  ~Printer() {
    if (json_) std::printf("\n]\n");
  }
  void Heading(const std::string& text) {
    if (!json_) std::printf("%s\n", text.c_str());
  }
  void Rate(const std::string& name, const char* kind, ray::bench::Rate r, double floor) {
    if (json_) {
      Open(name, kind);
      std::printf(", \"per_second\": %.2f, \"stddev\": %.2f, \"floor\": %.2f}", r.mean, r.stddev,
                  floor);
    } else if (floor > 0) {
      std::printf("%-55s per second %14.2f +- %-12.2f %5.1f%% of floor %.*f\n", name.c_str(),
                  r.mean, r.stddev, 100 * r.mean / floor, floor >= 100 ? 0 : 2, floor);
    } else {
      std::printf("%-55s per second %14.2f +- %.2f\n", name.c_str(), r.mean, r.stddev);
    }
    std::fflush(stdout);
  }
  // A metric that did not run: `field` is "missing" (no such feature) or "failed".
  void NotRun(const std::string& name, const char* kind, const char* field,
              const std::string& why) {
    if (json_) {
      Open(name, kind);
      std::printf(", %s: %s}", JsonString(field).c_str(), JsonString(why).c_str());
    } else {
      std::printf("%-55s %s: %s\n", name.c_str(), field, why.c_str());
    }
    std::fflush(stdout);
  }

 private:
  void Open(const std::string& name, const char* kind) {
    std::printf("%s\n  {\"name\": %s, \"kind\": \"%s\"", first_ ? "" : ",",
                JsonString(name).c_str(), kind);
    first_ = false;
  }
  bool json_;
  bool first_ = true;
};

// The floor a metric's rate is read against: a sync call is at best a round trip, an
// async one at best a one-way message, a put of bytes at best a memcpy (0: none).
bool FloorsOnMemcpy(const std::string& name) {
  return name.rfind("single_client_put_gigabytes", 0) == 0;
}

double FloorOf(const Settings& s, const std::string& name, double memcpy_gb) {
  if (FloorsOnMemcpy(name)) return memcpy_gb;
  if (name.size() > 5 && name.compare(name.size() - 5, 5, "_sync") == 0) return s.floor_roundtrips;
  if (name.size() > 6 && name.compare(name.size() - 6, 6, "_async") == 0) return s.floor_messages;
  return 0;
}

bool Selected(const Settings& s, const std::string& name) {
  return (s.filter.empty() || name.find(s.filter) != std::string::npos) &&
         (s.skip.empty() || name.find(s.skip) == std::string::npos);
}

// The memcpy floor: 100 MiB copied between two buffers, in GB/s.
ray::bench::Rate MeasureMemcpy(const ray::bench::Timing& timing) {
  constexpr size_t kBytes = size_t{100} << 20;
  std::string src(kBytes, 'y'), dst(kBytes, 'z');
  ray::bench::Body body;
  body.call = [&] { std::memcpy(dst.data(), src.data(), kBytes); };
  return ray::bench::Measure(timing, kBytes / 1e9, body);
}

// Releases a metric's actors however its measurement ended.
struct DoneGuard {
  const std::function<void()>& done;
  ~DoneGuard() {
    if (!done) return;
    try {
      done();
    } catch (const std::exception& e) {
      std::fprintf(stderr, "microbenchmark: cleaning up: %s\n", e.what());
    }
  }
};

int Usage(const std::string& arg) {
  std::fprintf(stderr, "microbenchmark: unknown argument '%s'\n", arg.c_str());
  return 2;
}

}  // namespace

RAY_MAIN(int argc, char** argv) {
  Settings s;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    bool has_value = i + 1 < argc;
    if (a == "--quick") {
      s.quick = true;
    } else if (a == "--duration" && has_value) {
      s.duration = std::atof(argv[++i]);
    } else if (a == "--repeat" && has_value) {
      s.repeat = std::max(1, std::atoi(argv[++i]));
    } else if (a == "--json") {
      s.json = true;
    } else if (a == "--filter" && has_value) {
      s.filter = argv[++i];
    } else if (a == "--skip" && has_value) {
      s.skip = argv[++i];
    } else if (a == "--floor-roundtrips" && has_value) {
      s.floor_roundtrips = std::atof(argv[++i]);
    } else if (a == "--floor-messages" && has_value) {
      s.floor_messages = std::atof(argv[++i]);
    } else {
      return Usage(a);
    }
  }
  std::vector<MetricDef> ray_set = ray::bench::RayMetrics();
  std::vector<MetricDef> extra = ray::bench::ExtraMetrics();
  std::vector<std::string> names = {kFloorRoundtrips, kFloorMessages, kMemcpyFloor};
  for (const auto* set : {&ray_set, &extra}) {
    for (const auto& m : *set) names.push_back(m.name);
  }
  if (std::none_of(names.begin(), names.end(),
                   [&](const std::string& n) { return Selected(s, n); })) {
    std::string all;
    for (const auto& n : names) all += "\n  " + n;
    std::fprintf(stderr,
                 "microbenchmark: --filter '%s' --skip '%s' selects no metric; the metrics "
                 "are:%s\n",
                 s.filter.c_str(), s.skip.c_str(), all.c_str());
    return 2;
  }

  const ray::bench::Timing timing = s.Timing();
  ray::bench::Machine machine{static_cast<int>(std::max(1u, std::thread::hardware_concurrency()))};
  int failures = 0;
  {
    Printer out(s.json);
    char heading[160];
    if (s.quick) {
      std::snprintf(heading, sizeof heading, "Timing: one warm-up call, then %d x %g s (--quick)",
                    timing.repeat, timing.interval_s);
    } else {
      std::snprintf(heading, sizeof heading,
                    "Timing: Ray's (a %g s warm-up, then %d x %g s; mean +- std)", timing.warmup_s,
                    timing.repeat, timing.interval_s);
    }
    out.Heading(heading);
    if (s.floor_roundtrips > 0) {
      out.Rate(kFloorRoundtrips, "floor", {s.floor_roundtrips, 0}, 0);
      out.Rate(kFloorMessages, "floor", {s.floor_messages, 0}, 0);
    }
    double memcpy_gb = 0;
    // Measured when selected, or for the metrics it is the floor of.
    bool memcpy_wanted = std::any_of(names.begin(), names.end(), [&](const std::string& n) {
      return (n == kMemcpyFloor || FloorsOnMemcpy(n)) && Selected(s, n);
    });
    if (memcpy_wanted) {
      ray::bench::Rate r = MeasureMemcpy(timing);
      memcpy_gb = r.mean;
      out.Rate(kMemcpyFloor, "floor", r, 0);
    }
    for (const auto* set : {&ray_set, &extra}) {
      bool ray_metrics = set == &ray_set;
      const char* kind = ray_metrics ? "ray" : "extra";
      out.Heading(ray_metrics ? "Ray's metrics (python/ray/_private/ray_perf.py):"
                              : "Not Ray's metrics (easier variants and our own):");
      for (const MetricDef& m : *set) {
        if (!Selected(s, m.name)) continue;
        if (!m.missing.empty()) {
          out.NotRun(m.name, kind, "missing", m.missing);
          continue;
        }
        try {
          ray::bench::Prepared p = m.make(machine);
          DoneGuard guard{p.done};
          double per_call = p.per_call > 0 ? p.per_call : m.per_call;
          ray::bench::Rate r = ray::bench::Measure(timing, per_call, p.body);
          out.Rate(m.name, kind, r, FloorOf(s, m.name, memcpy_gb));
        } catch (const std::exception& e) {
          out.NotRun(m.name, kind, "failed", e.what());
          ++failures;
        }
      }
    }
  }
  return failures == 0 ? 0 : 1;
}
