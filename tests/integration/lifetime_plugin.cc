// Jobs for the actor-lifetime suite (lifetime_test.cc): detached actors, namespaces,
// kills from other nodes. Each case prints "key=value" lines the test checks.
//   args: <case> [name] [namespace]
//   create_detached NAME [VALUE]  a detached Counter named NAME holding VALUE (default 5)
//   create NAME [VALUE]           the same, not detached (it ends with this job)
//   use NAME [NS]                 looks NAME up (in NS, "" the job's), adds 1, prints it
//   lookup NAME [NS]              found=0|1
//   kill NAME                     kills NAME by handle; prints whether calls then fail
//   kill_from_task                a Counter on the node with resource "Head" killed by a
//                                 task on the node with "Special", by handle and by name
//   kill_restart_from_task        the same with no_restart=false: the actor restarts
//   runtime_env                   what tasks see of the job's runtime_env and their own:
//                                 env vars, the working_dir's data.txt read on the
//                                 "Special" node, the extra plugin's mark
//   task_runtime_env DIR PLUGIN   tasks and an actor with their own working_dir (DIR)
//                                 and plugins ([PLUGIN]), beside tasks without

#include <ray/api.h>

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

namespace {

std::string ReadData();

class Counter {
 public:
  static Counter* Create(int start) { return new Counter{start}; }
  int Add(int x) { return value_ += x; }
  int Pid() { return static_cast<int>(::getpid()); }
  std::string Node() { return ray::GetNodeId(); }
  std::string Data() { return ReadData(); }

  int value_ = 0;
};

// Kills the actor named `name` (looked up in the task's job's namespace), or the one
// `handle` names if `name` is empty. Runs on whichever node the caller placed it.
std::string KillIt(ray::ActorHandle<Counter> handle, std::string name, bool no_restart) {
  if (!name.empty()) {
    auto found = ray::GetActor<Counter>(name);
    if (!found) return "not_found";
    handle = *found;
  }
  ray::KillActor(handle, no_restart);
  return ray::GetNodeId();
}

// What a task sees of its runtime environment: "NAME=value|..." for the variables
// asked, then its pid.
std::string Env(std::vector<std::string> names) {
  std::string out;
  for (const auto& n : names) {
    const char* v = std::getenv(n.c_str());
    out += n + "=" + (v ? v : "") + "|";
  }
  return out + "pid=" + std::to_string(::getpid());
}

// The working_dir's data.txt as the task reads it (relative to its cwd), and where.
std::string ReadData() {
  std::string text;
  if (std::FILE* f = std::fopen("data.txt", "r")) {
    char buf[256];
    size_t n = std::fread(buf, 1, sizeof(buf), f);
    text.assign(buf, n);
    std::fclose(f);
  }
  return text + "@" + ray::GetNodeId();
}

RAY_REMOTE(Counter::Create, &Counter::Add, &Counter::Pid, &Counter::Node, &Counter::Data, KillIt, Env,
           ReadData);

// Whether `f` turns true within 20 s (a kill lands on its node asynchronously).
template <typename F>
bool Eventually(F f) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (!f()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return true;
}

// Whether a call to the actor fails with ActorDiedError.
bool CallFails(const ray::ActorHandle<Counter>& c) {
  try {
    ray::Get(c.Task(&Counter::Add).Remote(0));
    return false;
  } catch (const ray::ActorDiedError&) {
    return true;
  }
}

// The actor's pid, or 0 if a call failed because it died (it may be restarting).
int PidOf(const ray::ActorHandle<Counter>& c) {
  try {
    return *ray::Get(c.Task(&Counter::Pid).Remote());
  } catch (const ray::ActorDiedError&) {
    return 0;
  }
}

int Create(const std::string& name, int value, bool detached) {
  auto c = ray::Actor(Counter::Create)
               .SetName(name)
               .SetLifetime(detached ? ray::ActorLifetime::DETACHED
                                     : ray::ActorLifetime::NON_DETACHED)
               .Remote(value);
  std::printf("value=%d\npid=%d\n", *ray::Get(c.Task(&Counter::Add).Remote(0)),
              *ray::Get(c.Task(&Counter::Pid).Remote()));
  return 0;
}

// Kills a Counter on the "Head" node from a task on the "Special" node, first by
// handle then (a second actor) by name.
int KillFromTask(bool no_restart) {
  auto make = [&](const std::string& name) {
    return ray::Actor(Counter::Create)
        .SetName(name)
        .SetResource("Head", 0.5)
        .SetMaxRestarts(no_restart ? 0 : 1)
        .Remote(10);
  };
  auto by_handle = make("by_handle");
  auto by_name = make("by_name");
  int pid1 = *ray::Get(by_handle.Task(&Counter::Pid).Remote());
  int pid2 = *ray::Get(by_name.Task(&Counter::Pid).Remote());
  std::printf("actor_node=%s\npid1=%d\npid2=%d\n",
              ray::Get(by_handle.Task(&Counter::Node).Remote())->c_str(), pid1, pid2);
  ray::Get(by_handle.Task(&Counter::Add).Remote(1));
  auto k1 = ray::Task(KillIt).SetResource("Special", 1).Remote(by_handle, std::string(), no_restart);
  std::printf("killer_node=%s\n", ray::Get(k1)->c_str());
  auto k2 = ray::Task(KillIt)
                .SetResource("Special", 1)
                .Remote(ray::ActorHandle<Counter>(), std::string("by_name"), no_restart);
  std::printf("killer_by_name=%s\n", ray::Get(k2)->c_str());
  if (no_restart) {
    std::printf("handle_calls_fail=%d\n", Eventually([&] { return CallFails(by_handle); }));
    std::printf("name_calls_fail=%d\n", Eventually([&] { return CallFails(by_name); }));
    std::printf("gone_by_name=%d\n",
                Eventually([&] { return !ray::GetActor<Counter>("by_name"); }) ? 1 : 0);
  } else {
    // Restarted: a new worker, the constructor run again (the value is 10 anew).
    int pid = 0;
    bool restarted = Eventually([&] {
      pid = PidOf(by_handle);
      return pid != 0 && pid != pid1;
    });
    std::printf("restarted=%d\nvalue_after=%d\npid_after=%d\n", restarted ? 1 : 0,
                *ray::Get(by_handle.Task(&Counter::Add).Remote(0)), pid);
    std::printf("by_name_restarted=%d\n", Eventually([&] {
                  int p = PidOf(by_name);
                  return p != 0 && p != pid2;
                }) ? 1 : 0);
    ray::KillActor(by_handle);
    ray::KillActor(by_name);
  }
  return 0;
}

int TaskRuntimeEnvCase(const std::string& dir, const std::string& plugin) {
  std::vector<std::string> vars{"RT_EXTRA_PLUGIN"};
  ray::RuntimeEnv wd;
  wd.Set("working_dir", dir);
  std::printf("own_dir_remote=%s\n",
              ray::Get(ray::Task(ReadData).SetRuntimeEnv(wd).SetResource("Special", 1).Remote())->c_str());
  std::printf("own_dir_here=%s\n", ray::Get(ray::Task(ReadData).SetRuntimeEnv(wd).Remote())->c_str());
  std::printf("no_dir=%s\n", ray::Get(ray::Task(ReadData).Remote())->c_str());
  ray::RuntimeEnv plugins;
  plugins.SetList("plugins", {plugin});
  std::printf("own_plugin=%s\n", ray::Get(ray::Task(Env).SetRuntimeEnv(plugins).Remote(vars))->c_str());
  std::printf("no_plugin=%s\n", ray::Get(ray::Task(Env).Remote(vars))->c_str());
  auto actor = ray::Actor(Counter::Create).SetRuntimeEnv(wd).SetResource("Special", 1).Remote(0);
  std::printf("actor_dir=%s\n", ray::Get(actor.Task(&Counter::Data).Remote())->c_str());
  ray::RuntimeEnv missing;
  missing.Set("working_dir", dir + "/no-such-dir");
  try {
    ray::Task(ReadData).SetRuntimeEnv(missing).Remote();
    std::printf("missing_dir=accepted\n");
  } catch (const ray::RayException& e) {
    std::printf("missing_dir=refused: %s\n", e.what());
  }
  return 0;
}

int RuntimeEnvCase() {
  std::vector<std::string> vars{"RT_MODE", "RT_TASK", "RT_EXTRA_PLUGIN"};
  std::printf("job_task=%s\n", ray::Get(ray::Task(Env).Remote(vars))->c_str());
  ray::RuntimeEnv own;
  own.Set("env_vars", {{"RT_TASK", "mine"}, {"RT_MODE", "slow"}});
  std::printf("own_task=%s\n",
              ray::Get(ray::Task(Env).SetRuntimeEnv(own).Remote(vars))->c_str());
  std::printf("remote_data=%s\n",
              ray::Get(ray::Task(ReadData).SetResource("Special", 1).Remote())->c_str());
  ray::RuntimeEnv unknown;
  unknown.Set("pip", {{"numpy", "1.0"}});
  try {
    ray::Task(Env).SetRuntimeEnv(unknown).Remote(vars);
    std::printf("unknown_key=accepted\n");
  } catch (const ray::RayException& e) {
    std::printf("unknown_key=refused: %s\n", e.what());
  }
  return 0;
}

}  // namespace

RAY_MAIN(int argc, char** argv) {
  std::string c = argc > 1 ? argv[1] : "";
  std::string name = argc > 2 ? argv[2] : "";
  std::string third = argc > 3 ? argv[3] : "";
  if (c == "create_detached" || c == "create") {
    return Create(name, third.empty() ? 5 : std::atoi(third.c_str()), c == "create_detached");
  }
  if (c == "use" || c == "lookup") {
    auto found = ray::GetActor<Counter>(name, third);
    std::printf("found=%d\n", found ? 1 : 0);
    if (found && c == "use") {
      std::printf("value=%d\npid=%d\n", *ray::Get(found->Task(&Counter::Add).Remote(1)),
                  *ray::Get(found->Task(&Counter::Pid).Remote()));
    }
    return 0;
  }
  if (c == "kill") {
    auto found = ray::GetActor<Counter>(name);
    std::printf("found=%d\n", found ? 1 : 0);
    if (!found) return 1;
    found->Kill();
    std::printf("calls_fail=%d\n", Eventually([&] { return CallFails(*found); }) ? 1 : 0);
    std::printf("gone=%d\n", Eventually([&] { return !ray::GetActor<Counter>(name); }) ? 1 : 0);
    return 0;
  }
  if (c == "kill_from_task") return KillFromTask(true);
  if (c == "kill_restart_from_task") return KillFromTask(false);
  if (c == "runtime_env") return RuntimeEnvCase();
  if (c == "task_runtime_env" && argc > 3) return TaskRuntimeEnvCase(argv[2], argv[3]);
  std::fprintf(stderr, "unknown case '%s'\n", c.c_str());
  return 2;
}
