// Jobs for the ownership suite (ownership_test.cc): objects whose refs travel between
// processes, and actors whose handles do. Each case prints "CASE PASSED: <case>" or
// fails with a message and a non-zero exit code.
//   args: <case>    cases: chain, borrower_killed, actor_last_handle, actor_held_by_actor;
//                   on a cluster whose second node has the resource "B":
//                   chain_across_nodes, result_across_nodes, actor_across_nodes,
//                   borrower_node_dies (prints "kept", then the test kills that node)

#include <ray/api.h>

#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <functional>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace {

using Ref = ray::ObjectRef<std::vector<int>>;

// Keeps refs (and actor handles) past the calls that brought them.
class Keeper {
 public:
  static Keeper* Create() { return new Keeper(); }
  int Keep(Ref r) {
    kept_.push_back(r);
    return static_cast<int>(kept_.size());
  }
  int Drop() {
    kept_.clear();
    return 0;
  }
  int64_t Sum() {
    int64_t sum = 0;
    for (const auto& r : kept_) {
      auto values = ray::Get(r);
      for (int v : *values) sum += v;
    }
    return sum;
  }
  int Pid() { return static_cast<int>(::getpid()); }
  int KeepActor(ray::ActorHandle<Keeper> a) {
    actor_ = a;
    return 0;
  }
  int DropActor() {
    actor_ = ray::ActorHandle<Keeper>();
    return 0;
  }
  // The kept actor's pid, through its handle.
  int ActorPid() { return *ray::Get(actor_.Task(&Keeper::Pid).Remote()); }

 private:
  std::vector<Ref> kept_;
  ray::ActorHandle<Keeper> actor_;
};

// The third process: gives the ref to the keeper actor, and returns once it is kept.
int GiveToKeeper(Ref r, ray::ActorHandle<Keeper> keeper) {
  return *ray::Get(keeper.Task(&Keeper::Keep).Remote(r));
}

// The second process: passes the ref on to a nested task.
int PassOn(Ref r, ray::ActorHandle<Keeper> keeper) {
  return *ray::Get(ray::Task(GiveToKeeper).Remote(r, keeper));
}

int Pid() { return static_cast<int>(::getpid()); }

// Whether the store of the node this runs on holds the object (binary id).
bool StoredHere(std::string id) { return ray::ObjectInLocalStore(id); }

// Values packed at 5 bytes each (small ints pack at 1): kBigCount of them make about
// 366 KiB, past the inline limit, so objects of them live in shared memory.
constexpr int kBig = 1 << 24;
constexpr size_t kBigCount = 75000;
constexpr int64_t kBigSum = int64_t{kBigCount} * kBig;

// In the shared-memory store of the node this runs on.
std::vector<int> MakeBig() { return std::vector<int>(kBigCount, kBig); }

RAY_REMOTE(Keeper::Create, &Keeper::Keep, &Keeper::Drop, &Keeper::Sum, &Keeper::Pid,
           &Keeper::KeepActor, &Keeper::DropActor, &Keeper::ActorPid, GiveToKeeper, PassOn, Pid,
           StoredHere, MakeBig);

void Check(bool ok, const std::string& what) {
  if (!ok) throw std::runtime_error("check failed: " + what);
}

// Polls `done` every 50 ms for up to 30 s; whether it became true.
bool Eventually(const std::function<bool()>& done) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (std::chrono::steady_clock::now() < deadline) {
    if (done()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return done();
}

bool Stored(const std::string& id) { return ray::ObjectInLocalStore(id); }
bool ProcessAlive(int pid) { return ::kill(pid, 0) == 0; }
double FreeCpus() { return ray::AvailableResources()["CPU"]; }

// In the shared-memory store.
Ref PutBig() { return ray::Put(MakeBig()); }

// driver -> task -> nested task -> actor: the object lives while the actor keeps the
// ref, after every other process dropped its own, and is freed once the actor drops it.
void Chain() {
  auto keeper = ray::Actor(Keeper::Create).Remote();
  Ref obj = PutBig();
  const std::string id = obj.Binary();
  Check(*ray::Get(ray::Task(PassOn).Remote(obj, keeper)) == 1, "the keeper kept the ref");
  obj = Ref();  // the driver's own ref goes
  // The tasks are over and the driver holds no ref: only the actor does.
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  Check(Stored(id), "the object lives while the actor holds a ref");
  Check(*ray::Get(keeper.Task(&Keeper::Sum).Remote()) == kBigSum, "the actor reads the object");
  Check(Stored(id), "the object still lives");
  ray::Get(keeper.Task(&Keeper::Drop).Remote());
  Check(Eventually([&] { return !Stored(id); }), "the object is freed once the actor drops it");
}

// A borrower killed with kill -9 does not pin the object.
void BorrowerKilled() {
  auto keeper = ray::Actor(Keeper::Create).Remote();
  Ref obj = PutBig();
  const std::string id = obj.Binary();
  ray::Get(keeper.Task(&Keeper::Keep).Remote(obj));
  int pid = *ray::Get(keeper.Task(&Keeper::Pid).Remote());
  obj = Ref();
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  Check(Stored(id), "the object lives while the actor holds a ref");
  Check(::kill(pid, SIGKILL) == 0, "kill -9 the actor's worker");
  Check(Eventually([&] { return !Stored(id); }), "the object is freed once its borrower died");
}

// An actor whose last handle goes is killed, and its CPU returns.
void ActorLastHandle() {
  const double idle = FreeCpus();
  int pid = 0;
  {
    auto a = ray::Actor(Keeper::Create).SetResource("CPU", 1).Remote();
    pid = *ray::Get(a.Task(&Keeper::Pid).Remote());
    auto copy = a;  // copies count, and go too
    Check(FreeCpus() == idle - 1, "the actor holds a CPU");
  }
  // (A process's releases reach the raylet with its next request: this one's.)
  Check(Eventually([&] { return FreeCpus() == idle; }), "the actor's CPU returned");
  Check(Eventually([&] { return !ProcessAlive(pid); }), "the actor's worker is gone");
  std::printf("dead_actor_pid=%d\n", pid);
}

// A handle kept by another actor keeps the actor alive; once that one drops it, the
// actor dies.
void ActorHeldByActor() {
  auto holder = ray::Actor(Keeper::Create).Remote();
  int pid = 0;
  {
    auto a = ray::Actor(Keeper::Create).Remote();
    pid = *ray::Get(a.Task(&Keeper::Pid).Remote());
    ray::Get(holder.Task(&Keeper::KeepActor).Remote(a));
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  Check(ProcessAlive(pid), "the actor lives while another actor holds its handle");
  Check(*ray::Get(holder.Task(&Keeper::ActorPid).Remote()) == pid, "calls through that handle run");
  ray::Get(holder.Task(&Keeper::DropActor).Remote());
  // (FreeCpus: a request, which takes the driver's releases along.)
  Check(Eventually([&] { return FreeCpus() >= 0 && !ProcessAlive(pid); }),
        "the actor dies with its last handle");
  std::printf("dead_actor_pid=%d\n", pid);
}

// On the node with the resource "B".
bool StoredOnB(const std::string& id) {
  return *ray::Get(ray::Task(StoredHere).SetResource("B", 1).Remote(id));
}

// The chain again, with the middle task and the keeper on the other node: the object
// lives while that node holds a ref, and is freed on both nodes once it drops it.
void ChainAcrossNodes() {
  auto keeper = ray::Actor(Keeper::Create).SetResource("B", 1).Remote();
  Ref obj = PutBig();
  const std::string id = obj.Binary();
  Check(*ray::Get(ray::Task(PassOn).SetResource("B", 1).Remote(obj, keeper)) == 1,
        "the keeper kept the ref");
  obj = Ref();
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  Check(Stored(id), "the object lives while a process on the other node holds a ref");
  Check(*ray::Get(keeper.Task(&Keeper::Sum).Remote()) == kBigSum, "the keeper reads the object");
  Check(StoredOnB(id), "the keeper's node holds a copy");
  ray::Get(keeper.Task(&Keeper::Drop).Remote());
  Check(Eventually([&] { return !Stored(id); }),
        "the object is freed on its owner's node once the other node drops it");
  Check(Eventually([&] { return !StoredOnB(id); }), "the copy on the other node is freed too");
}

// A result made on the other node (stored there) and read here: both copies are freed
// once the driver drops its ref.
void ResultAcrossNodes() {
  auto r = ray::Task(MakeBig).SetResource("B", 1).Remote();
  const std::string id = r.Binary();
  Check(ray::Get(r)->size() == kBigCount, "the result is read");
  Check(Stored(id), "the node that read the result holds a copy");
  Check(StoredOnB(id), "the node that made the result holds it");
  r = decltype(r)();
  Check(Eventually([&] { return !Stored(id); }), "the copy here is freed");
  Check(Eventually([&] { return !StoredOnB(id); }), "the result is freed on the node that made it");
}

// An actor on the other node dies with its last handle here.
void ActorAcrossNodes() {
  int pid = 0;
  {
    auto a = ray::Actor(Keeper::Create).SetResource("B", 1).Remote();
    pid = *ray::Get(a.Task(&Keeper::Pid).Remote());
  }
  Check(Eventually([&] { return FreeCpus() >= 0 && !ProcessAlive(pid); }),
        "the actor on the other node dies with its last handle");
  std::printf("dead_actor_pid=%d\n", pid);
}

// The other node keeps the only ref, then dies (the test kills it once this prints
// "kept"): the object is freed once this node hears of the death.
void BorrowerNodeDies() {
  auto keeper = ray::Actor(Keeper::Create).SetResource("B", 1).Remote();
  Ref obj = PutBig();
  const std::string id = obj.Binary();
  ray::Get(keeper.Task(&Keeper::Keep).Remote(obj));
  obj = Ref();
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  Check(Stored(id), "the object lives while the other node holds a ref");
  std::printf("kept\n");
  std::fflush(stdout);
  Check(Eventually([&] { return !Stored(id); }), "the object is freed once that node died");
}

}  // namespace

RAY_MAIN(int argc, char** argv) {
  std::string c = argc > 1 ? argv[1] : "";
  try {
    if (c == "chain") {
      Chain();
    } else if (c == "borrower_killed") {
      BorrowerKilled();
    } else if (c == "actor_last_handle") {
      ActorLastHandle();
    } else if (c == "actor_held_by_actor") {
      ActorHeldByActor();
    } else if (c == "chain_across_nodes") {
      ChainAcrossNodes();
    } else if (c == "result_across_nodes") {
      ResultAcrossNodes();
    } else if (c == "actor_across_nodes") {
      ActorAcrossNodes();
    } else if (c == "borrower_node_dies") {
      BorrowerNodeDies();
    } else {
      std::fprintf(stderr, "unknown case '%s'\n", c.c_str());
      return 2;
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "case %s: %s\n", c.c_str(), e.what());
    return 1;
  }
  std::printf("CASE PASSED: %s\n", c.c_str());
  std::fflush(stdout);
  return 0;
}
