// Jobs for the state API and GPU suites. Each case prints "key=value" lines the
// tests check.
//   args: <case> [dir]    cases: state [sync dir], gpus <scratch dir>, gpu_actor

#include <ray/api.h>

#include <dirent.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

namespace {

int Square(int x) { return x * x; }

int Boom(int) { throw std::runtime_error("boom"); }

// Sleeps inside a profile span, so the span and the task both have some length.
int SpanInTask(int ms) {
  ray::Profile span("inside_task");
  std::this_thread::sleep_for(std::chrono::milliseconds(ms));
  return ms;
}

ray::Blob Big(uint64_t size) { return ray::Blob(std::string(size, 'x')); }

// Waits (at most 60 s) until the file exists; whether it came.
bool AwaitFile(const std::string& path) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (std::chrono::steady_clock::now() < deadline) {
    if (::access(path.c_str(), F_OK) == 0) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return false;
}

class Keeper {
 public:
  static Keeper* Create() { return new Keeper(); }
  int Bump() { return ++n_; }
  // Leaves <dir>/holding, then waits for <dir>/release.
  bool Hold(std::string dir) {
    std::ofstream(dir + "/holding").put('x');
    return AwaitFile(dir + "/release");
  }

 private:
  int n_ = 0;
};

std::string Env() {
  const char* v = std::getenv("CUDA_VISIBLE_DEVICES");
  return v ? v : "<unset>";
}

std::string Ids(const std::vector<int>& ids) {
  std::string out;
  for (int id : ids) out += (out.empty() ? "" : ",") + std::to_string(id);
  return out;
}

// "ids|env" as the task sees them; holds its GPUs for `ms` so that grants overlap.
std::string GpuView(int ms) {
  std::this_thread::sleep_for(std::chrono::milliseconds(ms));
  return Ids(ray::GetGpuIds()) + "|" + Env();
}

// GpuView once `n` tasks have arrived at `dir` (each leaves a file there): tasks
// that rendezvous hold their GPUs at the same time. Waits at most 20 s.
std::string GpuRendezvous(std::string dir, std::string tag, int n) {
  std::string mine = dir + "/" + tag + "-" + std::to_string(::getpid());
  if (FILE* f = std::fopen(mine.c_str(), "w")) std::fclose(f);
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (std::chrono::steady_clock::now() < deadline) {
    int arrived = 0;
    if (DIR* d = ::opendir(dir.c_str())) {
      while (dirent* e = ::readdir(d)) arrived += std::string(e->d_name).rfind(tag + "-", 0) == 0;
      ::closedir(d);
    }
    if (arrived >= n) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return GpuView(0);
}

class GpuHolder {
 public:
  static GpuHolder* Create() { return new GpuHolder(); }
  std::string View() { return GpuView(0); }
};

}  // namespace

RAY_REMOTE(Square, Boom, SpanInTask, Big, Keeper::Create, &Keeper::Bump, &Keeper::Hold, GpuView,
           GpuRendezvous, GpuHolder::Create, &GpuHolder::View);

RAY_MAIN(int argc, char** argv) {
  std::string c = argc > 1 ? argv[1] : "";
  if (c == "state") {
    std::string out;
    auto line = [&](const std::string& key, const std::string& value) {
      out += key + "=" + value + "\n";
    };
    {
      ray::Profile span("driver_span");
      std::vector<ray::ObjectRef<int>> refs;
      for (int i = 0; i < 5; ++i) refs.push_back(ray::Task(Square).Remote(i));
      ray::Get(refs);
    }
    try {
      ray::Get(ray::Task(Boom).SetMaxRetries(0).Remote(1));
    } catch (const ray::TaskError&) {
    }
    line("span_task", std::to_string(*ray::Get(ray::Task(SpanInTask).Remote(30))));
    auto keeper = ray::Actor(Keeper::Create).SetName("keeper").Remote();
    ray::Get(keeper.Task(&Keeper::Bump).Remote());
    ray::Get(keeper.Task(&Keeper::Bump).Remote());  // the actor runs: a direct call
    auto doomed = ray::Actor(Keeper::Create).Remote();
    ray::Get(doomed.Task(&Keeper::Bump).Remote());
    doomed.Kill();
    auto hex = [](const std::string& b) { return ray::ObjectRef<int>(b).ID(); };
    line("keeper", hex(keeper.Binary()));
    line("doomed", hex(doomed.Binary()));
    auto big = ray::Task(Big).Remote(uint64_t{1} << 20);
    ray::Get(big);
    line("big_object", big.ID());
    auto nodes = ray::Nodes();
    line("nodes", std::to_string(nodes.size()));
    for (const auto& n : nodes) {
      line("node", n.node_id + "|" + n.address + "|" + (n.alive ? "1" : "0") + "|" +
                       std::to_string(static_cast<int>(n.resources_total.at("CPU"))));
    }
    line("self", ray::GetNodeId());
    std::printf("%s", out.c_str());
    std::fflush(stdout);
    // With a directory: writes the lines to <dir>/out.txt and keeps the job (its
    // actor and objects) alive until <dir>/release exists (at most 60 s), a second
    // actor running Keeper::Hold (a direct call) meanwhile; <dir>/holding tells when
    // that call runs.
    if (argc > 2) {
      std::string dir = argv[2];
      if (FILE* f = std::fopen((dir + "/out.tmp").c_str(), "w")) {
        std::fputs(out.c_str(), f);
        std::fclose(f);
        std::rename((dir + "/out.tmp").c_str(), (dir + "/out.txt").c_str());
      }
      auto holder = ray::Actor(Keeper::Create).Remote();
      ray::Get(holder.Task(&Keeper::Bump).Remote());  // it runs: the next call is direct
      ray::Get(holder.Task(&Keeper::Hold).Remote(dir));
    }
    return 0;
  }
  if (c == "gpus") {
    std::printf("driver=%s\n", Ids(ray::GetGpuIds()).c_str());
    std::printf("none=%s\n", ray::Get(ray::Task(GpuView).Remote(0))->c_str());
    std::printf("two=%s\n", ray::Get(ray::Task(GpuView).SetResource("GPU", 2).Remote(0))->c_str());
    // args: gpus <scratch dir>, where concurrent tasks meet.
    std::string dir = argc > 2 ? argv[2] : "/tmp";
    // Two whole-GPU tasks at once: different ids.
    auto a = ray::Task(GpuRendezvous).SetResource("GPU", 1).Remote(dir, "one", 2);
    auto b = ray::Task(GpuRendezvous).SetResource("GPU", 1).Remote(dir, "one", 2);
    std::printf("one_a=%s\none_b=%s\n", ray::Get(a)->c_str(), ray::Get(b)->c_str());
    // Two half-GPU tasks at once: packed onto one id.
    auto h1 = ray::Task(GpuRendezvous).SetResource("GPU", 0.5).Remote(dir, "half", 2);
    auto h2 = ray::Task(GpuRendezvous).SetResource("GPU", 0.5).Remote(dir, "half", 2);
    std::printf("half_a=%s\nhalf_b=%s\n", ray::Get(h1)->c_str(), ray::Get(h2)->c_str());
    return 0;
  }
  if (c == "gpu_actor") {
    // The actor holds GPU 1 id for life; a task meanwhile gets the other one.
    auto holder = ray::Actor(GpuHolder::Create).SetResource("GPU", 1).Remote();
    std::printf("actor_first=%s\n", ray::Get(holder.Task(&GpuHolder::View).Remote())->c_str());
    std::printf("task_meanwhile=%s\n",
                ray::Get(ray::Task(GpuView).SetResource("GPU", 1).Remote(0))->c_str());
    std::printf("actor_again=%s\n", ray::Get(holder.Task(&GpuHolder::View).Remote())->c_str());
    return 0;
  }
  std::fprintf(stderr, "unknown case '%s'\n", c.c_str());
  return 2;
}
