// Concurrent actors and callbacks on results, end to end:
//   ray run concurrency_plugin.so <case> [--dir D] [--concurrency N] [--meet-wait-ms MS]
// Each case returns 0 when every check passes; a failed check prints "CHECK FAILED"
// and the job exits 1. --concurrency sets the actors' max_concurrency (default 4), so
// that a test can show what a case does without it.

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <ray/api.h>

#include "tests/test_util/plugin_check.h"

namespace {

int64_t NowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

void SleepMs(int ms) { std::this_thread::sleep_for(std::chrono::milliseconds(ms)); }

int Plus(int a, int b) { return a + b; }

int Fail(int x) {
  if (x >= 0) throw std::runtime_error("failing on purpose: " + std::to_string(x));
  return x;
}

// Waits (at most 30 s) for `path` to exist; returns x.
int WaitForFile(std::string path, int x) {
  for (int64_t end = NowMs() + 30000; NowMs() < end; SleepMs(5)) {
    if (::access(path.c_str(), F_OK) == 0) return x;
  }
  throw std::runtime_error(path + " did not appear within 30 s");
}

// A thread-safe actor whose calls meet, count and block.
class Meeting {
 public:
  static Meeting* Create(std::string dir) { return new Meeting(std::move(dir)); }
  explicit Meeting(std::string dir) : dir_(std::move(dir)) {}

  // Returns once `n` calls of Meet are in it at the same time, or after `wait_ms`
  // (then false): with fewer than n calls able to run at once, it cannot be reached.
  bool Meet(int n, int wait_ms) {
    std::unique_lock<std::mutex> g(mu_);
    ++arrived_;
    cv_.notify_all();
    return cv_.wait_for(g, std::chrono::milliseconds(wait_ms), [&] { return arrived_ >= n; });
  }

  // Echoes x after a short while, and counts how many calls ran at once.
  int Echo(int x) {
    int now = ++active_;
    for (int seen = max_active_; now > seen && !max_active_.compare_exchange_weak(seen, now);) {
    }
    SleepMs(x % 3);
    --active_;
    return x;
  }
  int MaxActive() { return max_active_; }

  // The ray API from a method: a nested task, a put and a get.
  int Nested(int x) {
    int y = *ray::Get(ray::Task(Plus).Remote(x, 1));
    auto ref = ray::Put(y * 2);
    return *ray::Get(ref);
  }

  // Blocks in ray::Get until a task of its own sees `path` (made by the driver later).
  int BlockOn(std::string path) { return *ray::Get(ray::Task(WaitForFile).Remote(path, 41)) + 1; }

  // Writes its pid to <dir>/<key>-<attempt>; the first attempt then sleeps 60 s (to
  // be killed), later ones return the pid.
  int Nap(std::string key) {
    int attempt = 1;
    std::string path;
    for (;; ++attempt) {
      path = dir_ + "/" + key + "-" + std::to_string(attempt);
      int fd = ::open(path.c_str(), O_CREAT | O_EXCL | O_WRONLY, 0644);
      if (fd >= 0) {
        std::string pid = std::to_string(::getpid());
        (void)!::write(fd, pid.data(), pid.size());
        ::close(fd);
        break;
      }
    }
    if (attempt == 1) SleepMs(60000);
    return ::getpid();
  }
  int Pid() { return ::getpid(); }

 private:
  std::string dir_;
  std::mutex mu_;
  std::condition_variable cv_;
  int arrived_ = 0;
  std::atomic<int> active_{0};
  std::atomic<int> max_active_{0};
};

// An async actor (ray/async.h): its methods await refs instead of blocking.
class Loop {
 public:
  static Loop* Create() { return new Loop(); }

  // Starts, awaits `latch`, then returns its value plus i.
  ray::Async<int> AwaitPlus(ray::ObjectRef<int> latch, int i) {
    ++started_;
    int in_flight = ++in_flight_;
    max_in_flight_ = std::max(max_in_flight_, in_flight);
    std::shared_ptr<int> v = co_await latch;
    --in_flight_;
    Enter();
    int r = *v + i;
    Leave();
    co_return r;
  }
  // Awaits nothing.
  ray::Async<int> Busy(int i) {
    Enter();
    Leave();
    co_return i;
  }
  // Awaits a task that fails: lets its error out, or (catch_it) returns -1.
  ray::Async<int> AwaitFailure(bool catch_it) {
    try {
      co_return *co_await ray::Task(Fail).Remote(5);
    } catch (const ray::TaskError&) {
      if (!catch_it) throw;
    }
    co_return -1;
  }
  // Throws after an await.
  ray::Async<void> ThrowLater() {
    co_await ray::Task(Plus).Remote(1, 2);
    throw std::runtime_error("thrown after an await");
  }
  // Ordinary methods, run between the bodies.
  int Started() { return started_; }
  int MaxActive() { return max_active_; }
  int MaxInFlight() { return max_in_flight_; }

 private:
  // Bodies that overlap (they should not) meet here: each stays 1 ms.
  void Enter() {
    int now = ++active_;
    max_active_ = std::max(max_active_.load(), now);
    SleepMs(1);
  }
  void Leave() { --active_; }

  int started_ = 0;
  int in_flight_ = 0;
  int max_in_flight_ = 0;
  std::atomic<int> active_{0};
  std::atomic<int> max_active_{0};
};

RAY_REMOTE(Plus, Fail, WaitForFile, Meeting::Create, &Meeting::Meet, &Meeting::Echo,
           &Meeting::MaxActive, &Meeting::Nested, &Meeting::BlockOn, &Meeting::Nap,
           &Meeting::Pid, Loop::Create, &Loop::AwaitPlus, &Loop::Busy, &Loop::AwaitFailure,
           &Loop::ThrowLater, &Loop::Started, &Loop::MaxActive, &Loop::MaxInFlight);

struct Options {
  std::string dir = "/nonexistent";
  int concurrency = 4;
  int meet_wait_ms = 10000;  // how long a Meet waits for the others
};

ray::ActorHandle<Meeting> NewMeeting(const Options& o) {
  return ray::Actor(Meeting::Create).SetMaxConcurrency(o.concurrency).Remote(o.dir);
}

// n calls that can only end once all n run at once.
void Barrier(const Options& o) {
  auto m = NewMeeting(o);
  std::vector<ray::ObjectRef<bool>> refs;
  for (int i = 0; i < 4; ++i) refs.push_back(m.Task(&Meeting::Meet).Remote(4, o.meet_wait_ms));
  auto met = ray::Get(refs);
  for (int i = 0; i < 4; ++i) {
    CHECK_THAT(*met[i], "call " << i << " of Meet(4) never saw 4 calls running at once");
  }
}

// Hundreds of calls, results right and in their places; never more than
// max_concurrency at once.
void Many(const Options& o) {
  auto m = NewMeeting(o);
  std::vector<ray::ObjectRef<int>> refs;
  for (int i = 0; i < 600; ++i) refs.push_back(m.Task(&Meeting::Echo).Remote(i));
  auto got = ray::Get(refs);
  for (int i = 0; i < 600; ++i) CHECK_THAT(*got[i] == i, "call " << i << " returned " << *got[i]);
  int max_active = *ray::Get(m.Task(&Meeting::MaxActive).Remote());
  std::printf("max calls at once: %d of %d\n", max_active, o.concurrency);
  CHECK_THAT(max_active <= o.concurrency, max_active << " calls ran at once");
  // Two callers' worth: another driver thread calls the same actor meanwhile.
  std::vector<int> other(200);
  std::thread t([&] {
    std::vector<ray::ObjectRef<int>> mine;
    for (int i = 0; i < 200; ++i) mine.push_back(m.Task(&Meeting::Echo).Remote(1000 + i));
    for (int i = 0; i < 200; ++i) other[i] = *ray::Get(mine[i]);
  });
  std::vector<ray::ObjectRef<int>> again;
  for (int i = 0; i < 200; ++i) again.push_back(m.Task(&Meeting::Echo).Remote(-i));
  for (int i = 0; i < 200; ++i) CHECK_THAT(*ray::Get(again[i]) == -i, "call " << i);
  t.join();
  for (int i = 0; i < 200; ++i) CHECK_THAT(other[i] == 1000 + i, "thread's call " << i);
}

// The ray API from concurrent methods, one of them blocked in Get while the others
// run.
void GetInside(const Options& o) {
  auto m = NewMeeting(o);
  std::string flag = o.dir + "/go";
  auto blocked = m.Task(&Meeting::BlockOn).Remote(flag);
  std::vector<ray::ObjectRef<int>> refs;
  for (int i = 0; i < 200; ++i) refs.push_back(m.Task(&Meeting::Nested).Remote(i));
  int64_t start = NowMs();
  for (int i = 0; i < 200; ++i) {
    int got = *ray::Get(refs[i], std::chrono::seconds(30));
    CHECK_THAT(got == (i + 1) * 2, "Nested(" << i << ") returned " << got);
    if (i % 50 == 0) std::printf("Nested(%d) done after %lld ms\n", i, (long long)(NowMs() - start));
  }
  std::vector<ray::ObjectRef<int>> one{blocked};
  CHECK_THAT(ray::Wait(one, 1, 0).ready.empty(), "BlockOn returned before its object existed");
  std::ofstream(flag).put('1');
  CHECK_THAT(*ray::Get(blocked, std::chrono::seconds(30)) == 42, "BlockOn");
}

// Waits (at most 20 s) for <dir>/<key>-<n>; the pid written in it.
int AwaitNap(const std::string& dir, const std::string& key, int n) {
  std::string path = dir + "/" + key + "-" + std::to_string(n);
  for (int64_t end = NowMs() + 20000; NowMs() < end; SleepMs(10)) {
    int pid = 0;
    std::ifstream in(path);
    if (in >> pid && pid > 0) return pid;
  }
  throw CheckFailed{"run " + std::to_string(n) + " of nap " + key + " did not begin in 20 s"};
}

void KillAndAwaitReaped(int pid) {
  ::kill(pid, SIGKILL);
  for (int64_t end = NowMs() + 20000; NowMs() < end; SleepMs(10)) {
    if (::kill(pid, 0) != 0) return;
  }
  throw CheckFailed{"worker " + std::to_string(pid) + " was not reaped in 20 s"};
}

// Calls running at once when the worker dies run again on the restarted actor
// (max_task_retries), all of them; without retries they fail; Kill fails them all.
void Restart(const Options& o) {
  auto m = ray::Actor(Meeting::Create)
               .SetMaxConcurrency(o.concurrency)
               .SetMaxRestarts(1)
               .SetMaxTaskRetries(1)
               .Remote(o.dir);
  for (int i = 0; i < 3; ++i) ray::Get(m.Task(&Meeting::Pid).Remote());  // direct by now
  std::vector<ray::ObjectRef<int>> naps;
  for (int i = 0; i < o.concurrency; ++i) {
    naps.push_back(m.Task(&Meeting::Nap).Remote("r" + std::to_string(i)));
  }
  int first = 0;
  for (int i = 0; i < o.concurrency; ++i) {
    int pid = AwaitNap(o.dir, "r" + std::to_string(i), 1);
    CHECK_THAT(first == 0 || pid == first, "naps on one worker");
    first = pid;
  }
  KillAndAwaitReaped(first);
  for (int i = 0; i < o.concurrency; ++i) {
    int pid = *ray::Get(naps[i], std::chrono::seconds(60));
    CHECK_THAT(pid != first && pid > 0, "nap " << i << " ran again on " << pid);
  }
  // No restart left: calls running at the next death fail.
  naps.clear();
  for (int i = 0; i < o.concurrency; ++i) {
    naps.push_back(m.Task(&Meeting::Nap).Remote("s" + std::to_string(i)));
  }
  int second = 0;
  for (int i = 0; i < o.concurrency; ++i) second = AwaitNap(o.dir, "s" + std::to_string(i), 1);
  KillAndAwaitReaped(second);
  for (int i = 0; i < o.concurrency; ++i) {
    ExpectThrow<ray::ActorDiedError>([&] { ray::Get(naps[i], std::chrono::seconds(60)); },
                                     "a call running when the last life ended");
  }
  // Kill while calls run: they all fail.
  auto k = NewMeeting(o);
  std::vector<ray::ObjectRef<int>> running;
  for (int i = 0; i < o.concurrency; ++i) {
    running.push_back(k.Task(&Meeting::Nap).Remote("k" + std::to_string(i)));
  }
  for (int i = 0; i < o.concurrency; ++i) AwaitNap(o.dir, "k" + std::to_string(i), 1);
  k.Kill();
  for (int i = 0; i < o.concurrency; ++i) {
    ExpectThrow<ray::ActorDiedError>([&] { ray::Get(running[i], std::chrono::seconds(60)); },
                                     "a call running when the actor was killed");
  }
}

// Waits (at most 120 s) until `done` holds; false if it never did.
bool AwaitTrue(const std::function<bool()>& done) {
  for (int64_t end = NowMs() + 120000; NowMs() < end; SleepMs(5)) {
    if (done()) return true;
  }
  return done();
}

// 10,000 callbacks on task results, each run exactly once with its value, none on the
// caller's thread; futures too.
void ThenMany(const Options&) {
  constexpr int kN = 10000;
  std::vector<std::atomic<int>> calls(kN);
  std::vector<std::atomic<int>> values(kN);
  std::atomic<int> total{0}, on_main{0};
  const auto main_thread = std::this_thread::get_id();
  for (int i = 0; i < kN; ++i) {
    ray::Task(Plus).Remote(i, 1).Then([&, i](std::shared_ptr<int> v) {
      if (std::this_thread::get_id() == main_thread) ++on_main;
      values[i] = *v;
      ++calls[i];
      ++total;
    });
  }
  CHECK_THAT(AwaitTrue([&] { return total.load() >= kN; }),
             "only " << total.load() << " of " << kN << " callbacks ran in 120 s");
  SleepMs(200);  // (a callback run twice would show by now)
  for (int i = 0; i < kN; ++i) {
    CHECK_THAT(calls[i] == 1, "callback " << i << " ran " << calls[i] << " times");
    CHECK_THAT(values[i] == i + 1, "callback " << i << " got " << values[i]);
  }
  CHECK_THAT(on_main == 0, on_main.load() << " callbacks ran on the caller's thread");
  // Futures, of tasks and of an actor's calls.
  std::vector<std::future<std::shared_ptr<int>>> futures;
  for (int i = 0; i < 1000; ++i) futures.push_back(ray::GetAsync(ray::Task(Plus).Remote(i, i)));
  auto m = ray::Actor(Meeting::Create).SetMaxConcurrency(4).Remote(std::string("/tmp"));
  for (int i = 0; i < 1000; ++i) futures.push_back(ray::GetAsync(m.Task(&Meeting::Echo).Remote(i)));
  for (int i = 0; i < 2000; ++i) {
    CHECK_THAT(futures[i].wait_for(std::chrono::seconds(60)) == std::future_status::ready,
               "future " << i << " not ready in 60 s");
    int want = i < 1000 ? 2 * i : i - 1000;
    CHECK_THAT(*futures[i].get() == want, "future " << i);
  }
}

// Errors reach callbacks and futures.
void ThenErrors(const Options&) {
  auto future = ray::GetAsync(ray::Task(Fail).Remote(7));
  CHECK_THAT(future.wait_for(std::chrono::seconds(60)) == std::future_status::ready, "ready");
  auto e = ExpectThrow<ray::TaskError>([&] { future.get(); }, "a failed task's future");
  CHECK_THAT(std::string(e.what()).find("failing on purpose: 7") != std::string::npos, e.what());

  std::promise<std::string> caught;
  ray::Task(Fail).Remote(8).Then(
      [&](std::shared_ptr<int>) { caught.set_value("value"); },
      [&](std::exception_ptr error) {
        try {
          std::rethrow_exception(error);
        } catch (const ray::TaskError& t) {
          caught.set_value(std::string("TaskError: ") + t.what());
        } catch (const std::exception& x) {
          caught.set_value(std::string("other: ") + x.what());
        }
      });
  auto got = caught.get_future();
  CHECK_THAT(got.wait_for(std::chrono::seconds(60)) == std::future_status::ready, "error callback");
  std::string what = got.get();
  CHECK_THAT(what.rfind("TaskError: ", 0) == 0 && what.find("failing on purpose: 8") != what.npos,
             what);

  // A call the actor can never run: ActorDiedError.
  auto m = ray::Actor(Meeting::Create).SetMaxConcurrency(2).Remote(std::string("/tmp"));
  ray::Get(m.Task(&Meeting::Pid).Remote());
  m.Kill();
  auto dead = ray::GetAsync(m.Task(&Meeting::Pid).Remote());
  CHECK_THAT(dead.wait_for(std::chrono::seconds(60)) == std::future_status::ready, "dead");
  ExpectThrow<ray::ActorDiedError>([&] { dead.get(); }, "a killed actor's call");

  // Without an error callback, a failure is said on stderr; a throwing callback too.
  ray::Task(Fail).Remote(9).Then([](std::shared_ptr<int>) {});
  std::promise<void> threw;
  ray::Task(Plus).Remote(1, 2).Then([&](std::shared_ptr<int>) {
    threw.set_value();
    throw std::runtime_error("callback threw on purpose");
  });
  threw.get_future().wait_for(std::chrono::seconds(60));
  ray::Get(ray::Task(Plus).Remote(0, 0));
}

// A callback uses the ray API: submits, gets, puts, and chains another callback.
void ThenApi(const Options&) {
  std::promise<int> result;
  ray::Task(Plus).Remote(1, 2).Then([&](std::shared_ptr<int> three) {
    int seven = *ray::Get(ray::Task(Plus).Remote(*three, 4));
    auto put = ray::Put(seven * 10);
    ray::Task(Plus).Remote(*ray::Get(put), 1).Then([&](std::shared_ptr<int> v) {
      result.set_value(*v);
    });
  });
  auto f = result.get_future();
  CHECK_THAT(f.wait_for(std::chrono::seconds(60)) == std::future_status::ready, "chain ready");
  CHECK_THAT(f.get() == 71, "the chain's value");
}

// An async actor: 100 calls await one latch at once (and an ordinary method runs
// meanwhile); once it is ready they end with their values, while 100 more calls run;
// no two bodies ever ran at the same time.
void AsyncInterleave(const Options& o) {
  auto loop = ray::Actor(Loop::Create).Remote();
  const std::string path = o.dir + "/latch";
  auto latch = ray::Task(WaitForFile).Remote(path, 7);
  std::vector<ray::ObjectRef<int>> waiting;
  for (int i = 0; i < 100; ++i) waiting.push_back(loop.Task(&Loop::AwaitPlus).Remote(latch, i));
  CHECK_THAT(*ray::Get(loop.Task(&Loop::Started).Remote()) == 100,
             "100 calls started while the first ones awaited");
  CHECK_THAT(ray::Wait(waiting, 1, std::chrono::milliseconds(0)).ready.empty(),
             "no call ended before the latch");
  std::ofstream(path) << "go";
  std::vector<ray::ObjectRef<int>> busy;
  for (int i = 0; i < 100; ++i) busy.push_back(loop.Task(&Loop::Busy).Remote(i));
  auto got = ray::Get(waiting);
  for (int i = 0; i < 100; ++i) CHECK_THAT(*got[i] == 7 + i, "call " << i << " got " << *got[i]);
  auto echoed = ray::Get(busy);
  for (int i = 0; i < 100; ++i) CHECK_THAT(*echoed[i] == i, "busy call " << i);
  int max_active = *ray::Get(loop.Task(&Loop::MaxActive).Remote());
  CHECK_THAT(max_active == 1, max_active << " bodies ran at the same time");
}

// 2,000 calls await a ref that is ready already: a body may end on the callback thread
// before its call's invoke has returned, and each still answers.
void AsyncReady(const Options&) {
  auto loop = ray::Actor(Loop::Create).Remote();
  auto ready = ray::Put(5);
  std::vector<ray::ObjectRef<int>> calls;
  for (int i = 0; i < 2000; ++i) calls.push_back(loop.Task(&Loop::AwaitPlus).Remote(ready, i));
  auto done = ray::Wait(calls, calls.size(), std::chrono::seconds(60));
  CHECK_THAT(done.ready.size() == calls.size(), done.unready.size() << " calls never answered");
  auto got = ray::Get(calls);
  for (int i = 0; i < 2000; ++i) CHECK_THAT(*got[i] == 5 + i, "call " << i << " got " << *got[i]);
}

// Errors: one a body lets out of an await fails the call with the task's error; one it
// catches does not; one it throws fails the call.
void AsyncErrors(const Options&) {
  auto loop = ray::Actor(Loop::Create).Remote();
  CHECK_THAT(*ray::Get(loop.Task(&Loop::AwaitFailure).Remote(true)) == -1, "a caught failure");
  bool failed = false;
  try {
    ray::Get(loop.Task(&Loop::AwaitFailure).Remote(false));
  } catch (const ray::TaskError& e) {
    failed = std::string(e.what()).find("failing on purpose: 5") != std::string::npos;
  }
  CHECK_THAT(failed, "a failure let out fails the call with its message");
  failed = false;
  try {
    ray::Get(loop.Task(&Loop::ThrowLater).Remote());
  } catch (const ray::TaskError& e) {
    failed = std::string(e.what()).find("thrown after an await") != std::string::npos;
  }
  CHECK_THAT(failed, "a throw after an await fails the call");
  CHECK_THAT(*ray::Get(loop.Task(&Loop::Busy).Remote(3)) == 3, "the actor goes on");
}

// At most max_concurrency async calls are in flight (--concurrency; 0: the default).
void AsyncLimit(const Options& o) {
  auto create = ray::Actor(Loop::Create);
  if (o.concurrency > 0) create.SetMaxConcurrency(o.concurrency);
  auto loop = create.Remote();
  const std::string path = o.dir + "/latch-" + std::to_string(o.concurrency);
  auto latch = ray::Task(WaitForFile).Remote(path, 1);
  std::vector<ray::ObjectRef<int>> calls;
  for (int i = 0; i < 6; ++i) calls.push_back(loop.Task(&Loop::AwaitPlus).Remote(latch, i));
  SleepMs(500);
  std::ofstream(path) << "go";
  ray::Get(calls);
  std::printf("max_in_flight=%d\n", *ray::Get(loop.Task(&Loop::MaxInFlight).Remote()));
}

const std::map<std::string, std::function<void(const Options&)>>& Cases() {
  static const std::map<std::string, std::function<void(const Options&)>> cases = {
      {"barrier", Barrier},       {"many", Many},
      {"get_inside", GetInside},  {"restart", Restart},
      {"then_many", ThenMany},    {"then_errors", ThenErrors},
      {"then_api", ThenApi},      {"async_interleave", AsyncInterleave},
      {"async_errors", AsyncErrors}, {"async_limit", AsyncLimit},
      {"async_ready", AsyncReady},
  };
  return cases;
}

}  // namespace

RAY_MAIN(int argc, char** argv) {
  Options o;
  std::vector<std::string> names;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--dir" && i + 1 < argc) {
      o.dir = argv[++i];
    } else if (a == "--concurrency" && i + 1 < argc) {
      o.concurrency = std::stoi(argv[++i]);
    } else if (a == "--meet-wait-ms" && i + 1 < argc) {
      o.meet_wait_ms = std::stoi(argv[++i]);
    } else {
      names.push_back(a);
    }
  }
  for (const auto& name : names) {
    auto it = Cases().find(name);
    if (it == Cases().end()) {
      std::fprintf(stderr, "unknown case %s\n", name.c_str());
      return 2;
    }
    try {
      it->second(o);
    } catch (const CheckFailed& f) {
      std::fprintf(stderr, "CHECK FAILED in %s: %s\n", name.c_str(), f.what.c_str());
      return 1;
    }
    std::printf("CASE PASSED: %s\n", name.c_str());
    std::fflush(stdout);
  }
  return 0;
}
