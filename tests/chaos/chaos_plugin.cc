// The chaos suite's job: tasks, nested tasks, an actor and objects of 1 KiB to
// `max_object` bytes, in rounds for `seconds`, while the suite kills processes under
// it. Every result is checked against what it must be; one result a round is kept
// unread until the end.
//   args: <seconds> <max_object_bytes>
// Prints "round=N" as it goes and then: rounds, checked, wrong, and the errors the job
// met by kind (task_errors, actor_errors); wrong must be 0.

#include <ray/api.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "tests/test_util/blob_pattern.h"

namespace {

using ray::testing::Checksum;
using ray::testing::Pattern;

int64_t Square(int64_t x) {
  std::this_thread::sleep_for(std::chrono::milliseconds(10));
  return x * x;
}

// Submits squares of x..x+3 from inside a task and sums them.
int64_t SumOfSquares(int64_t x) {
  std::vector<ray::ObjectRef<int64_t>> parts;
  for (int64_t i = 0; i < 4; ++i) parts.push_back(ray::Task(Square).SetMaxRetries(-1).Remote(x + i));
  int64_t sum = 0;
  for (const auto& p : ray::Get(parts)) sum += *p;
  return sum;
}

ray::Blob MakeBlob(uint64_t size, int seed) { return Pattern(size, seed); }
uint64_t SumBlob(ray::Blob b) { return Checksum(b.data(), b.size()); }

class Echo {
 public:
  static Echo* Create() { return new Echo(); }
  int64_t Twice(int64_t x) { return 2 * x; }
};

}  // namespace

RAY_REMOTE(Square, SumOfSquares, MakeBlob, SumBlob, Echo::Create, &Echo::Twice);

RAY_MAIN(int argc, char** argv) {
  int seconds = argc > 1 ? std::atoi(argv[1]) : 10;
  uint64_t max_object = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : (8ull << 20);
  auto echo = ray::Actor(Echo::Create).SetMaxRestarts(-1).Remote();
  auto end = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
  int rounds = 0;
  long checked = 0, wrong = 0, task_errors = 0, actor_errors = 0;
  auto check = [&](bool ok) {
    ++checked;
    wrong += !ok;
  };
  // One small result a round nobody reads until the end: those that lived only on a
  // node that died must be made again from their lineage.
  std::vector<ray::ObjectRef<ray::Blob>> kept;
  while (std::chrono::steady_clock::now() < end) {
    int64_t base = rounds * 100;
    std::vector<ray::ObjectRef<int64_t>> squares;
    for (int64_t i = 0; i < 20; ++i) squares.push_back(ray::Task(Square).SetMaxRetries(-1).Remote(base + i));
    auto nested = ray::Task(SumOfSquares).SetMaxRetries(-1).Remote(base);
    uint64_t size = uint64_t{1024} << (2 * (rounds % 8));  // 1 KiB, 4 KiB, ... 16 MiB
    if (size > max_object) size = max_object;
    auto made = ray::Task(MakeBlob).SetMaxRetries(-1).Remote(size, rounds);
    kept.push_back(ray::Task(MakeBlob).SetMaxRetries(-1).Remote(uint64_t{64} << 10, -rounds));
    auto sum_made = ray::Task(SumBlob).SetMaxRetries(-1).Remote(made);
    ray::Blob expected = Pattern(size, rounds);
    uint64_t want = Checksum(expected.data(), expected.size());
    auto put = ray::Put(expected);
    auto sum_put = ray::Task(SumBlob).SetMaxRetries(-1).Remote(put);
    try {
      auto got = ray::Get(squares);
      for (int64_t i = 0; i < 20; ++i) check(*got[i] == (base + i) * (base + i));
      int64_t want_nested = 0;
      for (int64_t i = 0; i < 4; ++i) want_nested += (base + i) * (base + i);
      check(*ray::Get(nested) == want_nested);
      check(*ray::Get(sum_made) == want);
      check(*ray::Get(sum_put) == want);
      ray::Blob back = *ray::Get(made);
      check(Checksum(back.data(), back.size()) == want);
    } catch (const ray::RayException& e) {
      ++task_errors;
      std::fprintf(stderr, "round %d: %s\n", rounds, e.what());
    }
    try {
      check(*ray::Get(echo.Task(&Echo::Twice).Remote(base)) == 2 * base);
    } catch (const ray::RayException& e) {
      ++actor_errors;  // a call in flight when the actor's worker died
      std::fprintf(stderr, "round %d: actor: %s\n", rounds, e.what());
    }
    std::printf("round=%d\n", ++rounds);
    std::fflush(stdout);
  }
  // Read where they are (by tasks), then here.
  std::vector<ray::ObjectRef<uint64_t>> sums;
  for (const auto& k : kept) sums.push_back(ray::Task(SumBlob).SetMaxRetries(-1).Remote(k));
  try {
    for (int i = 0; i < static_cast<int>(kept.size()); ++i) {
      ray::Blob want = Pattern(uint64_t{64} << 10, -i);
      check(*ray::Get(sums[i]) == Checksum(want.data(), want.size()));
    }
  } catch (const ray::RayException& e) {
    ++task_errors;
    std::fprintf(stderr, "kept results: %s\n", e.what());
  }
  std::printf("rounds=%d\nchecked=%ld\nwrong=%ld\ntask_errors=%ld\nactor_errors=%ld\n", rounds,
              checked, wrong, task_errors, actor_errors);
  return 0;
}
