// The job of the GCS fault-tolerance suite: rounds of short tasks, calls to a named
// actor looked up by name each round (the lookup asks the GCS), objects put and
// passed to tasks, each result checked. After each round it writes the
// round's number to <progress_file> (so the test knows when to act); at the end it
// prints "rounds_ok=<n>", "errors=<n>" and "slowest_round_ms=<ms>" (a figure, not a
// check). Actor state carries across rounds, so a lost or repeated call shows.
//   args: <rounds> <progress_file> [lookup]
// With "lookup" the actor is named and looked up by name every round (the lookup
// needs the GCS); without, it is called through its handle (nothing a round does
// needs the GCS).
//   args: hold <progress_file>
// Puts a 128 KiB object (in shared memory), prints "object=<id>", writes 1 to <progress_file>, and holds
// the object until <progress_file>.go exists (at most 60 s).

#include <ray/api.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <thread>
#include <optional>
#include <string>
#include <vector>

namespace {

int64_t Square(int64_t x) { return x * x; }

int64_t SumOf(std::vector<int64_t> v) {
  int64_t s = 0;
  for (int64_t x : v) s += x;
  return s;
}

class Tally {
 public:
  static Tally* Create() { return new Tally(); }
  int64_t Add(int64_t x) { return total_ += x; }

 private:
  int64_t total_ = 0;
};

}  // namespace

RAY_REMOTE(Square, SumOf, Tally::Create, &Tally::Add);

RAY_MAIN(int argc, char** argv) {
  if (argc == 3 && std::string(argv[1]) == "hold") {
    std::string progress = argv[2];
    auto held = ray::Put(std::vector<int64_t>(1 << 17, 7));
    std::printf("object=%s\n", held.ID().c_str());
    std::fflush(stdout);
    std::ofstream(progress, std::ios::trunc) << 1 << "\n";
    for (int i = 0; i < 600 && !std::ifstream(progress + ".go"); ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    return 0;
  }
  if (argc < 3) {
    std::fprintf(stderr, "usage: <rounds> <progress_file>\n");
    return 2;
  }
  int rounds = std::atoi(argv[1]);
  std::string progress = argv[2];
  constexpr int kTasks = 20;
  const bool lookup = argc > 3 && std::string(argv[3]) == "lookup";
  const std::string name = "gcs_ft_tally";
  auto creator = ray::Actor(Tally::Create);
  if (lookup) creator.SetName(name);
  auto handle = creator.Remote();
  int64_t expected_tally = 0;
  int ok = 0, errors = 0;
  int64_t slowest_ms = 0;
  for (int r = 0; r < rounds; ++r) {
    auto start = std::chrono::steady_clock::now();
    bool good = true;
    std::vector<ray::ObjectRef<int64_t>> refs;
    for (int i = 0; i < kTasks; ++i) refs.push_back(ray::Task(Square).Remote(int64_t{r * 100 + i}));
    auto values = ray::Get(refs);
    for (int i = 0; i < kTasks; ++i) {
      int64_t x = r * 100 + i;
      if (*values[i] != x * x) good = false;
    }
    // 160 KB: in the shared-memory store.
    constexpr int64_t kLen = 20000;
    std::vector<int64_t> v(kLen);
    for (int64_t i = 0; i < kLen; ++i) v[i] = r + i;
    auto put = ray::Put(v);
    int64_t sum = *ray::Get(ray::Task(SumOf).Remote(put));
    if (sum != kLen * r + (kLen - 1) * kLen / 2) good = false;
    expected_tally += r + 1;
    auto tally = lookup ? ray::GetActor<Tally>(name) : std::optional(handle);
    if (!tally || *ray::Get(tally->Task(&Tally::Add).Remote(int64_t{r + 1})) != expected_tally) {
      good = false;
    }
    good ? ++ok : ++errors;
    int64_t ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                     std::chrono::steady_clock::now() - start)
                     .count();
    if (ms > slowest_ms) slowest_ms = ms;
    std::ofstream(progress, std::ios::trunc) << r + 1 << "\n";
  }
  std::printf("rounds_ok=%d\nerrors=%d\nslowest_round_ms=%lld\n", ok, errors,
              static_cast<long long>(slowest_ms));
  return errors == 0 ? 0 : 1;
}
