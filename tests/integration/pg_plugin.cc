// Jobs for the placement group suite. Each case prints "key=value" lines the test
// checks.
//   args: <case>    cases: lifecycle, pending, refused, leave, strategies, capture,
//                   hold <dir> (creates a group on a "Special" node, prints where, and
//                   keeps it until <dir>/go exists; then prints where it is now)

#include <ray/api.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

namespace {

using Bundles = std::vector<std::unordered_map<std::string, double>>;

std::string WhereAmI() { return ray::GetNodeId(); }

class Holder {
 public:
  static Holder* Create() { return new Holder(); }
  std::string Node() { return ray::GetNodeId(); }
};

bool Exists(const std::string& path) { return std::ifstream(path).good(); }

double FreeCpus() {
  auto a = ray::AvailableResources();
  return a.count("CPU") ? a["CPU"] : 0;
}

// Polls `done` every 50 ms for up to 10 s.
template <typename F>
bool Eventually(F done) {
  for (int i = 0; i < 200; ++i) {
    if (done()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return false;
}

// The error message of `what`, or "none".
template <typename F>
std::string ErrorOf(F what) {
  try {
    what();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "none";
}

void Print(const char* key, const std::string& value) {
  std::string one_line = value;
  for (char& c : one_line) {
    if (c == '\n') c = ' ';
  }
  std::printf("%s=%s\n", key, one_line.c_str());
  std::fflush(stdout);
}

std::string Join(const std::vector<std::string>& v) {
  std::string out;
  for (const auto& s : v) out += (out.empty() ? "" : ",") + s;
  return out;
}

// One task per bundle of a new group of `n` one-CPU bundles; prints the nodes the
// bundles are on and the nodes the tasks ran on, then removes the group.
void RunStrategy(const char* key, ray::PlacementStrategy strategy, int n) {
  auto pg = ray::CreatePlacementGroup(Bundles(n, {{"CPU", 1}}), strategy);
  Print((std::string(key) + "_ready").c_str(), pg.Wait(20) ? "yes" : "no");
  std::vector<ray::ObjectRef<std::string>> refs;
  for (int i = 0; i < n; ++i) refs.push_back(ray::Task(WhereAmI).SetPlacementGroup(pg, i).Remote());
  std::vector<std::string> ran;
  for (auto& r : ray::Get(refs)) ran.push_back(*r);
  Print((std::string(key) + "_bundles").c_str(), Join(pg.Info().bundle_node_ids));
  Print((std::string(key) + "_tasks").c_str(), Join(ran));
  ray::RemovePlacementGroup(pg.GetID());
  // Every node has released it (the next group is placed by what they say is free).
  Eventually([] { return FreeCpus() == 6; });
}

std::string Child() { return "ran"; }

// Submits Child (one CPU, no group named) and waits at most `seconds` for it: "ran",
// or "waited" if it did not run meanwhile.
std::string Parent(int seconds) {
  try {
    return *ray::Get(ray::Task(Child).Remote(), std::chrono::seconds(seconds));
  } catch (const ray::GetTimeoutError&) {
    return "waited";
  }
}

class Spawner {
 public:
  static Spawner* Create() { return new Spawner(); }
  std::string Spawn(int seconds) { return Parent(seconds); }
};

}  // namespace

RAY_REMOTE(WhereAmI, Holder::Create, &Holder::Node, Child, Parent, Spawner::Create,
           &Spawner::Spawn);

RAY_MAIN(int argc, char** argv) {
  std::string c = argc > 1 ? argv[1] : "";
  if (c == "lifecycle") {
    // The node has 4 CPUs: a group of two 1-CPU bundles reserves two.
    auto pg = ray::CreatePlacementGroup(
        ray::PlacementGroupCreationOptions{"pg1", Bundles{{{"CPU", 1}}, {{"CPU", 1}}},
                                           ray::PlacementStrategy::PACK});
    Print("created", pg.Wait(10) ? "yes" : "no");
    Print("id_length", std::to_string(pg.GetID().size()));
    Print("free_cpus_reserved", std::to_string(static_cast<int>(FreeCpus())));
    Print("by_name", ray::GetPlacementGroup("pg1").GetID() == pg.GetID() ? "same" : "other");
    Print("bundle_resource",
          ray::ClusterResources().count("CPU_group_0_" + pg.GetID()) ? "yes" : "no");
    auto task = ray::Task(WhereAmI).SetPlacementGroup(pg, 0).Remote();
    Print("task_in_bundle", *ray::Get(task) == ray::GetNodeId() ? "ran" : "elsewhere");
    auto any = ray::Task(WhereAmI).SetPlacementGroup(pg).Remote();
    Print("task_in_any_bundle", ray::Get(any)->empty() ? "no" : "ran");
    auto actor = ray::Actor(Holder::Create).SetPlacementGroup(pg, 1).Remote();
    Print("actor_in_bundle", ray::Get(actor.Task(&Holder::Node).Remote())->empty() ? "no" : "ran");
    Print("too_big", ErrorOf([&] {
            ray::Get(ray::Task(WhereAmI).SetResource("CPU", 2).SetPlacementGroup(pg, 0).Remote());
          }));
    Print("bad_index", ErrorOf([&] { ray::Task(WhereAmI).SetPlacementGroup(pg, 2); }));
    std::string listed = "missing";
    for (const auto& info : ray::ListPlacementGroups()) {
      if (info.id == pg.GetID()) listed = info.state + "/" + info.strategy + "/" + info.name;
    }
    Print("listed", listed);
    ray::RemovePlacementGroup(pg.GetID());
    Print("state_after_remove",
          pg.GetState() == ray::PlacementGroupState::REMOVED ? "REMOVED" : "other");
    Print("free_cpus_released",
          Eventually([] { return FreeCpus() == 4; }) ? "4" : std::to_string(FreeCpus()));
    std::string actor_error = "none";
    Eventually([&] {
      actor_error = ErrorOf([&] { ray::Get(actor.Task(&Holder::Node).Remote()); });
      return actor_error != "none";
    });
    Print("actor_after_remove", actor_error);
    Print("task_after_remove",
          ErrorOf([&] { ray::Get(ray::Task(WhereAmI).SetPlacementGroup(pg, 0).Remote()); }));
    Print("by_name_after_remove", ray::GetPlacementGroup("pg1").GetID().empty() ? "none" : "found");
    Print("wait_after_remove", pg.Wait(1) ? "true" : "false");
    return 0;
  }
  if (c == "pending") {
    // 4 CPUs: a second 3-CPU group waits until the first is removed.
    auto first = ray::CreatePlacementGroup(Bundles{{{"CPU", 3}}});
    Print("first", first.Wait(10) ? "created" : "not");
    auto second = ray::CreatePlacementGroup(Bundles{{{"CPU", 3}}});
    // A task in it waits with it.
    auto task = ray::Task(WhereAmI).SetPlacementGroup(second, 0).Remote();
    Print("second_waits", second.Wait(1) ? "no" : "yes");
    Print("second_state", second.GetState() == ray::PlacementGroupState::PENDING ? "PENDING"
                                                                               : "other");
    ray::RemovePlacementGroup(first.GetID());
    Print("second", second.Wait(10) ? "created" : "not");
    Print("task_ran", ray::Get(task)->empty() ? "no" : "yes");
    return 0;
  }
  if (c == "refused") {
    Print("too_big", ErrorOf([] { ray::CreatePlacementGroup(Bundles{{{"CPU", 64}}}); }));
    Print("strict_spread", ErrorOf([] {
            ray::CreatePlacementGroup(Bundles{{{"CPU", 1}}, {{"CPU", 1}}},
                                      ray::PlacementStrategy::STRICT_SPREAD);
          }));
    Print("strict_pack", ErrorOf([] {
            ray::CreatePlacementGroup(Bundles{{{"CPU", 3}}, {{"CPU", 3}}},
                                      ray::PlacementStrategy::STRICT_PACK);
          }));
    Print("empty", ErrorOf([] { ray::CreatePlacementGroup(Bundles{}); }));
    Print("empty_bundle", ErrorOf([] { ray::CreatePlacementGroup(Bundles{{{"CPU", 0}}}); }));
    Print("negative", ErrorOf([] { ray::CreatePlacementGroup(Bundles{{{"CPU", -1}}}); }));
    ray::CreatePlacementGroup(Bundles{{{"CPU", 1}}}, ray::PlacementStrategy::PACK, "taken");
    Print("duplicate_name", ErrorOf([] {
            ray::CreatePlacementGroup(Bundles{{{"CPU", 1}}}, ray::PlacementStrategy::PACK, "taken");
          }));
    Print("unknown_name", ray::GetPlacementGroup("nobody").GetID().empty() ? "none" : "found");
    return 0;
  }
  if (c == "leave") {
    // Created and left: it goes with the job.
    auto pg = ray::CreatePlacementGroup(Bundles{{{"CPU", 1}}}, ray::PlacementStrategy::PACK, "left");
    Print("created", pg.Wait(10) ? "yes" : "no");
    Print("id", pg.GetID());
    return 0;
  }
  if (c == "strategies") {
    // Three nodes of 2 CPUs each (RunStrategy waits for all 6 to be free again).
    RunStrategy("pack", ray::PlacementStrategy::PACK, 2);
    RunStrategy("spread", ray::PlacementStrategy::SPREAD, 3);
    RunStrategy("strict_pack", ray::PlacementStrategy::STRICT_PACK, 2);
    RunStrategy("strict_spread", ray::PlacementStrategy::STRICT_SPREAD, 3);
    Print("strict_spread_4", ErrorOf([] {
            ray::CreatePlacementGroup(Bundles(4, {{"CPU", 1}}),
                                      ray::PlacementStrategy::STRICT_SPREAD);
          }));
    // An actor in each bundle of a SPREAD group runs on its bundle's node.
    auto pg = ray::CreatePlacementGroup(Bundles(3, {{"CPU", 1}}), ray::PlacementStrategy::SPREAD);
    pg.Wait(20);
    std::vector<std::string> actors;
    for (int i = 0; i < 3; ++i) {
      auto a = ray::Actor(Holder::Create).SetPlacementGroup(pg, i).Remote();
      actors.push_back(*ray::Get(a.Task(&Holder::Node).Remote()));
    }
    Print("actors_bundles", Join(pg.Info().bundle_node_ids));
    Print("actors", Join(actors));
    return 0;
  }
  if (c == "capture") {
    // A group holds every CPU of the cluster; what runs in it submits a one-CPU task
    // naming no group: with capture_child_tasks that runs in the group, without it
    // waits for a CPU outside it.
    auto pg = ray::CreatePlacementGroup(Bundles(2, {{"CPU", 1}}));
    Print("ready", pg.Wait(20) ? "yes" : "no");
    Print("free_cpus", std::to_string(static_cast<int>(FreeCpus())));
    Print("task_captures",
          *ray::Get(ray::Task(Parent).SetPlacementGroup(pg, 0, true).Remote(20)));
    auto spawner = ray::Actor(Spawner::Create).SetPlacementGroup(pg, 0, true).Remote();
    Print("actor_captures", *ray::Get(spawner.Task(&Spawner::Spawn).Remote(20)));
    spawner.Kill();
    Print("task_does_not", *ray::Get(ray::Task(Parent).SetPlacementGroup(pg, 0).Remote(3)));
    ray::RemovePlacementGroup(pg.GetID());
    // A group of one bundle, the parent in any bundle (so holding the group's one CPU):
    // waiting in Get it lends that CPU to its child.
    auto one = ray::CreatePlacementGroup(Bundles(1, {{"CPU", 1}}));
    Print("one_ready", one.Wait(20) ? "yes" : "no");
    Print("one_bundle_captures",
          *ray::Get(ray::Task(Parent).SetPlacementGroup(one, -1, true).Remote(20)));
    ray::RemovePlacementGroup(one.GetID());
    return 0;
  }
  if (c == "hold") {
    std::string dir = argc > 2 ? argv[2] : ".";
    auto pg = ray::CreatePlacementGroup(Bundles{{{"Special", 1}}}, ray::PlacementStrategy::PACK, "held");
    Print("created", pg.Wait(20) ? "yes" : "no");
    Print("node", pg.Info().bundle_node_ids[0]);
    for (int i = 0; i < 600 && !Exists(dir + "/go"); ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    Print("again", pg.Wait(30) ? "yes" : "no");
    Print("node_now", pg.Info().bundle_node_ids[0]);
    // (The bundle has no CPU: the task asks for none.)
    Print("task_node",
          *ray::Get(ray::Task(WhereAmI).SetResource("CPU", 0).SetPlacementGroup(pg, 0).Remote()));
    return 0;
  }
  std::printf("unknown case '%s'\n", c.c_str());
  return 2;
}
