// Jobs for the multi-node suite. Each case prints "key=value" lines the test checks.
//   args: <case>    cases: placement, spread, objects, gib, readers, actor, owned_elsewhere,
//                   unschedulable,
//                   rounds [seconds] [task_ms], lineage <dir>, lost_put <dir>,
//                   owner_died <dir>, lazy <dir>, third_reader <dir>,
//                   direct_remote <dir>, direct_remote_dies <dir>,
//                   leased_remote <dir>, leased_remote_dies <dir>

#include <ray/api.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <set>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "tests/test_util/blob_pattern.h"

namespace {

using ray::testing::Checksum;
using ray::testing::Pattern;

std::string WhereAmI() { return ray::GetNodeId(); }

std::string SlowWhereAmI(int ms) {
  std::this_thread::sleep_for(std::chrono::milliseconds(ms));
  return ray::GetNodeId();
}

ray::Blob MakeBlob(uint64_t size, int seed) { return Pattern(size, seed); }

uint64_t SumBlob(ray::Blob b) { return Checksum(b.data(), b.size()); }

// Writes `text` to `path`, for the test to see.
void WriteNote(const std::string& path, const std::string& text) {
  std::FILE* f = std::fopen(path.c_str(), "w");
  if (!f) return;
  std::fputs(text.c_str(), f);
  std::fclose(f);
}

// Writes this node's id to `path`: where a task ran.
void NoteNode(const std::string& path) { WriteNote(path, ray::GetNodeId()); }

bool Exists(const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "r");
  if (f) std::fclose(f);
  return f != nullptr;
}

ray::Blob MakeNoted(uint64_t size, int seed, std::string note) {
  NoteNode(note);
  return Pattern(size, seed);
}

// The blob with every byte incremented.
ray::Blob Shifted(ray::Blob b, std::string note) {
  NoteNode(note);
  std::string s(b.data(), b.size());
  for (char& c : s) c = static_cast<char>(c + 1);
  return ray::Blob(std::move(s));
}

// A blob put by a task (not its result): it cannot be made again.
ray::ObjectRef<ray::Blob> PutNoted(std::string note) {
  NoteNode(note);
  return ray::Put(Pattern(1 << 20, 3));
}

// Submits two tasks on this node (the three take its "Lin"; the two no CPU, so that
// both start here at once) and returns their refs
// without waiting: this node owns the results, which live only here.
std::vector<ray::ObjectRef<ray::Blob>> SubmitTwo(std::string dir) {
  NoteNode(dir + "/first");
  std::vector<ray::ObjectRef<ray::Blob>> refs;
  for (int i = 0; i < 2; ++i) {
    refs.push_back(ray::Task(MakeNoted)
                       .SetResource("Lin", 0.25)
                       .SetResource("CPU", 0)  // (the node's CPUs may be taken)
                       .Remote(uint64_t{1} << 20, 20 + i, dir + "/made" + std::to_string(i)));
  }
  return refs;
}

// Waits (at most 60 s) until `path` exists.
void AwaitFile(const std::string& path) {
  for (int i = 0; i < 600 && !Exists(path); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
}

// A blob of `size` bytes (the pattern of `seed`) made on a node with resource "Lin",
// then one made from it (Shifted) on the same node: each takes half of the node's Lin
// and notes its node in <dir>/first and <dir>/second.
std::pair<ray::ObjectRef<ray::Blob>, ray::ObjectRef<ray::Blob>> MakePair(const std::string& dir,
                                                                        uint64_t size, int seed) {
  auto first = ray::Task(MakeNoted).SetResource("Lin", 0.5).Remote(size, seed, dir + "/first");
  AwaitFile(dir + "/first");
  auto second = ray::Task(Shifted).SetResource("Lin", 0.5).Remote(first, dir + "/second");
  return {first, second};
}

// Whether a pair's first is the pattern of `seed`, and its second that shifted.
std::pair<bool, bool> PairIntact(const ray::Blob& a, const ray::Blob& b, uint64_t size, int seed) {
  ray::Blob expected = Pattern(size, seed);
  bool first_ok = Checksum(a.data(), a.size()) == Checksum(expected.data(), expected.size());
  bool second_ok = b.size() == size;
  for (size_t i = 0; second_ok && i < size; ++i) {
    second_ok = b.data()[i] == static_cast<char>(expected.data()[i] + 1);
  }
  return {first_ok, second_ok};
}

// Reads the blob behind refs[0] here (refs inside a value: not fetched before the
// task starts) and says whether it is the pattern of `seed`. With `flood`, first fills
// this node's store with puts, so that a copy of the blob here is evicted.
std::string ReadHere(std::vector<ray::ObjectRef<ray::Blob>> refs, uint64_t size, int seed,
                     bool flood) {
  if (flood) {
    std::vector<ray::ObjectRef<ray::Blob>> puts;
    for (int i = 0; i < 4; ++i) puts.push_back(ray::Put(Pattern(size, 60 + i)));
  }
  try {
    ray::Blob b = *ray::Get(refs[0], std::chrono::seconds(30));
    ray::Blob expected = Pattern(size, seed);
    return Checksum(b.data(), b.size()) == Checksum(expected.data(), expected.size()) ? "intact"
                                                                                   : "CORRUPT";
  } catch (const ray::RayException& e) {
    return e.what();
  }
}

int64_t SlowSquare(int64_t x, int ms) {
  std::this_thread::sleep_for(std::chrono::milliseconds(ms));
  return x * x;
}

int64_t AddOne(int64_t x) { return x + 1; }

// Runs tasks of one CPU and 0.01 "A" for 300 ms, one at a time: the driver leases a
// worker on node "A" for them (asked again every few ms until one is idle there), and
// knows how long they take.
void WarmUpLeaseOnA() {
  auto end = std::chrono::steady_clock::now() + std::chrono::milliseconds(300);
  for (int64_t i = 0; std::chrono::steady_clock::now() < end; ++i) {
    ray::Get(ray::Task(AddOne).SetResource("A", 0.01).Remote(i));
  }
}

// The text of the note at `path` ("" if none).
std::string ReadNote(const std::string& path) {
  std::string text;
  if (std::FILE* f = std::fopen(path.c_str(), "r")) {
    char buf[256];
    while (size_t n = std::fread(buf, 1, sizeof buf, f)) text.append(buf, n);
    std::fclose(f);
  }
  return text;
}

// Notes its node in <dir>/first, then returns it once <dir>/go exists.
std::string NoteAndAwaitGo(std::string dir) {
  std::string node = ray::GetNodeId();  // (asked of the raylet: not once it is stopped)
  WriteNote(dir + "/first", node);
  AwaitFile(dir + "/go");
  return node;
}

// Notes its node in <dir>/first, then sleeps `ms`.
std::string NoteAndSleep(std::string dir, int ms) {
  NoteNode(dir + "/first");
  std::this_thread::sleep_for(std::chrono::milliseconds(ms));
  return ray::GetNodeId();
}

// Whether every result i equals want(i), all within 20 s: "" if so, else "wrong" or
// "timed_out".
template <typename T, typename Want>
std::string AllWithin20s(const std::vector<ray::ObjectRef<T>>& refs, Want want) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  std::string result;
  try {
    for (size_t i = 0; i < refs.size(); ++i) {
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          deadline - std::chrono::steady_clock::now());
      if (*ray::Get(refs[i], std::max(left, std::chrono::milliseconds(1))) != want(i)) result = "wrong";
    }
  } catch (const ray::GetTimeoutError&) {
    result = "timed_out";
  }
  return result;
}

// How a call in flight when its node is killed ended: "returned", "timed_out" (25 s),
// or "<died>:<the message>" when it fails with error E.
template <typename E, typename T>
std::string InFlightOutcome(const ray::ObjectRef<T>& ref, const std::string& died) {
  try {
    ray::Get(ref, std::chrono::seconds(25));
    return "returned";
  } catch (const ray::GetTimeoutError&) {
    return "timed_out";
  } catch (const E& e) {
    return died + ":" + e.what();
  }
}

class Pinned {
 public:
  static Pinned* Create() { return new Pinned(); }
  std::string Node() { return ray::GetNodeId(); }
  int Add(int x) { return total_ += x; }
  ray::Blob Big(uint64_t size, int seed) { return Pattern(size, seed); }
  int SlowAdd(int x, int ms) {
    std::this_thread::sleep_for(std::chrono::milliseconds(ms));
    return total_ += x;
  }

 private:
  int total_ = 0;
};

// An actor that creates a Pinned actor on the "Special" node (another node than its
// own, the head's): the child is its, and shares its fate.
class Maker {
 public:
  static Maker* Create() { return new Maker(); }
  std::string Node() { return ray::GetNodeId(); }
  ray::ActorHandle<Pinned> MakeChild() {
    return ray::Actor(Pinned::Create).SetResource("Special", 1).Remote();
  }
};

// Calls an actor through a handle it was given.
int CallThrough(ray::ActorHandle<Pinned> actor, int x) {
  return *ray::Get(actor.Task(&Pinned::Add).Remote(x));
}

}  // namespace

RAY_REMOTE(Maker::Create, &Maker::Node, &Maker::MakeChild);
RAY_REMOTE(WhereAmI, SlowWhereAmI, MakeBlob, SumBlob, Pinned::Create, &Pinned::Node, &Pinned::Add, &Pinned::SlowAdd, &Pinned::Big,
           CallThrough, SlowSquare, MakeNoted, Shifted, PutNoted, SubmitTwo, ReadHere, AddOne,
           NoteAndAwaitGo, NoteAndSleep);

RAY_MAIN(int argc, char** argv) {
  std::string c = argc > 1 ? argv[1] : "";
  if (c == "placement") {
    std::printf("driver_node=%s\n", ray::GetNodeId().c_str());
    auto special = ray::Task(WhereAmI).SetResource("Special", 1).Remote();
    std::printf("special_node=%s\n", ray::Get(special)->c_str());
    return 0;
  }
  if (c == "spread") {
    // More one-CPU tasks than the head has CPUs: the rest spill to the other node.
    std::vector<ray::ObjectRef<std::string>> refs;
    for (int i = 0; i < 6; ++i) refs.push_back(ray::Task(SlowWhereAmI).Remote(300));
    std::set<std::string> nodes;
    for (const auto& n : ray::Get(refs)) nodes.insert(*n);
    std::printf("distinct_nodes=%zu\n", nodes.size());
    return 0;
  }
  if (c == "objects") {
    // Made on the Special node, read here.
    constexpr uint64_t kSize = 200ull << 20;
    auto remote = ray::Task(MakeBlob).SetResource("Special", 1).Remote(kSize, 7);
    auto blob = ray::Get(remote);
    ray::Blob expected = Pattern(kSize, 7);
    bool same = blob->size() == kSize &&
                Checksum(blob->data(), blob->size()) == Checksum(expected.data(), expected.size());
    std::printf("remote_to_driver=%s\n", same ? "intact" : "CORRUPT");
    // Put here, read there.
    ray::Blob local = Pattern(50ull << 20, 3);
    auto ref = ray::Put(local);
    uint64_t there = *ray::Get(ray::Task(SumBlob).SetResource("Special", 1).Remote(ref));
    std::printf("driver_to_remote=%s\n",
                there == Checksum(local.data(), local.size()) ? "intact" : "CORRUPT");
    return 0;
  }
  if (c == "gib") {
    // One GiB made on the Special node and read here (run by hand; too big for CI).
    constexpr uint64_t kSize = 1ull << 30;
    auto blob = ray::Get(ray::Task(MakeBlob).SetResource("Special", 1).Remote(kSize, 9));
    ray::Blob expected = Pattern(kSize, 9);
    bool same = blob->size() == kSize &&
                Checksum(blob->data(), blob->size()) == Checksum(expected.data(), expected.size());
    std::printf("gib_remote_to_driver=%s\n", same ? "intact" : "CORRUPT");
    return 0;
  }
  if (c == "broadcast") {
    // args: <case> <readers>. One 48 MiB object read at once on nodes "R1".."R<n>":
    // more than a node sends at once, so some wait their turn and (ObjectManager's
    // PullElsewhere) may pull it from a node that has it by then.
    int readers = argc > 2 ? std::stoi(argv[2]) : 6;
    constexpr uint64_t kSize = 48ull << 20;
    auto ref = ray::Put(Pattern(kSize, 11));
    std::vector<ray::ObjectRef<uint64_t>> sums;
    for (int i = 1; i <= readers; ++i) {
      sums.push_back(ray::Task(SumBlob).SetResource("R" + std::to_string(i), 1).Remote(ref));
    }
    ray::Blob expected = Pattern(kSize, 11);
    const uint64_t want = Checksum(expected.data(), expected.size());
    int intact = 0;
    for (const auto& sum : ray::Get(sums)) intact += *sum == want;
    std::printf("object=%s\nbroadcast_intact=%d\n", ref.ID().c_str(), intact);
    return 0;
  }
  if (c == "readers") {
    // Four readers on the other node, one object: one transfer to that node.
    auto ref = ray::Put(Pattern(64ull << 20, 5));
    std::vector<ray::ObjectRef<uint64_t>> sums;
    for (int i = 0; i < 4; ++i) sums.push_back(ray::Task(SumBlob).SetResource("Special", 0.25).Remote(ref));
    std::set<uint64_t> distinct;
    for (const auto& s : ray::Get(sums)) distinct.insert(*s);
    std::printf("object=%s\nreaders_agree=%s\n", ref.ID().c_str(), distinct.size() == 1 ? "yes" : "no");
    return 0;
  }
  if (c == "actor") {
    auto actor = ray::Actor(Pinned::Create).SetResource("Special", 1).Remote();
    std::printf("actor_node=%s\n", ray::Get(actor.Task(&Pinned::Node).Remote())->c_str());
    // The handle travels to a task on the head node, which calls the actor there.
    int first = *ray::Get(actor.Task(&Pinned::Add).Remote(1));
    int second = *ray::Get(ray::Task(CallThrough).Remote(actor, 10));
    std::printf("actor_calls=%d,%d\n", first, second);
    return 0;
  }
  if (c == "owned_elsewhere") {
    // An actor on the head makes one on the Special node; killing the maker kills its
    // child there too (within 10 s).
    // (Placed where the driver is, on the head, which has room for it.)
    auto maker = ray::Actor(Maker::Create).SetResource("CPU", 1).Remote();
    std::printf("maker_node=%s\n", ray::Get(maker.Task(&Maker::Node).Remote())->c_str());
    auto child = *ray::Get(maker.Task(&Maker::MakeChild).Remote());
    std::printf("child_node=%s\n", ray::Get(child.Task(&Pinned::Node).Remote())->c_str());
    maker.Kill();
    std::string after = "alive";
    for (int i = 0; i < 100 && after == "alive"; ++i) {
      try {
        ray::Get(child.Task(&Pinned::Add).Remote(1));
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
      } catch (const ray::ActorDiedError&) {
        after = "died";
      }
    }
    std::printf("child_after_maker_killed=%s\n", after.c_str());
    return 0;
  }
  if (c == "rounds") {
    // Rounds of 40 short tasks and a 4 MiB object made by a task and read by another,
    // for the given number of seconds; every result is checked. The test kills a node
    // while it runs.
    int seconds = argc > 2 ? std::atoi(argv[2]) : 10;
    int task_ms = argc > 3 ? std::atoi(argv[3]) : 20;
    auto end = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
    int rounds = 0, wrong = 0;
    while (std::chrono::steady_clock::now() < end) {
      std::vector<ray::ObjectRef<int64_t>> squares;
      for (int64_t i = 0; i < 40; ++i) squares.push_back(ray::Task(SlowSquare).Remote(i + rounds, task_ms));
      auto blob = ray::Task(MakeBlob).Remote(uint64_t{4} << 20, rounds);
      auto sum = ray::Task(SumBlob).Remote(blob);
      auto got = ray::Get(squares);
      for (int64_t i = 0; i < 40; ++i) wrong += *got[i] != (i + rounds) * (i + rounds);
      ray::Blob expected = Pattern(uint64_t{4} << 20, rounds);
      wrong += *ray::Get(sum) != Checksum(expected.data(), expected.size());
      std::printf("round=%d\n", ++rounds);
      std::fflush(stdout);
    }
    std::printf("rounds=%d\nwrong=%d\n", rounds, wrong);
    return 0;
  }
  if (c == "direct_remote" || c == "direct_remote_dies") {
    // args: <case> <dir>. An actor on node "A" (the driver is on the head), called
    // directly once a blocking Get made the caller ask for its route.
    std::string dir = argc > 2 ? argv[2] : ".";
    auto actor = ray::Actor(Pinned::Create).SetResource("A", 1).Remote();
    WriteNote(dir + "/first", *ray::Get(actor.Task(&Pinned::Node).Remote()));
    // A call after a Get asks for the route (granted once no earlier call of ours is
    // unfinished: one whose result came has ended, though its node's report of that
    // may come later). Five rounds: the SDK does not say which route a call took.
    for (int i = 0; i < 5; ++i) ray::Get(actor.Task(&Pinned::Add).Remote(0));
    if (c == "direct_remote") {
      // Once <dir>/go exists (the test has stopped both raylets), 500 calls, in order.
      std::printf("made\n");
      std::fflush(stdout);
      AwaitFile(dir + "/go");
      std::vector<ray::ObjectRef<int>> sums;
      for (int i = 0; i < 500; ++i) sums.push_back(actor.Task(&Pinned::Add).Remote(1));
      std::string result = AllWithin20s(sums, [](size_t i) { return static_cast<int>(i) + 1; });
      if (result == "wrong") result = "out_of_order";
      std::printf("direct_calls=%s\n", result.empty() ? "in_order" : result.c_str());
      std::fflush(stdout);
      // Once <dir>/resumed exists (the raylets run again): a result too large to come
      // back inline, which the worker leaves in its node's store.
      AwaitFile(dir + "/resumed");
      constexpr uint64_t kBig = 2ull << 20;
      std::string big;
      try {
        auto blob = ray::Get(actor.Task(&Pinned::Big).Remote(kBig, 7), std::chrono::seconds(30));
        big = blob->size() == kBig && Checksum(blob->data(), blob->size()) == Checksum(Pattern(kBig, 7).data(), kBig)
                  ? "intact"
                  : "corrupt";
      } catch (const ray::GetTimeoutError&) {
        big = "timed_out";
      }
      std::printf("big_result=%s\n", big.c_str());
      return 0;
    }
    // A call runs on it (directly) when its node is killed: the call fails, promptly.
    auto slow = actor.Task(&Pinned::SlowAdd).Remote(1, 30000);
    std::printf("made\n");
    std::fflush(stdout);
    std::printf("in_flight_call=%s\n", InFlightOutcome<ray::ActorDiedError>(slow, "actor_died").c_str());
    std::fflush(stdout);
    return 0;
  }
  if (c == "leased_remote") {
    // args: <case> <dir>. Tasks pinned to node "A" (the driver is on the head) go to
    // workers leased there: a first one holds its worker until <dir>/go exists; 500
    // more are sent before that (the test then stops both raylets) and must return.
    std::string dir = argc > 2 ? argv[2] : ".";
    auto on_a = [] { return ray::Task(AddOne).SetResource("A", 0.01); };
    WarmUpLeaseOnA();
    auto held = ray::Task(NoteAndAwaitGo).SetResource("A", 0.01).Remote(dir);
    AwaitFile(dir + "/first");
    std::vector<ray::ObjectRef<int64_t>> sums;
    for (int64_t i = 0; i < 500; ++i) sums.push_back(on_a().Remote(i));
    std::printf("made\n");
    std::fflush(stdout);
    AwaitFile(dir + "/go");
    std::string result = AllWithin20s(sums, [](size_t i) { return static_cast<int64_t>(i) + 1; });
    if (result.empty()) result = AllWithin20s(std::vector{held}, [&](size_t) { return ReadNote(dir + "/first"); });
    std::printf("leased_tasks=%s\n", result.empty() ? "all_returned" : result.c_str());
    std::fflush(stdout);
    return 0;
  }
  if (c == "leased_remote_dies") {
    // args: <case> <dir>. A task without retries runs on a worker leased on node "A"
    // when that node is killed: it fails, promptly.
    std::string dir = argc > 2 ? argv[2] : ".";
    WarmUpLeaseOnA();
    auto slow = ray::Task(NoteAndSleep).SetResource("A", 0.01).SetMaxRetries(0).Remote(dir, 30000);
    AwaitFile(dir + "/first");
    std::printf("made\n");
    std::fflush(stdout);
    std::printf("in_flight_task=%s\n",
                InFlightOutcome<ray::WorkerCrashedError>(slow, "worker_crashed").c_str());
    std::fflush(stdout);
    return 0;
  }
  if (c == "lineage") {
    // args: lineage <dir>. A blob made on a node with resource "Lin", then one made from
    // it on the same node (see MakePair). Once <dir>/go exists (the test has killed
    // that node), both are read here and checked.
    std::string dir = argc > 2 ? argv[2] : ".";
    constexpr uint64_t kSize = 4ull << 20;
    auto [first, second] = MakePair(dir, kSize, 11);
    ray::Wait(std::vector{second}, 1, 60000);  // done, but not fetched here
    std::printf("made\n");
    std::fflush(stdout);
    AwaitFile(dir + "/go");
    auto [first_ok, second_ok] = PairIntact(*ray::Get(first), *ray::Get(second), kSize, 11);
    std::printf("first=%s\nsecond=%s\n", first_ok ? "intact" : "CORRUPT", second_ok ? "intact" : "CORRUPT");
    return 0;
  }
  if (c == "lost_put") {
    // args: lost_put <dir>. A task on a "Lin" node puts a blob and returns its ref; once
    // <dir>/go exists (the test has killed that node), the blob is asked for.
    std::string dir = argc > 2 ? argv[2] : ".";
    auto ref = *ray::Get(ray::Task(PutNoted).SetResource("Lin", 0.5).Remote(dir + "/first"));
    std::printf("made\n");
    std::fflush(stdout);
    AwaitFile(dir + "/go");
    try {
      ray::Get(ref, std::chrono::seconds(60));
      std::printf("lost_put=read\n");
    } catch (const ray::ObjectLostError& e) {
      std::printf("lost_put=%s\n", e.what());
    }
    return 0;
  }
  if (c == "lazy") {
    // args: lazy <dir>. Like lineage, but the driver reads both blobs at once (its
    // node keeps copies), then, once <dir>/go exists (the test has killed the node that
    // made them and seen the head mark it DEAD: with copies on the head nothing was
    // made again), fills the head's small store with puts so that its copies are
    // evicted, lets go of the puts, and reads both again.
    std::string dir = argc > 2 ? argv[2] : ".";
    constexpr uint64_t kSize = 2ull << 20;
    auto made = MakePair(dir, kSize, 12);
    ray::ObjectRef<ray::Blob> first = made.first, second = made.second;
    auto check = [&](const char* when) {
      // second first: made again, it waits for first, which is made again in turn.
      ray::Blob b = *ray::Get(second, std::chrono::seconds(30));
      ray::Blob a = *ray::Get(first, std::chrono::seconds(30));
      auto [first_ok, second_ok] = PairIntact(a, b, kSize, 12);
      std::printf("%s=%s\n", when, first_ok && second_ok ? "intact" : "CORRUPT");
    };
    check("before");
    std::printf("made\n");
    std::fflush(stdout);
    AwaitFile(dir + "/go");
    {
      std::vector<ray::ObjectRef<ray::Blob>> puts;
      for (int i = 0; i < 3; ++i) puts.push_back(ray::Put(Pattern(kSize, 40 + i)));
    }
    try {
      check("after");
    } catch (const ray::RayException& e) {
      std::printf("after=%s\n", e.what());
    }
    return 0;
  }
  if (c == "third_reader") {
    // args: third_reader <dir>. A blob made on a "Lin" node (noted in <dir>/first) is
    // read by a task on the other node (pinned by its resource "A" or "B"). Once
    // <dir>/go exists (the test has killed the first node and seen the head mark it
    // DEAD), a task on the reader's node fills its store, so that its copy is evicted,
    // and reads the blob again: the owner (here) makes it again.
    std::string dir = argc > 2 ? argv[2] : ".";
    constexpr uint64_t kSize = 2ull << 20;
    std::string node_a = *ray::Get(ray::Task(WhereAmI).SetResource("A", 0.1).Remote());
    auto first = ray::Task(MakeNoted).SetResource("Lin", 0.5).Remote(kSize, 13, dir + "/first");
    // (Not waited for here: a Wait would pull a copy. The note may exist before its
    // text does.)
    char made_on[256] = {0};
    for (int i = 0; i < 600 && !made_on[0]; ++i) {
      if (std::FILE* f = std::fopen((dir + "/first").c_str(), "r")) {
        if (!std::fgets(made_on, sizeof made_on, f)) made_on[0] = 0;
        std::fclose(f);
      }
      if (!made_on[0]) std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    const char* reader = node_a == made_on ? "B" : "A";
    std::vector<ray::ObjectRef<ray::Blob>> refs{first};
    auto read = [&](const char* when, bool flood) {
      auto got = ray::Task(ReadHere).SetResource(reader, 0.5).Remote(refs, kSize, 13, flood);
      std::printf("%s=%s\n", when, ray::Get(got, std::chrono::seconds(60))->c_str());
    };
    read("before", false);
    std::printf("made\n");
    std::fflush(stdout);
    AwaitFile(dir + "/go");
    read("after", true);
    return 0;
  }
  if (c == "owner_died") {
    // args: owner_died <dir>. A task on a "Lin" node submits two tasks there and returns
    // their refs (that node owns them; they live only there). Once <dir>/go exists (the
    // test has killed that node), one is waited for and the other read: each must end
    // promptly with the object lost, not at its timeout (30 s).
    std::string dir = argc > 2 ? argv[2] : ".";
    auto refs = *ray::Get(ray::Task(SubmitTwo).SetResource("Lin", 0.5).Remote(dir));
    for (int i = 0; i < 600 && !(Exists(dir + "/made0") && Exists(dir + "/made1")); ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    std::printf("made\n");
    std::fflush(stdout);
    AwaitFile(dir + "/go");
    auto start = std::chrono::steady_clock::now();
    auto seconds = [&] {
      return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    };
    auto waited = ray::Wait(std::vector{refs[0]}, 1, 30000);
    std::printf("wait_ready=%zu\nwait_seconds=%.1f\n", waited.ready.size(), seconds());
    try {
      ray::Get(refs[1], std::chrono::seconds(30));
      std::printf("owner_died=read\n");
    } catch (const ray::ObjectLostError& e) {
      std::printf("owner_died=%s\n", e.what());
    } catch (const ray::GetTimeoutError& e) {
      std::printf("owner_died=timeout: %s\n", e.what());
    }
    std::printf("get_seconds=%.1f\nobject=%s\n", seconds(), refs[1].ID().c_str());
    return 0;
  }
  if (c == "unschedulable") {
    try {
      ray::Get(ray::Task(WhereAmI).SetResource("Nowhere", 1).Remote());
      std::printf("unschedulable=ran\n");
    } catch (const ray::UnschedulableError& e) {
      std::printf("unschedulable=%s\n", e.what());
    }
    return 0;
  }
  std::fprintf(stderr, "unknown case '%s'\n", c.c_str());
  return 2;
}
