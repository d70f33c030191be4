// The job that the integration suite runs: `ray run semantics_plugin.so <case> <dir>`.
// Each case exercises one documented semantic of Ray's core API end to end and
// returns 0 when every check passes. A failed check prints "CHECK FAILED: ..." on
// stderr and makes the job exit 1. <dir> is a scratch directory owned by the test
// (marker files count task attempts and constructor runs across processes).

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <chrono>
#include <thread>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <functional>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <ray/api.h>

#include "tests/test_util/plugin_check.h"

namespace {

// ---------------------------------------------------------------------------
// Helpers.

int64_t NowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

void SleepMs(int ms) {
  timespec ts{ms / 1000, (ms % 1000) * 1000000L};
  while (nanosleep(&ts, &ts) != 0) {
  }
}

// Creates <dir>/<prefix>-<n> for the first free n; returns n (the attempt number, from 1).
int TakeMarker(const std::string& dir, const std::string& prefix) {
  for (int n = 1;; ++n) {
    std::string path = dir + "/" + prefix + "-" + std::to_string(n);
    int fd = ::open(path.c_str(), O_CREAT | O_EXCL | O_WRONLY, 0644);
    if (fd >= 0) {
      ::close(fd);
      return n;
    }
    if (errno != EEXIST) return -1;
  }
}

// Whether <dir>/<prefix>-1 appears within 10 s (TakeMarker makes it).
bool AwaitMarker(std::string dir, std::string prefix) {
  std::string path = dir + "/" + prefix + "-1";
  for (int i = 0; i < 1000; ++i) {
    if (::access(path.c_str(), F_OK) == 0) return true;
    SleepMs(10);
  }
  return false;
}

bool Same(bool b) { return b; }

int CountMarkers(const std::string& dir, const std::string& prefix) {
  int n = 0;
  while (::access((dir + "/" + prefix + "-" + std::to_string(n + 1)).c_str(), F_OK) == 0) ++n;
  return n;
}

uint64_t Checksum(const char* data, size_t size) {
  uint64_t h = 1469598103934665603ULL;
  for (size_t i = 0; i < size; ++i) h = (h ^ static_cast<unsigned char>(data[i])) * 1099511628211ULL;
  return h;
}

std::vector<uint8_t> Pattern(size_t size, uint8_t seed) {
  std::vector<uint8_t> v(size);
  for (size_t i = 0; i < size; ++i) v[i] = static_cast<uint8_t>(i * 31 + seed + (i >> 13));
  return v;
}

// Whether [addr, addr+size) lies inside a mapping of a /dev/shm/ray-* segment of this process.
bool InShmMapping(const void* addr, size_t size) {
  std::ifstream maps("/proc/self/maps");
  std::string line;
  auto p = reinterpret_cast<uintptr_t>(addr);
  while (std::getline(maps, line)) {
    if (line.find("/dev/shm/ray-") == std::string::npos) continue;
    uintptr_t lo = 0, hi = 0;
    if (std::sscanf(line.c_str(), "%lx-%lx", &lo, &hi) != 2) continue;
    if (p >= lo && p + size <= hi) return true;
  }
  return false;
}

// The size of the largest /dev/shm/ray-* mapping of this process (objects' segments,
// not the node's object index).
size_t LargestShmMapping() {
  std::ifstream maps("/proc/self/maps");
  std::string line;
  size_t best = 0;
  while (std::getline(maps, line)) {
    if (line.find("/dev/shm/ray-") == std::string::npos || line.ends_with("-index")) continue;
    uintptr_t lo = 0, hi = 0;
    if (std::sscanf(line.c_str(), "%lx-%lx", &lo, &hi) == 2) best = std::max<size_t>(best, hi - lo);
  }
  return best;
}

// The largest number of [start, end) intervals that overlap at one instant.
int MaxConcurrency(const std::vector<std::pair<int64_t, int64_t>>& spans) {
  std::vector<std::pair<int64_t, int>> events;
  for (const auto& [s, e] : spans) {
    events.push_back({s, +1});
    events.push_back({e, -1});
  }
  std::sort(events.begin(), events.end());  // an end sorts before a start at the same instant
  int now = 0, best = 0;
  for (const auto& [t, d] : events) best = std::max(best, now += d);
  return best;
}


// ---------------------------------------------------------------------------
// Remote functions.

struct Point {
  int x = 0;
  std::string label;
  std::vector<double> weights;
  bool operator==(const Point& o) const { return x == o.x && label == o.label && weights == o.weights; }
  MSGPACK_DEFINE(x, label, weights);
};

int Add2(int a, int b) { return a + b; }
int Increment(int x) { return x + 1; }
int SubExperiment(int i, int j) { return i + j; }
int RunExperiment(int i) {
  std::vector<ray::ObjectRef<int>> results;
  for (int j = 0; j < 10; ++j) results.push_back(ray::Task(SubExperiment).Remote(i, j));
  int sum = 0;
  for (const auto& v : ray::Get(results)) sum += *v;
  return sum;
}
Point MovePoint(Point p, int dx) {
  p.x += dx;
  return p;
}
ray::Returns<int, int, int> ReturnThree() { return {1, 2, 3}; }

int SleepThenReturn(int ms) {
  SleepMs(ms);
  return ms;
}
// Sleeps and reports when it ran, in wall-clock milliseconds.
std::vector<int64_t> Span(int ms) {
  int64_t start = NowMs();
  SleepMs(ms);
  return {start, NowMs()};
}

int Boom() { throw std::runtime_error("boom"); }

int GetPid() { return static_cast<int>(::getpid()); }

// Kills its own worker on the first attempt; later attempts succeed.
int KillOnce(std::string dir) {
  if (TakeMarker(dir, "once") == 1) ::raise(SIGKILL);
  return static_cast<int>(::getpid());
}
// Kills its own worker on every attempt.
int KillAlways(std::string dir, std::string prefix) {
  TakeMarker(dir, prefix);
  ::raise(SIGKILL);
  return 0;
}

int PrintHello(int x) {
  std::printf("hello from task %d\n", x);
  std::fflush(stdout);
  return x;
}

std::vector<uint8_t> MakeBytes(int64_t size, int seed) {
  return Pattern(static_cast<size_t>(size), static_cast<uint8_t>(seed));
}
// The checksum of the bytes, and whether they reached this worker through a shared-memory
// segment at least as large as they are (a value argument moved to the store).
std::pair<uint64_t, bool> ChecksumArg(std::vector<uint8_t> bytes) {
  return {Checksum(reinterpret_cast<const char*>(bytes.data()), bytes.size()),
          LargestShmMapping() >= bytes.size()};
}
// Gets a Blob inside the task: its checksum, and whether its bytes are the shared mapping.
std::pair<uint64_t, bool> ReadBlob(std::vector<ray::ObjectRef<ray::Blob>> refs) {
  auto blob = ray::Get(refs.at(0));
  return {Checksum(blob->data(), blob->size()), InShmMapping(blob->data(), blob->size())};
}

class NotRegisteredHolder {
 public:
  static int NotRegistered(int x) { return x; }
};

// Actors.
class Recorder {
 public:
  static Recorder* Create() { return new Recorder(); }
  std::vector<int> Append(int x) {
    seen_.push_back(x);
    return seen_;
  }

 private:
  std::vector<int> seen_;
};

class Counter {
 public:
  // Leaves a marker in `dir` (when given) each time the constructor runs.
  static Counter* Create(int start, std::string dir) {
    if (!dir.empty()) TakeMarker(dir, "ctor");
    return new Counter(start);
  }
  int Add(int x) { return value_ += x; }
  int Pid() { return static_cast<int>(::getpid()); }
  std::vector<uint8_t> Bytes(int64_t size, int seed) { return Pattern(size, seed); }
  int Throw() { throw std::runtime_error("thrown by a method"); }
  int Die() {
    ::raise(SIGKILL);
    return 0;
  }

 private:
  explicit Counter(int start) : value_(start) {}
  int value_;
};

class Broken {
 public:
  static Broken* Create() { throw std::runtime_error("constructor failed on purpose"); }
  int Ping() { return 1; }
};

// Creates an actor of its own: the child lives only as long as this actor does.
class Parent {
 public:
  static Parent* Create() { return new Parent(); }
  ray::ActorHandle<Counter> MakeChild() {
    child_ = ray::Actor(Counter::Create).Remote(0, std::string());
    return child_;
  }

 private:
  ray::ActorHandle<Counter> child_;
};

// Keeps 200 short tasks in flight (a new one as each ends) until <dir>/served-1
// exists: returns the tasks run, or -1 if 30 s went by first. Leaves
// <dir>/flooding-1 once 2,000 have run.
class Flooder {
 public:
  static Flooder* Create() { return new Flooder(); }
  int Flood(std::string dir) {
    int64_t give_up = NowMs() + 30000;
    std::vector<ray::ObjectRef<int>> window;
    bool marked = false;
    for (int done = 0; NowMs() < give_up;) {
      if (::access((dir + "/served-1").c_str(), F_OK) == 0) return done;
      while (window.size() < 200) window.push_back(ray::Task(Increment).Remote(done));
      auto w = ray::Wait(window, 1);
      done += static_cast<int>(w.ready.size());
      window = std::move(w.unready);
      if (done >= 2000 && !marked) marked = TakeMarker(dir, "flooding") > 0;
    }
    return -1;
  }
};
int Serve(std::string dir) { return TakeMarker(dir, "served"); }

int CallCounter(ray::ActorHandle<Counter> counter, int x) {
  return *ray::Get(counter.Task(&Counter::Add).Remote(x));
}
int CallNamedCounter(std::string name, int x) {
  auto counter = ray::GetActor<Counter>(name);
  if (!counter) throw std::runtime_error("no actor named " + name);
  return *ray::Get(counter->Task(&Counter::Add).Remote(x));
}
bool NamedActorExists(std::string name) { return ray::GetActor<Counter>(name).has_value(); }
int SumRefs(std::vector<ray::ObjectRef<int>> refs) {
  int sum = 0;
  for (const auto& r : refs) sum += *ray::Get(r);
  return sum;
}

RAY_REMOTE(Add2, Increment, SubExperiment, RunExperiment, MovePoint, ReturnThree,
           SleepThenReturn, Span, Boom, GetPid, KillOnce, KillAlways, PrintHello, MakeBytes,
           ChecksumArg, ReadBlob, CallCounter, CallNamedCounter, NamedActorExists, SumRefs,
           AwaitMarker, Same);
RAY_REMOTE(Recorder::Create, &Recorder::Append);
RAY_REMOTE(Counter::Create, &Counter::Add, &Counter::Pid, &Counter::Bytes, &Counter::Throw,
           &Counter::Die);
RAY_REMOTE(Broken::Create, &Broken::Ping);
RAY_REMOTE(Parent::Create, &Parent::MakeChild);
RAY_REMOTE(Flooder::Create, &Flooder::Flood, Serve);

// Small objects a task put, and the ref of a task that failed, made by a task (so
// they live in the raylet, not here).
std::vector<ray::ObjectRef<std::string>> PutStrings(int n) {
  std::vector<ray::ObjectRef<std::string>> refs;
  for (int i = 0; i < n; ++i) refs.push_back(ray::Put("small value " + std::to_string(i)));
  return refs;
}
ray::ObjectRef<int> FailedRef() {
  auto failed = ray::Task(Boom).Remote();
  // (Waited for, so that it has failed before its ref is returned: with one CPU, this
  // Wait lends the CPU the task needs.)
  ray::Wait(std::vector{failed}, 1, -1);
  return failed;
}
// How many of a nested task's results a Wait in this task saw within 20 s.
int WaitForNested() {
  auto nested = ray::Task(Increment).Remote(1);
  return static_cast<int>(ray::Wait(std::vector{nested}, 1, 20000).ready.size());
}
RAY_REMOTE(PutStrings, FailedRef, WaitForNested);

// A task blocked in Wait lends its CPU to the tasks it waits for, as in Get (Ray's
// ray.wait does too). Run with --num-cpus 1.
void NestedWait(const std::string&) {
  CHECK_THAT(*ray::Get(ray::Task(WaitForNested).Remote()) == 1, "the nested task did not run");
}

// The node's object index (#18): Get and Wait read small objects other processes made
// from shared memory, without a message. With the raylet stopped, 1,000 puts of a task
// and a task's error are read here. Run with --num-cpus 1.
void GetsWithoutTheRaylet(const std::string& dir) {
  std::ifstream node(dir + "/../session_latest/node.json");
  std::string json((std::istreambuf_iterator<char>(node)), std::istreambuf_iterator<char>());
  size_t at = json.find("\"raylet_pid\":");
  CHECK_THAT(at != std::string::npos, "no raylet_pid in node.json: " << json);
  const int raylet = std::atoi(json.c_str() + at + std::strlen("\"raylet_pid\":"));
  CHECK_THAT(raylet > 0, json);
  auto refs = *ray::Get(ray::Task(PutStrings).Remote(1000));
  auto failed = *ray::Get(ray::Task(FailedRef).Remote());
  // Resumed by this thread if the reads below hang (they asked the stopped raylet).
  std::atomic<bool> done{false}, hung{false};
  CHECK_THAT(::kill(raylet, SIGSTOP) == 0, "SIGSTOP");
  std::thread watchdog([&] {
    for (int i = 0; i < 200 && !done; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(100));
    if (!done) hung = true;
    ::kill(raylet, SIGCONT);
  });
  std::string wrong;
  auto ready = ray::Wait(refs, refs.size(), 20000);
  if (ready.ready.size() != refs.size()) wrong = "Wait found " + std::to_string(ready.ready.size());
  for (size_t i = 0; i < refs.size() && wrong.empty(); ++i) {
    if (*ray::Get(refs[i]) != "small value " + std::to_string(i)) wrong = "value " + std::to_string(i);
  }
  std::string error;
  try {
    ray::Get(failed);
  } catch (const ray::TaskError& e) {
    error = e.what();
  }
  done = true;
  watchdog.join();
  CHECK_THAT(!hung, "Get or Wait asked the stopped raylet");
  CHECK_THAT(wrong.empty(), wrong);
  CHECK_THAT(error.find("boom") != std::string::npos, "the task's error: '" << error << "'");
}

// More actors than the node starts workers for tasks (max(16, 4 x CPUs)): each gets a
// worker of its own, as in Ray, whose actors are not capped by the task workers' limit.
// Run with --num-cpus 1.
void ManyActors(const std::string&) {
  std::vector<ray::ActorHandle<Counter>> actors;
  for (int i = 0; i < 40; ++i) {
    actors.push_back(ray::Actor(Counter::Create).SetResource("CPU", 0.01).Remote(i, std::string()));
  }
  std::vector<ray::ObjectRef<int>> sums;
  for (auto& a : actors) sums.push_back(a.Task(&Counter::Add).Remote(1));
  for (int i = 0; i < 40; ++i) {
    CHECK_THAT(*ray::Get(sums[i], std::chrono::seconds(30)) == i + 1, "actor " << i);
  }
  for (auto& a : actors) ray::KillActor(a);
  // Tasks still get workers once the actors are gone.
  CHECK_THAT(*ray::Get(ray::Task(Add2).Remote(1, 2)) == 3, "a task after the actors");
}

// Keeps a Blob argument past the call that received it.
class BlobKeeper {
 public:
  static BlobKeeper* Create() { return new BlobKeeper(); }
  bool Keep(ray::Blob blob) {
    kept_ = std::move(blob);
    return InShmMapping(kept_.data(), kept_.size());
  }
  uint64_t Sum() { return Checksum(kept_.data(), kept_.size()); }

 private:
  ray::Blob kept_;
};
RAY_REMOTE(BlobKeeper::Create, &BlobKeeper::Keep, &BlobKeeper::Sum);

// An actor whose calls can be running when its worker is killed.
class Napper {
 public:
  static Napper* Create(std::string dir) { return new Napper(std::move(dir)); }
  int Pid() { return static_cast<int>(::getpid()); }
  // Writes its pid to <dir>/<key>-<n> for the n-th run with this key, sleeps `ms` on
  // the first `sleepy_runs` runs, and returns the pid.
  int Nap(int ms, std::string key, int sleepy_runs) {
    int n = TakeMarker(dir_, key);
    std::ofstream(dir_ + "/" + key + "-" + std::to_string(n)) << Pid();
    if (n <= sleepy_runs) SleepMs(ms);
    return Pid();
  }

 private:
  explicit Napper(std::string dir) : dir_(std::move(dir)) {}
  std::string dir_;
};
RAY_REMOTE(Napper::Create, &Napper::Pid, &Napper::Nap);

// Waits (at most deadline_ms) for the file at `path`; whether it came.
bool AwaitFile(std::string path, int deadline_ms) {
  for (int64_t end = NowMs() + deadline_ms; NowMs() < end; SleepMs(10)) {
    if (::access(path.c_str(), F_OK) == 0) return true;
  }
  return false;
}
bool MakeFile(std::string path) {
  std::ofstream(path) << "written";
  return ::access(path.c_str(), F_OK) == 0;
}
// Two tasks that must run at the same time: each writes its file, then waits for the
// other's (false if it did not come in time).
bool Rendezvous(std::string mine, std::string theirs, int deadline_ms) {
  return MakeFile(mine) && AwaitFile(theirs, deadline_ms);
}
bool MarkThenSleep(std::string path, int ms) {
  MakeFile(path);
  SleepMs(ms);
  return true;
}
// Another caller: runs MarkThenSleep as a task of its own and waits for it.
bool CallerOfMarkThenSleep(std::string path, int ms) {
  return *ray::Get(ray::Task(MarkThenSleep).Remote(path, ms));
}
std::string PathAfter(std::string path, int ms) {
  SleepMs(ms);
  return path;
}
RAY_REMOTE(AwaitFile, MakeFile, Rendezvous, MarkThenSleep, CallerOfMarkThenSleep, PathAfter);

// ---------------------------------------------------------------------------
// Cases.

// CORE-023, 025, 026, 040, 042: objects, arguments, chains and nested tasks.
// Run with --num-cpus 1: nested tasks complete only if a blocked Get lends its CPU back.
void Objects(const std::string&) {
  CHECK_THAT(*ray::Get(ray::Put(42)) == 42, "int");
  CHECK_THAT(*ray::Get(ray::Put(std::string("hello"))) == "hello", "string");
  std::vector<int> v{3, 1, 4, 1, 5};
  CHECK_THAT(*ray::Get(ray::Put(v)) == v, "vector");
  std::map<std::string, int> m{{"a", 1}, {"b", 2}};
  CHECK_THAT(*ray::Get(ray::Put(m)) == m, "map");
  Point p{7, "seven", {0.5, 1.5}};
  CHECK_THAT(*ray::Get(ray::Put(p)) == p, "struct");
  Point moved = *ray::Get(ray::Task(MovePoint).Remote(ray::Put(p), 3));
  CHECK_THAT(moved.x == 10 && moved.label == "seven", "struct through a task: x=" << moved.x);

  std::vector<ray::ObjectRef<int>> refs;
  for (int i = 0; i < 10; ++i) refs.push_back(ray::Put(i));
  std::vector<int> got;
  for (const auto& x : ray::Get(refs)) got.push_back(*x);
  CHECK_THAT(got == std::vector<int>({0, 1, 2, 3, 4, 5, 6, 7, 8, 9}), Str(got));

  int a = *ray::Get(ray::Task(Add2).Remote(1, 2));
  int b = *ray::Get(ray::Task(Add2).Remote(1, ray::Put(2)));
  int c = *ray::Get(ray::Task(Add2).Remote(ray::Put(1), ray::Put(2)));
  CHECK_THAT(a == 3 && b == 3 && c == 3, a << " " << b << " " << c);

  auto x = ray::Task(Increment).Remote(0);
  auto y = ray::Task(Increment).Remote(x);
  auto z = ray::Task(Increment).Remote(y);
  CHECK_THAT(*ray::Get(z) == 3, "chain");

  std::vector<ray::ObjectRef<int>> experiments;
  for (int i = 0; i < 5; ++i) experiments.push_back(ray::Task(RunExperiment).Remote(i));
  std::vector<int> sums;
  for (const auto& s : ray::Get(experiments)) sums.push_back(*s);
  CHECK_THAT(sums == std::vector<int>({45, 55, 65, 75, 85}), Str(sums));
  std::printf("nested: %s\n", Str(sums).c_str());
}

// CORE-024: one ObjectRef per element of Returns<...>.
void MultipleReturns(const std::string&) {
  auto [r1, r2, r3] = ray::Task(ReturnThree).Remote();
  int a = *ray::Get(r1), b = *ray::Get(r2), c = *ray::Get(r3);
  CHECK_THAT(a == 1 && b == 2 && c == 3, a << " " << b << " " << c);
  CHECK_THAT(!(r1 == r2) && !(r2 == r3), "distinct ids");
}

// CORE-045: Wait. Run with --num-cpus 4 so the three sleepers run at once.
void Wait(const std::string&) {
  std::vector<ray::ObjectRef<int>> refs{ray::Task(SleepThenReturn).Remote(1200),
                                        ray::Task(SleepThenReturn).Remote(0),
                                        ray::Task(SleepThenReturn).Remote(400)};
  auto r = ray::Wait(refs, 2);
  CHECK_THAT(r.ready.size() == 2 && r.unready.size() == 1,
             "ready " << r.ready.size() << " unready " << r.unready.size());
  CHECK_THAT(r.ready[0] == refs[1] && r.ready[1] == refs[2], "the two fastest, in input order");
  CHECK_THAT(r.unready[0] == refs[0], "the slowest is unready");

  // Timeouts return early with fewer ready; both forms of timeout.
  std::vector<ray::ObjectRef<int>> slow{ray::Task(SleepThenReturn).Remote(3000),
                                        ray::Task(SleepThenReturn).Remote(0),
                                        ray::Task(SleepThenReturn).Remote(3000)};
  ray::Get(slow[1]);
  int64_t start = NowMs();
  auto t = ray::Wait(slow, 3, 200);
  int64_t took = NowMs() - start;
  CHECK_THAT(t.ready.size() == 1 && t.ready[0] == slow[1], "ready after a timeout: " << t.ready.size());
  CHECK_THAT(t.unready.size() == 2 && t.unready[0] == slow[0] && t.unready[1] == slow[2],
             "unready keep input order");
  CHECK_THAT(took >= 150 && took < 2000, "the timeout of 200 ms took " << took << " ms");
  start = NowMs();
  auto d = ray::Wait(slow, 2, std::chrono::milliseconds(100));
  took = NowMs() - start;
  CHECK_THAT(d.ready.size() == 1 && took < 2000, "chrono timeout: " << d.ready.size() << " in " << took);

  // Everything ready at once: at most `num` reported ready.
  std::vector<ray::ObjectRef<int>> puts{ray::Put(1), ray::Put(2), ray::Put(3)};
  auto all = ray::Wait(puts, 1);
  CHECK_THAT(all.ready.size() == 1 && all.ready[0] == puts[0] && all.unready.size() == 2,
             "num caps ready: " << all.ready.size());

  ExpectThrow<std::invalid_argument>([&] { ray::Wait(puts, 4); }, "num > size");
  auto dup = ExpectThrow<ray::RayException>([&] { ray::Wait(std::vector{puts[0], puts[0]}, 1); },
                                            "duplicate refs");
  CHECK_THAT(std::string(dup.what()).find("unique") != std::string::npos, dup.what());
  // Found even where the answer is known before the second copy is reached.
  ExpectThrow<ray::RayException>([&] { ray::Wait(std::vector{puts[0], puts[1], puts[0]}, 1); },
                                 "a duplicate after the first ready ref");
}

// Get with a timeout throws GetTimeoutError, promptly.
void GetTimeout(const std::string&) {
  auto slow = ray::Task(SleepThenReturn).Remote(1000);
  int64_t start = NowMs();
  ExpectThrow<ray::GetTimeoutError>([&] { ray::Get(slow, std::chrono::milliseconds(200)); },
                                    "Get with a timeout");
  int64_t took = NowMs() - start;
  CHECK_THAT(took >= 150 && took < 900, "took " << took << " ms");
  // The object is still coming: a later Get has it.
  CHECK_THAT(*ray::Get(slow) == 1000, "Get after a timed-out Get");
  CHECK_THAT(*ray::Get(slow, std::chrono::milliseconds(0)) == 1000, "a ready object, no wait");
}

// CORE-043: the task's exception, with type, message, function and location; a
// dependent task fails with the same error.
void TaskError(const std::string&) {
  auto bad = ray::Task(Boom).Remote();
  auto e = ExpectThrow<ray::TaskError>([&] { ray::Get(bad); }, "Get of a failed task");
  CHECK_THAT(e.type().find("std::runtime_error") != std::string::npos, e.type());
  CHECK_THAT(e.message() == "boom", e.message());
  CHECK_THAT(e.task() == "Boom", e.task());
  CHECK_THAT(e.where().find("node") != std::string::npos &&
                 e.where().find("pid") != std::string::npos,
             e.where());
  auto dependent = ray::Task(Increment).Remote(bad);
  auto d = ExpectThrow<ray::TaskError>([&] { ray::Get(dependent); }, "Get of a dependent task");
  CHECK_THAT(d.type() == e.type() && d.message() == "boom", d.type() << ": " << d.message());
}

// Workers that die are retried (max_retries, default 3); with no retries left the
// error is WorkerCrashedError.
void WorkerDeath(const std::string& dir) {
  int pid = *ray::Get(ray::Task(KillOnce).Remote(dir));
  CHECK_THAT(pid > 0 && CountMarkers(dir, "once") == 2, "attempts " << CountMarkers(dir, "once"));

  int64_t start = NowMs();
  auto once = ray::Task(KillAlways).SetMaxRetries(0).Remote(dir, std::string("never"));
  auto e = ExpectThrow<ray::WorkerCrashedError>([&] { ray::Get(once); }, "max_retries=0");
  CHECK_THAT(NowMs() - start < 10000, "took " << NowMs() - start << " ms");
  CHECK_THAT(CountMarkers(dir, "never") == 1, "attempts " << CountMarkers(dir, "never"));
  CHECK_THAT(std::string(e.what()).find("KillAlways") != std::string::npos, e.what());

  auto always = ray::Task(KillAlways).Remote(dir, std::string("always"));
  ExpectThrow<ray::WorkerCrashedError>([&] { ray::Get(always); }, "default retries");
  CHECK_THAT(CountMarkers(dir, "always") == 4, "attempts " << CountMarkers(dir, "always"));
}

std::vector<std::pair<int64_t, int64_t>> RunSpans(int n, int ms,
                                                  const std::map<std::string, double>& res) {
  std::vector<ray::ObjectRef<std::vector<int64_t>>> refs;
  for (int i = 0; i < n; ++i) refs.push_back(ray::Task(Span).SetResources(res).Remote(ms));
  std::vector<std::pair<int64_t, int64_t>> spans;
  for (const auto& s : ray::Get(refs)) spans.push_back({(*s)[0], (*s)[1]});
  return spans;
}

// CORE-061, 063, 064, 093. Run with --num-cpus 2 --resources '{"Custom": 1}'.
void Resources(const std::string&) {
  auto total = ray::ClusterResources();
  CHECK_THAT(total["CPU"] == 2 && total["Custom"] == 1 && !total.count("GPU"),
             "CPU " << total["CPU"] << " Custom " << total["Custom"]);
  auto available = ray::AvailableResources();
  CHECK_THAT(available["CPU"] == 2 && available["Custom"] == 1, "available CPU " << available["CPU"]);

  int64_t start = NowMs();
  auto spans = RunSpans(4, 300, {{"CPU", 1}});
  int64_t took = NowMs() - start;
  int most = MaxConcurrency(spans);
  CHECK_THAT(most <= 2, "CPU 1 tasks on 2 CPUs ran " << most << " at once");
  CHECK_THAT(took >= 580, "four 300 ms tasks on 2 CPUs took " << took << " ms");

  most = MaxConcurrency(RunSpans(4, 1000, {{"CPU", 0.5}}));
  CHECK_THAT(most == 4, "CPU 0.5 tasks on 2 CPUs ran " << most << " at once");

  most = MaxConcurrency(RunSpans(3, 200, {{"CPU", 0.1}, {"Custom", 1}}));
  CHECK_THAT(most == 1, "Custom 1 tasks on Custom 1 ran " << most << " at once");

  start = NowMs();
  auto gpu = ray::Task(GetPid).SetResource("GPU", 1).Remote();
  auto e = ExpectThrow<ray::UnschedulableError>([&] { ray::Get(gpu); }, "a GPU task without GPUs");
  std::printf("unschedulable: %s\n", e.what());
  CHECK_THAT(std::string(e.what()).find("GPU") != std::string::npos, e.what());
  CHECK_THAT(NowMs() - start < 5000, "took " << NowMs() - start << " ms");
  available = ray::AvailableResources();
  CHECK_THAT(available["CPU"] == 2 && available["Custom"] == 1,
             "after the tasks, available CPU " << available["CPU"]);
}

// CORE-052, 055, 057, 058: actors.
void Actors(const std::string& dir) {
  auto rec = ray::Actor(Recorder::Create).Remote();
  std::vector<ray::ObjectRef<std::vector<int>>> calls;
  for (int i = 0; i < 20; ++i) calls.push_back(rec.Task(&Recorder::Append).Remote(i));
  auto results = ray::Get(calls);
  for (int i = 0; i < 20; ++i) {
    CHECK_THAT(static_cast<int>(results[i]->size()) == i + 1 && results[i]->back() == i,
               "call " << i << " saw " << Str(*results[i]));
  }
  std::vector<int> expected(20);
  for (int i = 0; i < 20; ++i) expected[i] = i;
  CHECK_THAT(*results[19] == expected, Str(*results[19]));

  // A handle passed to a task.
  auto counter = ray::Actor(Counter::Create).Remote(100, std::string());
  CHECK_THAT(*ray::Get(ray::Task(CallCounter).Remote(counter, 5)) == 105, "handle in a task");
  CHECK_THAT(*ray::Get(counter.Task(&Counter::Add).Remote(1)) == 106, "state shared with the task");

  // Named actors.
  auto named = ray::Actor(Counter::Create).SetName("x").Remote(0, std::string());
  CHECK_THAT(*ray::Get(ray::Task(CallNamedCounter).Remote(std::string("x"), 7)) == 7, "named");
  CHECK_THAT(*ray::Get(named.Task(&Counter::Add).Remote(1)) == 8, "the named actor is the same");
  auto again = ExpectThrow<ray::RayException>(
      [&] { ray::Actor(Counter::Create).SetName("x").Remote(0, std::string()); }, "duplicate name");
  std::printf("duplicate name: %s\n", again.what());
  CHECK_THAT(std::string(again.what()).find("'x'") != std::string::npos, again.what());
  CHECK_THAT(!ray::GetActor<Counter>("no-such-actor").has_value(), "unknown name");
  CHECK_THAT(!*ray::Get(ray::Task(NamedActorExists).Remote(std::string("no-such-actor"))),
             "unknown name from a task");

  // A failing constructor.
  auto broken = ray::Actor(Broken::Create).Remote();
  auto died = ExpectThrow<ray::ActorDiedError>([&] { ray::Get(broken.Task(&Broken::Ping).Remote()); },
                                               "method of an actor whose constructor threw");
  CHECK_THAT(std::string(died.what()).find("constructor failed on purpose") != std::string::npos,
             died.what());

  // Kill.
  auto victim = ray::Actor(Counter::Create).Remote(0, std::string());
  CHECK_THAT(*ray::Get(victim.Task(&Counter::Add).Remote(1)) == 1, "victim alive");
  victim.Kill();
  ExpectThrow<ray::ActorDiedError>([&] { ray::Get(victim.Task(&Counter::Add).Remote(1)); },
                                   "method after Kill");
  ExpectThrow<ray::ActorDiedError>([&] { ray::Get(victim.Task(&Counter::Add).Remote(1)); },
                                   "second method after Kill");

  // An actor's own actors die with it (Ray's ownership: they share its fate).
  auto parent = ray::Actor(Parent::Create).Remote();
  auto child = *ray::Get(parent.Task(&Parent::MakeChild).Remote());
  CHECK_THAT(*ray::Get(child.Task(&Counter::Add).Remote(1)) == 1, "the child runs");
  parent.Kill();
  bool child_died = false;
  for (int i = 0; i < 50 && !child_died; ++i) {
    try {
      ray::Get(child.Task(&Counter::Add).Remote(1));
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    } catch (const ray::ActorDiedError&) {
      child_died = true;
    }
  }
  CHECK_THAT(child_died, "the child outlived the parent that created it");

  // Restart after the worker dies.
  auto phoenix = ray::Actor(Counter::Create).SetMaxRestarts(1).Remote(10, dir);
  int first_pid = *ray::Get(phoenix.Task(&Counter::Pid).Remote());
  ExpectThrow<ray::ActorDiedError>([&] { ray::Get(phoenix.Task(&Counter::Die).Remote()); },
                                   "the method that killed its worker");
  int second_pid = *ray::Get(phoenix.Task(&Counter::Pid).Remote());
  CHECK_THAT(second_pid != first_pid, "restarted in a new worker");
  CHECK_THAT(CountMarkers(dir, "ctor") == 2, "constructor runs " << CountMarkers(dir, "ctor"));
  CHECK_THAT(*ray::Get(phoenix.Task(&Counter::Add).Remote(1)) == 11, "state from the constructor");
  // max_restarts used up: the next death is final.
  ExpectThrow<ray::ActorDiedError>([&] { ray::Get(phoenix.Task(&Counter::Die).Remote()); },
                                   "second death");
  ExpectThrow<ray::ActorDiedError>([&] { ray::Get(phoenix.Task(&Counter::Add).Remote(1)); },
                                   "after the last restart");
}

// Calls to an actor on the caller's node go straight to its worker once it runs. The
// change of route keeps the calls' order; results reach other processes once their
// refs leave this one (even while still in flight); large results, errors and a Wait
// mixing direct and raylet objects behave as they do through the raylet.
void DirectCalls(const std::string&) {
  auto rec = ray::Actor(Recorder::Create).Remote();
  std::vector<ray::ObjectRef<std::vector<int>>> calls;
  for (int i = 0; i < 300; ++i) {
    calls.push_back(rec.Task(&Recorder::Append).Remote(i));
    if (i % 60 == 59) ray::Get(calls[i - 30]);  // a blocking Get: the route may change next
  }
  auto seen = ray::Get(calls);
  for (int i = 0; i < 300; ++i) {
    CHECK_THAT(static_cast<int>(seen[i]->size()) == i + 1 && seen[i]->back() == i,
               "call " << i << " ran out of order: " << seen[i]->size() << " calls before it");
  }
  // A call waiting in the raylet for its argument keeps later calls off the direct
  // route until it has run.
  // (A new actor: its first call goes through the raylet, as it is not running yet.)
  auto late = ray::Task(SleepThenReturn).Remote(1000);
  auto rec2 = ray::Actor(Recorder::Create).Remote();
  auto waiting = rec2.Task(&Recorder::Append).Remote(late);
  SleepMs(300);                              // rec2 runs now
  ray::Get(ray::Task(Increment).Remote(1));  // a blocking Get: the route is asked again
  auto after = *ray::Get(rec2.Task(&Recorder::Append).Remote(-1));
  CHECK_THAT(after == std::vector<int>({1000, -1}),
             "a call overtook one waiting for its argument: " << Str(after));

  auto counter = ray::Actor(Counter::Create).Remote(0, std::string());
  CHECK_THAT(*ray::Get(counter.Task(&Counter::Add).Remote(0)) == 0, "counter alive");
  // Results in flight, passed on: as an argument, nested in an argument, to an actor.
  auto one = counter.Task(&Counter::Add).Remote(1);
  CHECK_THAT(*ray::Get(ray::Task(Add2).Remote(one, 10)) == 11, "a direct result as an argument");
  auto two = counter.Task(&Counter::Add).Remote(1);
  auto three = counter.Task(&Counter::Add).Remote(1);
  CHECK_THAT(*ray::Get(ray::Task(SumRefs).Remote(std::vector{two, three})) == 5,
             "direct results nested in an argument");
  auto other = ray::Actor(Counter::Create).Remote(100, std::string());
  CHECK_THAT(*ray::Get(other.Task(&Counter::Add).Remote(counter.Task(&Counter::Add).Remote(1))) ==
                 104,
             "a direct result passed to another actor");
  auto boxed = ray::Put(std::vector{counter.Task(&Counter::Add).Remote(1)});
  CHECK_THAT(*ray::Get(ray::Task(SumRefs).Remote(boxed)) == 5, "a direct result inside a put");

  // Large results go through shared memory, to this process and to tasks.
  auto big = counter.Task(&Counter::Bytes).Remote(int64_t{3} << 20, 7);
  CHECK_THAT(*ray::Get(big) == Pattern(size_t{3} << 20, 7), "a 3 MiB result");
  auto sum = *ray::Get(ray::Task(ChecksumArg).Remote(big));
  auto expected = Pattern(size_t{3} << 20, 7);
  CHECK_THAT(sum.first == Checksum(reinterpret_cast<const char*>(expected.data()), expected.size()),
             "a 3 MiB direct result as a task's argument");

  auto e = ExpectThrow<ray::TaskError>([&] { ray::Get(counter.Task(&Counter::Throw).Remote()); },
                                       "a method that throws");
  CHECK_THAT(e.message() == "thrown by a method" && e.task() == "Counter::Throw",
             e.task() << ": " << e.message());
  CHECK_THAT(*ray::Get(counter.Task(&Counter::Add).Remote(0)) == 5, "the actor survives it");

  auto slow = ray::Task(SleepThenReturn).Remote(3000);
  auto fast = counter.Task(&Counter::Add).Remote(0);
  auto w = ray::Wait(std::vector{slow, fast}, 1);
  CHECK_THAT(w.ready.size() == 1 && w.ready[0] == fast, "Wait over a task and a direct call");
  auto none = ray::Wait(std::vector{slow}, 1, 100);
  CHECK_THAT(none.ready.empty(), "Wait with a timeout");

  // Results dropped unread, many of them: the caller keeps nothing of them.
  for (int i = 0; i < 20000; ++i) counter.Task(&Counter::Add).Remote(1);
  CHECK_THAT(*ray::Get(counter.Task(&Counter::Add).Remote(0)) == 20005, "fire and forget");
}

// Normal tasks go straight to workers the raylet leases to the caller. Results,
// errors and large values come back as they do through the raylet; a leased worker
// that dies has its task run again (one retry fewer); and leases end, so that every
// CPU is free again soon after.
void LeasedTasks(const std::string& dir) {
  CHECK_THAT(*ray::Get(ray::Task(Increment).Remote(0)) == 1, "warm-up");  // a worker is idle now
  std::vector<ray::ObjectRef<int>> refs;
  for (int i = 0; i < 3000; ++i) refs.push_back(ray::Task(Increment).Remote(i));
  int64_t sum = 0;
  for (const auto& v : ray::Get(refs)) sum += *v;
  CHECK_THAT(sum == 3000 * 2999 / 2 + 3000, "sum " << sum);
  auto b = ray::Task(Add2).Remote(ray::Task(Increment).Remote(1), ray::Task(Increment).Remote(2));
  CHECK_THAT(*ray::Get(b) == 5, "results in flight passed on");
  auto e = ExpectThrow<ray::TaskError>([&] { ray::Get(ray::Task(Boom).Remote()); }, "Boom");
  CHECK_THAT(e.message() == "boom" && e.task() == "Boom", e.task() << ": " << e.message());
  CHECK_THAT(*ray::Get(ray::Task(MakeBytes).Remote(int64_t{3} << 20, 9)) == Pattern(size_t{3} << 20, 9),
             "a 3 MiB result");

  CHECK_THAT(*ray::Get(ray::Task(KillOnce).Remote(dir)) > 0, "KillOnce");
  CHECK_THAT(CountMarkers(dir, "once") == 2, "attempts " << CountMarkers(dir, "once"));
  ray::Get(ray::Task(Increment).Remote(0));
  auto never = ray::Task(KillAlways).SetMaxRetries(0).Remote(dir, std::string("never"));
  ExpectThrow<ray::WorkerCrashedError>([&] { ray::Get(never); }, "max_retries=0");
  CHECK_THAT(CountMarkers(dir, "never") == 1, "attempts " << CountMarkers(dir, "never"));

  bool freed = false;
  for (int i = 0; i < 100 && !freed; ++i) {
    freed = ray::AvailableResources()["CPU"] == 2;
    if (!freed) SleepMs(20);
  }
  CHECK_THAT(freed, "CPUs still held: " << ray::AvailableResources()["CPU"] << " of 2 free");
}

// A caller that keeps its leased workers busy with a stream of short tasks does not
// starve another caller's task waiting in the raylet's queue: the raylet asks the
// leased workers to yield, and they give their leases back once they have run what
// their caller had sent. (Else the task would wait for the flood to stop: 30 s.)
void LeasesYield(const std::string& dir) {
  auto flooder = ray::Actor(Flooder::Create).Remote();
  auto flood = flooder.Task(&Flooder::Flood).Remote(dir);
  while (CountMarkers(dir, "flooding") == 0) SleepMs(10);
  double free_cpus = ray::AvailableResources()["CPU"];
  auto served = ray::Task(Serve).Remote(dir);
  CHECK_THAT(*ray::Get(served) == 1, "served");
  int ran = *ray::Get(flood);
  CHECK_THAT(ran > 0, "the task waited for the flood to end (" << free_cpus
                              << " CPUs were free when it was submitted)");
}

// CORE-054, 064: an actor holds its resources for its lifetime and releases them when
// it dies; killing an actor that has not started yet also kills it. Run with
// --resources '{"Custom": 1}'.
void ActorResources(const std::string&) {
  auto holder = ray::Actor(Counter::Create).SetResource("Custom", 1).Remote(0, std::string());
  CHECK_THAT(*ray::Get(holder.Task(&Counter::Add).Remote(1)) == 1, "holder runs");
  CHECK_THAT(ray::AvailableResources()["Custom"] == 0, "a live actor holds Custom");

  auto waiting = ray::Actor(Counter::Create).SetResource("Custom", 1).Remote(10, std::string());
  auto call = waiting.Task(&Counter::Add).Remote(1);
  ExpectThrow<ray::GetTimeoutError>([&] { ray::Get(call, std::chrono::milliseconds(300)); },
                                    "an actor waiting for Custom");
  holder.Kill();
  CHECK_THAT(*ray::Get(call, std::chrono::seconds(10)) == 11, "starts once the holder is killed");

  auto pending = ray::Actor(Counter::Create).SetResource("Custom", 1).Remote(0, std::string());
  auto never = pending.Task(&Counter::Add).Remote(1);
  pending.Kill();
  ExpectThrow<ray::ActorDiedError>([&] { ray::Get(never, std::chrono::seconds(10)); },
                                   "a call on an actor killed while pending");
  waiting.Kill();
  ExpectThrow<ray::ActorDiedError>(
      [&] { ray::Get(pending.Task(&Counter::Add).Remote(1), std::chrono::seconds(10)); },
      "the killed pending actor must not start once Custom is free");
}

// max_calls: a worker runs the function at most n times.
void MaxCalls(const std::string&) {
  std::set<int> pids;
  for (int i = 0; i < 3; ++i) pids.insert(*ray::Get(ray::Task(GetPid).SetMaxCalls(1).Remote()));
  CHECK_THAT(pids.size() == 3, "max_calls=1 used " << pids.size() << " workers for 3 calls");
}

// CORE-044: large objects through shared memory.
void LargeObjects(const std::string&) {
  const size_t kSize = 10 << 20;
  auto bytes = Pattern(kSize, 1);
  uint64_t sum = Checksum(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  auto back = ray::Get(ray::Put(bytes));
  CHECK_THAT(back->size() == kSize && *back == bytes, "10 MiB vector round trip");

  auto made = ray::Get(ray::Task(MakeBytes).Remote(static_cast<int64_t>(kSize), 1));
  CHECK_THAT(made->size() == kSize && *made == bytes, "10 MiB task return");

  ray::Blob blob(std::string(reinterpret_cast<const char*>(bytes.data()), bytes.size()));
  auto blob_ref = ray::Put(blob);
  auto mapped = ray::Get(blob_ref);
  CHECK_THAT(Checksum(mapped->data(), mapped->size()) == sum, "Blob round trip");
  CHECK_THAT(InShmMapping(mapped->data(), mapped->size()), "the driver's Get maps the Blob");
  auto [task_sum, task_mapped] = *ray::Get(ray::Task(ReadBlob).Remote(std::vector{blob_ref}));
  CHECK_THAT(task_sum == sum, "Blob read in a task");
  CHECK_THAT(task_mapped, "a task's Get of a Blob points into the shared mapping");
  auto keeper = ray::Actor(BlobKeeper::Create).Remote();
  CHECK_THAT(*ray::Get(keeper.Task(&BlobKeeper::Keep).Remote(blob_ref)),
             "a Blob argument points into the shared mapping");
  CHECK_THAT(*ray::Get(keeper.Task(&BlobKeeper::Sum).Remote()) == sum,
             "a Blob argument kept past its call keeps its bytes");

  auto arg = Pattern(256 << 10, 2);
  auto [arg_sum, via_store] = *ray::Get(ray::Task(ChecksumArg).Remote(arg));
  CHECK_THAT(arg_sum == Checksum(reinterpret_cast<const char*>(arg.data()), arg.size()),
             "large argument by value");
  CHECK_THAT(via_store, "a 256 KiB argument by value reached the task through shared memory");
}

// Objects go when their last ObjectRef does, unless the ref left the process.
// Run with --object-store-memory 300000000: without freeing, the puts overflow it.
void Free(const std::string&) {
  const size_t kSize = 100 << 20;
  for (int i = 0; i < 10; ++i) {
    auto ref = ray::Put(ray::Blob(std::string(kSize, static_cast<char>('a' + i))));
    auto back = ray::Get(ref);
    CHECK_THAT(back->size() == kSize && back->data()[kSize - 1] == 'a' + i, "put #" << i);
  }
  // A value still read here keeps its bytes, though its ref is gone and later puts
  // of the same size reuse freed segments.
  std::shared_ptr<ray::Blob> held;
  {
    auto ref = ray::Put(ray::Blob(std::string(kSize, 'h')));
    held = ray::Get(ref);
  }
  for (int i = 0; i < 3; ++i) ray::Put(ray::Blob(std::string(kSize, 'x')));
  CHECK_THAT(held->data()[0] == 'h' && held->data()[kSize - 1] == 'h', "a held value changed");
  for (int i = 0; i < 5; ++i) {  // task results too, once their refs are gone
    auto made = ray::Get(ray::Task(MakeBytes).Remote(static_cast<int64_t>(kSize), i));
    CHECK_THAT(made->size() == kSize, "task result #" << i);
  }
  // A ref passed to a task escaped: dropping it here keeps the object for the job.
  std::string id;
  {
    auto kept = ray::Put(ray::Blob(std::string(1 << 20, 'k')));
    id = kept.Binary();
    ray::Get(ray::Task(ReadBlob).Remote(std::vector{kept}));
  }
  auto again = ray::Get(ray::ObjectRef<ray::Blob>(id), std::chrono::seconds(10));
  CHECK_THAT(again->size() == 1u << 20 && again->data()[0] == 'k', "an escaped object stays");
}

// Worker output reaches the driver, prefixed with the worker's pid.
void Output(const std::string&) {
  CHECK_THAT(*ray::Get(ray::Task(PrintHello).Remote(1)) == 1, "PrintHello");
}

// Waits (at most 20 s) for the n-th run of Napper::Nap with `key` to begin; its pid.
int AwaitNap(const std::string& dir, const std::string& key, int n) {
  std::string path = dir + "/" + key + "-" + std::to_string(n);
  int pid = 0;
  for (int64_t end = NowMs() + 20000; NowMs() < end && pid <= 0; SleepMs(10)) {
    std::ifstream in(path);
    if (!(in >> pid)) pid = 0;
  }
  CHECK_THAT(pid > 0, "run " << n << " of nap " << key << " did not begin within 20 s");
  return pid;
}

// Kills a worker of this node and waits (at most 20 s) until the raylet has reaped it
// (its parent: the raylet knows of the death then).
void KillAndAwaitReaped(int pid) {
  ::kill(pid, SIGKILL);
  for (int64_t end = NowMs() + 20000; NowMs() < end; SleepMs(10)) {
    if (::kill(pid, 0) != 0) return;
  }
  CHECK_THAT(false, "worker " << pid << " was not reaped within 20 s");
}

// CORE-057 with fault tolerance: after an actor's worker is killed and the actor
// restarts, calls go to the new instance; calls running (or sent) when it died fail
// with ActorDiedError, or run again on the new instance with max_task_retries.
void ActorRestart(const std::string& dir) {
  // A call made a while after the death, the caller idle meanwhile (it heard nothing
  // from the raylet): it reaches the restarted instance.
  auto a = ray::Actor(Napper::Create).SetMaxRestarts(-1).Remote(dir);
  int first = *ray::Get(a.Task(&Napper::Pid).Remote());
  for (int i = 0; i < 3; ++i) {  // by now the calls go straight to the actor's worker
    CHECK_THAT(*ray::Get(a.Task(&Napper::Pid).Remote()) == first, "the same instance");
  }
  KillAndAwaitReaped(first);
  SleepMs(1000);
  int second = 0;
  try {
    second = *ray::Get(a.Task(&Napper::Pid).Remote());
  } catch (const ray::ActorDiedError& e) {
    CHECK_THAT(false, "a call made 1 s after the restart began failed: " << e.what());
  }
  CHECK_THAT(second != first && second > 0, "pid " << second << " after " << first);
  CHECK_THAT(*ray::Get(a.Task(&Napper::Pid).Remote()) == second, "the new instance again");

  // A call running when the worker dies fails (max_task_retries 0); the next works.
  auto inflight = a.Task(&Napper::Nap).Remote(60000, std::string("a"), 1);
  CHECK_THAT(AwaitNap(dir, "a", 1) == second, "the nap runs on the second instance");
  KillAndAwaitReaped(second);
  auto died = ExpectThrow<ray::ActorDiedError>([&] { ray::Get(inflight); },
                                               "a call running when the worker died");
  std::printf("in flight at the death: %s\n", died.what());
  int third = *ray::Get(a.Task(&Napper::Pid).Remote());
  CHECK_THAT(third != second && third != first, "a third instance");

  // With max_task_retries, calls running when the worker died run again on the new
  // instance, and the calls behind them after them: sent through the raylet (just
  // after the actor's creation) ...
  auto b = ray::Actor(Napper::Create).SetMaxRestarts(-1).SetMaxTaskRetries(1).Remote(dir);
  auto via_raylet = b.Task(&Napper::Nap).Remote(60000, std::string("b"), 1);
  auto behind = b.Task(&Napper::Pid).Remote();
  int b1 = AwaitNap(dir, "b", 1);
  KillAndAwaitReaped(b1);
  int b2 = 0;
  try {
    b2 = *ray::Get(via_raylet, std::chrono::seconds(30));
  } catch (const ray::RayException& e) {
    CHECK_THAT(false, "a call (through the raylet) with a retry left failed: " << e.what());
  }
  CHECK_THAT(b2 != b1 && b2 > 0, "the retried call ran on " << b2 << ", the dead worker");
  CHECK_THAT(*ray::Get(behind) == b2, "the call behind it ran on the new instance");
  // ... and straight to the actor's worker.
  for (int i = 0; i < 3; ++i) ray::Get(b.Task(&Napper::Pid).Remote());
  auto direct = b.Task(&Napper::Nap).Remote(60000, std::string("c"), 1);
  auto behind_direct = b.Task(&Napper::Pid).Remote();
  CHECK_THAT(AwaitNap(dir, "c", 1) == b2, "the nap runs on the second instance");
  KillAndAwaitReaped(b2);
  int b3 = 0;
  try {
    b3 = *ray::Get(direct, std::chrono::seconds(30));
  } catch (const ray::RayException& e) {
    CHECK_THAT(false, "a direct call with a retry left failed: " << e.what());
  }
  CHECK_THAT(b3 != b2 && b3 != b1 && b3 > 0, "the retried direct call ran on " << b3);
  CHECK_THAT(*ray::Get(behind_direct) == b3, "the direct call behind it ran on the new instance");
  std::printf("retried on new instances: pid %d -> %d -> %d\n", b1, b2, b3);

  // Retries run out: a call whose instance dies twice, with one retry, fails.
  auto doomed = b.Task(&Napper::Nap).Remote(60000, std::string("d"), 2);
  KillAndAwaitReaped(AwaitNap(dir, "d", 1));
  // (A caller hears of the death, and sends the call again, when it next waits.)
  ray::Wait(std::vector{doomed}, 1, 500);
  KillAndAwaitReaped(AwaitNap(dir, "d", 2));
  ExpectThrow<ray::ActorDiedError>([&] { ray::Get(doomed, std::chrono::seconds(30)); },
                                   "a call whose retries ran out");
  CHECK_THAT(*ray::Get(b.Task(&Napper::Pid).Remote()) > 0, "the actor lives on");
}

// Two tasks that must run side by side (A waits for B's file) do, on 2 CPUs: B never
// waits behind A while a CPU is free for it, though it was queued behind A on A's lease
// when every CPU was taken (another task ran meanwhile). (Tasks the raylet sends ahead
// to a busy worker are not moved yet.)
void SideBySide(const std::string& dir) {
  // On a lease: short tasks first (one at a time, on a lease), so that the caller
  // queues tasks on its leases when every CPU is taken; then a pause, so that the
  // lease is returned.
  for (int round = 0; round < 3; ++round) {
    for (int i = 0; i < 50; ++i) ray::Get(ray::Task(GetPid).Remote());
    SleepMs(100);
    std::string flag = dir + "/leased-" + std::to_string(round);
    auto a = ray::Task(AwaitFile).Remote(flag, 15000);   // a lease
    auto other = ray::Task(SleepThenReturn).Remote(300);  // the other CPU's lease
    auto b = ray::Task(MakeFile).Remote(flag);            // queued on a's lease
    CHECK_THAT(*ray::Get(a), "round " << round
                                      << ": A never saw B's file: B waited behind A while "
                                         "a CPU was free");
    CHECK_THAT(*ray::Get(b), "B wrote its file");
    ray::Get(other);
  }
}

// The same through the raylet: tasks it sent ahead to a busy worker (every CPU was
// taken) come back to its queue when a CPU frees up elsewhere. A and B each wait for the
// other; their arguments come late (through the raylet, which waits for them), so that A
// runs on one CPU, B arrives while a task of another shape holds the other one and is
// sent ahead to A's worker, the only busy one of its shape, and that task then ends.
void SideBySideRaylet(const std::string& dir) {
  auto late = [](const std::string& path, int ms) {
    // (max_calls: through the raylet, which then owns the result; no CPU)
    return ray::Task(PathAfter).SetMaxCalls(1000).SetResource("CPU", 0).Remote(path, ms);
  };
  for (int round = 0; round < 3; ++round) {
    std::string a_flag = dir + "/raylet-a-" + std::to_string(round);
    std::string b_flag = dir + "/raylet-b-" + std::to_string(round);
    auto a = ray::Task(Rendezvous).Remote(late(a_flag, 50), b_flag, 15000);
    auto other = ray::Task(SleepThenReturn)
                     .SetResources({{"CPU", 1}, {"Custom", 1}})
                     .Remote(ray::Task(Add2).SetMaxCalls(1000).SetResource("CPU", 0).Remote(150, 150));
    auto b = ray::Task(Rendezvous).Remote(late(b_flag, 200), a_flag, 15000);
    CHECK_THAT(*ray::Get(a), "round " << round
                                      << " through the raylet: A never saw B's file: B "
                                         "waited behind A while a CPU was free");
    CHECK_THAT(*ray::Get(b), "B saw A's file");
    ray::Get(other);
  }
}

// The same on a caller's leases, when the CPU that frees up is not the caller's: another
// caller (a task) runs a task on the other CPU; A takes the free one and B queues on A's
// lease (every CPU taken, short tasks); then the other caller's task ends.
void SideBySideCallers(const std::string& dir) {
  // Idle workers to lease.
  std::vector<ray::ObjectRef<int>> warm;
  for (int i = 0; i < 4; ++i) warm.push_back(ray::Task(SleepThenReturn).SetResource("CPU", 0.5).Remote(100));
  ray::Get(warm);
  for (int round = 0; round < 3; ++round) {
    // Short tasks first (one at a time, on a lease), so that calls queue on leases when
    // every CPU is taken; then a pause, so that the lease is returned.
    for (int i = 0; i < 50; ++i) ray::Get(ray::Task(GetPid).Remote());
    SleepMs(100);
    std::string started = dir + "/callers-other-" + std::to_string(round);
    // (max_calls: the other caller itself runs through the raylet, on no CPU)
    auto other = ray::Task(CallerOfMarkThenSleep).SetMaxCalls(1000).SetResource("CPU", 0).Remote(started, 300);
    CHECK_THAT(AwaitFile(started, 15000), "the other caller's task started");
    std::string a_flag = dir + "/callers-a-" + std::to_string(round);
    std::string b_flag = dir + "/callers-b-" + std::to_string(round);
    auto a = ray::Task(Rendezvous).Remote(a_flag, b_flag, 15000);  // the free CPU
    auto b = ray::Task(Rendezvous).Remote(b_flag, a_flag, 15000);  // queued on A's lease
    CHECK_THAT(*ray::Get(a), "round " << round
                                      << ": A never saw B's file: B waited behind A while "
                                         "another caller's CPU was free");
    CHECK_THAT(*ray::Get(b), "B saw A's file");
    CHECK_THAT(*ray::Get(other), "the other caller's task");
  }
}

// Resource requests are checked at submission with Ray's rules.
void ResourceRequests(const std::string&) {
  struct Bad {
    std::map<std::string, double> resources;
    std::string says;
  };
  for (const Bad& bad : std::vector<Bad>{
           {{{"", 1}}, "empty name"},
           {{{"Custom", 2.5}}, "'Custom' = 2.5: resource quantities >1 must be whole numbers"},
           {{{"CPU", -1}}, "may not be negative"},
           {{{"CPU", 0.00001}}, "0.0001"},
       }) {
    auto e = ExpectThrow<ray::RayException>(
        [&] { ray::Task(GetPid).SetResources(bad.resources).Remote(); }, bad.says);
    std::printf("refused: %s\n", e.what());
    CHECK_THAT(std::string(e.what()).find(bad.says) != std::string::npos, e.what());
    CHECK_THAT(std::string(e.what()).find("GetPid") != std::string::npos, e.what());
    auto actor = ExpectThrow<ray::RayException>(
        [&] { ray::Actor(Napper::Create).SetResources(bad.resources).Remote(std::string()); },
        "actor: " + bad.says);
    CHECK_THAT(std::string(actor.what()).find(bad.says) != std::string::npos, actor.what());
  }
  // Whole amounts above 1, fractions below, and zero (asks for nothing) are fine.
  CHECK_THAT(*ray::Get(ray::Task(GetPid).SetResources({{"CPU", 2}, {"Custom", 0}}).Remote()) > 0,
             "whole and zero amounts");
  CHECK_THAT(*ray::Get(ray::Task(GetPid).SetResource("CPU", 0.25).Remote()) > 0, "a fraction");
  auto napper = ray::Actor(Napper::Create).SetResource("CPU", 0.5).Remote(std::string());
  CHECK_THAT(*ray::Get(napper.Task(&Napper::Pid).Remote()) > 0, "an actor with half a CPU");
  ExpectThrow<ray::RayException>(
      [&] { ray::Actor(Napper::Create).SetMaxTaskRetries(-2).Remote(std::string()); },
      "max_task_retries -2");
}

// Calling a function that is not in RAY_REMOTE is refused with a clear error.
void Unregistered(const std::string&) {
  auto e = ExpectThrow<ray::RayException>(
      [&] { ray::Task(NotRegisteredHolder::NotRegistered).Remote(1); }, "unregistered function");
  CHECK_THAT(std::string(e.what()).find("RAY_REMOTE") != std::string::npos, e.what());
}

// A direct result still in flight, passed on to a task that goes through the raylet,
// does not hold up its caller: the call that makes it waits for a marker the caller
// leaves only after passing the result on (and gives up after 10 s).
void InFlightArguments(const std::string& dir) {
  CHECK_THAT(*ray::Get(ray::Task(Same).Remote(true)), "warm");  // (a lease: calls go direct)
  auto made = ray::Task(AwaitMarker).Remote(dir, std::string("go"));
  auto passed_on = ray::Task(Same).Remote(made);
  auto boxed = ray::Put(std::vector{made});
  TakeMarker(dir, "go");
  CHECK_THAT(*ray::Get(passed_on, std::chrono::seconds(30)),
             "the caller waited for a result in flight before passing it on");
  CHECK_THAT(*ray::Get(ray::Get(boxed)->at(0)), "a result in flight inside a put");
}

// Holds a large object, a running task and an actor, then blocks: the test kills the
// `ray run` process meanwhile. Writes <dir>/ready once everything is in place.
void Abandoned(const std::string& dir) {
  auto big = ray::Put(Pattern(1 << 20, 3));
  auto sleeper = ray::Task(SleepThenReturn).Remote(60000);
  auto actor = ray::Actor(Counter::Create).Remote(0, std::string());
  CHECK_THAT(*ray::Get(actor.Task(&Counter::Add).Remote(1)) == 1, "actor");
  CHECK_THAT(ray::Get(big)->size() == 1u << 20, "object");
  TakeMarker(dir, "ready");
  ray::Get(sleeper);
}

const std::map<std::string, std::function<void(const std::string&)>>& Cases() {
  static const std::map<std::string, std::function<void(const std::string&)>> cases{
      {"objects", Objects},
      {"gets_without_the_raylet", GetsWithoutTheRaylet},
      {"nested_wait", NestedWait},
      {"many_actors", ManyActors},
      {"returns", MultipleReturns},
      {"wait", Wait},
      {"get_timeout", GetTimeout},
      {"task_error", TaskError},
      {"worker_death", WorkerDeath},
      {"resources", Resources},
      {"actors", Actors},
      {"direct_calls", DirectCalls},
      {"in_flight_arguments", InFlightArguments},
      {"leased_tasks", LeasedTasks},
      {"leases_yield", LeasesYield},
      {"actor_resources", ActorResources},
      {"max_calls", MaxCalls},
      {"large_objects", LargeObjects},
      {"free", Free},
      {"output", Output},
      {"unregistered", Unregistered},
      {"abandoned", Abandoned},
      {"actor_restart", ActorRestart},
      {"side_by_side", SideBySide},
      {"side_by_side_raylet", SideBySideRaylet},
      {"side_by_side_callers", SideBySideCallers},
      {"resource_requests", ResourceRequests},
  };
  return cases;
}

}  // namespace

// argv: <plugin> <case>... [--dir <scratch dir>]
RAY_MAIN(int argc, char** argv) {
  std::string dir = "/nonexistent";
  std::vector<std::string> names;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--dir" && i + 1 < argc) {
      dir = argv[++i];
    } else {
      names.push_back(a);
    }
  }
  if (names.empty()) {
    std::fprintf(stderr, "usage: semantics_plugin.so <case>... [--dir D]\n");
    return 2;
  }
  for (const auto& name : names) {
    auto it = Cases().find(name);
    if (it == Cases().end()) {
      std::fprintf(stderr, "unknown case %s\n", name.c_str());
      return 2;
    }
    try {
      it->second(dir);
    } catch (const CheckFailed& f) {
      std::fprintf(stderr, "CHECK FAILED in %s: %s\n", name.c_str(), f.what.c_str());
      return 1;
    }
    std::printf("CASE PASSED: %s\n", name.c_str());
  }
  return 0;
}
