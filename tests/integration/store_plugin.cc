// The job of object_store_test: a full object store spills, restores and refuses;
// a flood of small puts leaves the raylet's memory bounded.
//
//   args: <case> ...
//     spill TEMP_DIR COUNT BYTES
//         COUNT tasks each return a BYTES-byte Blob (together more than the store
//         holds); then the driver Gets each and a task takes each as its argument.
//         Prints "made=ok", "driver=ok", "argument=ok" (or what differed) and
//         "spill_files=N", the files under TEMP_DIR's session spill directories.
//     put_spill TEMP_DIR COUNT BYTES
//         The driver puts COUNT objects of BYTES bytes (together more than the store
//         holds), keeping their refs; then Gets each and a task takes each as its
//         argument. Prints "put=ok", "driver=ok", "argument=ok" (or what differed)
//         and "spill_files=N".
//     refuse BYTES
//         The driver puts objects of BYTES bytes, keeping them and the values it got
//         back (so mapping them), until the store refuses one. Prints
//         "refused=<the error>".
//     copies COUNT BYTES
//         The driver puts COUNT objects of BYTES bytes; a task on the node with the
//         "Special" resource takes each as its argument (the node pulls a copy), then
//         again the first ones (whose copies a small store there evicted). Prints
//         "first=ok" and "again=ok" (or what differed).
//     blocked_spill DIR BYTES
//         A task's result of BYTES bytes, unread, is pushed out of the store by a
//         second one (the test makes its spill file a pipe nobody reads yet: its
//         spill cannot end); meanwhile the driver runs a small task. Notes in DIR:
//         "first" (the first result's id, once stored; then it waits for DIR/go) and
//         "small" (once the small task ended; then it waits for DIR/go2 and reads the
//         first back). Prints "first=ok" (or what differed).
//     flood PRODUCERS COUNT BYTES
//         The driver and PRODUCERS - 1 tasks each put COUNT objects of BYTES bytes
//         (below the inline limit), dropping each at once. Prints "raylet_before_kib=N" and
//         "raylet_peak_kib=N" (the raylet's VmRSS before, and its VmHWM after).

#include <dirent.h>
#include <ray/api.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "tests/test_util/proc_memory.h"

namespace {

// Differs between objects, neighbouring bytes and pages.
char PatternAt(uint64_t seed, size_t i) { return static_cast<char>(seed * 131 + i * 7 + i / 4096); }

std::string Pattern(uint64_t seed, size_t size) {
  std::string bytes(size, '\0');
  for (size_t i = 0; i < size; ++i) bytes[i] = PatternAt(seed, i);
  return bytes;
}

std::string Verify(const ray::Blob& blob, uint64_t seed, size_t size) {
  if (blob.size() != size) return "size " + std::to_string(blob.size());
  for (size_t i = 0; i < size; ++i) {
    if (blob.data()[i] != PatternAt(seed, i)) {
      return "object " + std::to_string(seed) + " byte " + std::to_string(i) + " differs";
    }
  }
  return "ok";
}

ray::Blob Make(uint64_t seed, uint64_t size) { return ray::Blob(Pattern(seed, size)); }
std::string Check(ray::Blob blob, uint64_t seed, uint64_t size) { return Verify(blob, seed, size); }
RAY_REMOTE(Make, Check);

// Entries of `dir` (without . and ..); 0 if it cannot be read.
int CountEntries(const std::string& dir) {
  DIR* d = ::opendir(dir.c_str());
  if (!d) return 0;
  int n = 0;
  while (dirent* e = ::readdir(d)) n += e->d_name[0] != '.';
  ::closedir(d);
  return n;
}

int SpillFiles(const std::string& temp_dir) {
  int n = 0;
  DIR* d = ::opendir(temp_dir.c_str());
  if (!d) return 0;
  while (dirent* e = ::readdir(d)) {
    if (std::string(e->d_name).rfind("session_", 0) == 0) {
      n += CountEntries(temp_dir + "/" + e->d_name + "/spill");
    }
  }
  ::closedir(d);
  return n;
}

// The raylet this driver's `ray run` started: a child of this process or its parent
// whose command is `ray _raylet ...`; 0 if none.
int RayletPid() {
  DIR* d = ::opendir("/proc");
  if (!d) return 0;
  int found = 0;
  while (dirent* e = ::readdir(d)) {
    int pid = std::atoi(e->d_name);
    if (pid <= 0) continue;
    std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
    std::string line;
    std::getline(stat, line);
    size_t close = line.rfind(')');
    if (close == std::string::npos) continue;
    char state;
    int ppid = 0;
    if (std::sscanf(line.c_str() + close + 1, " %c %d", &state, &ppid) != 2) continue;
    if (ppid != ::getpid() && ppid != ::getppid()) continue;
    std::ifstream cmd("/proc/" + std::to_string(pid) + "/cmdline");
    std::string argv0, argv1;
    std::getline(cmd, argv0, '\0');
    std::getline(cmd, argv1, '\0');
    if (argv1 == "_raylet") found = pid;
  }
  ::closedir(d);
  return found;
}

// Reads each object back, the i-th the pattern of seed i: in the driver (each Get's
// mapping goes with its Blob), then as a task's argument. Prints "driver=" and
// "argument=": "ok" or what differed first.
void ReadBack(const std::vector<ray::ObjectRef<ray::Blob>>& refs, uint64_t size) {
  std::string driver = "ok", argument = "ok";
  for (uint64_t i = 0; i < refs.size() && driver == "ok"; ++i) {
    try {
      driver = Verify(*ray::Get(refs[i]), i, size);
    } catch (const std::exception& e) {
      driver = e.what();
    }
  }
  for (uint64_t i = 0; i < refs.size() && argument == "ok"; ++i) {
    try {
      argument = *ray::Get(ray::Task(Check).Remote(refs[i], i, size));
    } catch (const std::exception& e) {
      argument = e.what();
    }
  }
  std::printf("driver=%s\nargument=%s\n", driver.c_str(), argument.c_str());
}

int Spill(const std::string& temp_dir, uint64_t count, uint64_t size) {
  std::vector<ray::ObjectRef<ray::Blob>> refs;
  for (uint64_t i = 0; i < count; ++i) refs.push_back(ray::Task(Make).Remote(i, size));
  std::string made = "ok";
  try {
    ray::Wait(refs, refs.size());
  } catch (const std::exception& e) {
    made = e.what();
  }
  std::printf("spill_files=%d\nmade=%s\n", SpillFiles(temp_dir), made.c_str());
  ReadBack(refs, size);
  return 0;
}

int PutSpill(const std::string& temp_dir, uint64_t count, uint64_t size) {
  std::vector<ray::ObjectRef<ray::Blob>> refs;
  std::string put = "ok";
  for (uint64_t i = 0; i < count && put == "ok"; ++i) {
    try {
      refs.push_back(ray::Put(ray::Blob(Pattern(i, size))));
    } catch (const std::exception& e) {
      put = e.what();
    }
  }
  std::printf("spill_files=%d\nput=%s\n", SpillFiles(temp_dir), put.c_str());
  ReadBack(refs, size);
  return 0;
}

int Refuse(uint64_t size) {
  std::vector<ray::ObjectRef<ray::Blob>> kept;
  std::vector<std::shared_ptr<ray::Blob>> read;  // each maps its object
  for (int i = 0; i < 1000; ++i) {
    try {
      kept.push_back(ray::Put(ray::Blob(Pattern(i, size))));
      read.push_back(ray::Get(kept.back()));
    } catch (const std::exception& e) {
      std::printf("refused=%s\n", e.what());
      return 0;
    }
  }
  std::printf("refused=never\n");
  return 0;
}

int Copies(uint64_t count, uint64_t size) {
  std::vector<ray::ObjectRef<ray::Blob>> refs;
  for (uint64_t i = 0; i < count; ++i) refs.push_back(ray::Put(ray::Blob(Pattern(i, size))));
  auto check = [&](uint64_t from, uint64_t to) -> std::string {
    for (uint64_t i = from; i < to; ++i) {
      try {
        std::string got =
            *ray::Get(ray::Task(Check).SetResource("Special", 1).Remote(refs[i], i, size));
        if (got != "ok") return got;
      } catch (const std::exception& e) {
        return e.what();
      }
    }
    return "ok";
  };
  std::printf("first=%s\n", check(0, count).c_str());
  std::printf("again=%s\n", check(0, count / 2).c_str());
  return 0;
}

void Note(const std::string& path, const std::string& text) {
  std::ofstream(path) << text;
}

// Whether `path` exists within 60 s.
bool AwaitFile(const std::string& path) {
  for (int i = 0; i < 600; ++i) {
    if (::access(path.c_str(), F_OK) == 0) return true;
    ::usleep(100 * 1000);
  }
  std::fprintf(stderr, "store_plugin: %s did not appear within 60 s\n", path.c_str());
  return false;
}

int BlockedSpill(const std::string& dir, uint64_t size) {
  auto first = ray::Task(Make).Remote(uint64_t{1}, size);
  if (ray::Wait(std::vector{first}, 1, 60000).ready.empty()) return 1;
  Note(dir + "/first", first.ID());
  if (!AwaitFile(dir + "/go")) return 1;
  auto second = ray::Task(Make).Remote(uint64_t{2}, size);  // the store spills the first for it
  if (ray::Wait(std::vector{second}, 1, 60000).ready.empty()) return 1;
  Note(dir + "/small", *ray::Get(ray::Task(Check).Remote(ray::Blob(Pattern(3, 64)), uint64_t{3}, uint64_t{64}),
                                 std::chrono::seconds(60)));
  if (!AwaitFile(dir + "/go2")) return 1;
  std::printf("first=%s\n", Verify(*ray::Get(first, std::chrono::seconds(60)), 1, size).c_str());
  return 0;
}

// `count` puts of a `size`-byte value, each dropped at once.
int PutAndDrop(uint64_t count, uint64_t size) {
  const ray::Blob value(Pattern(1, size));
  for (uint64_t i = 0; i < count; ++i) ray::Put(value);
  return 0;
}
RAY_REMOTE(PutAndDrop);

int Flood(uint64_t producers, uint64_t count, uint64_t size) {
  int raylet = RayletPid();
  if (raylet == 0) {
    std::fprintf(stderr, "store_plugin: cannot find the raylet\n");
    return 1;
  }
  auto before = ray::test_util::StatusKib(raylet, "VmRSS").value_or(-1);
  // Several processes put at once: together they send faster than the raylet reads.
  std::vector<ray::ObjectRef<int>> tasks;
  for (uint64_t i = 1; i < producers; ++i)
    tasks.push_back(ray::Task(PutAndDrop).Remote(count, size));
  PutAndDrop(count, size);
  for (auto& t : tasks) ray::Get(t);
  auto peak = ray::test_util::StatusKib(raylet, "VmHWM").value_or(-1);
  std::printf("raylet_before_kib=%lld\nraylet_peak_kib=%lld\n", static_cast<long long>(before),
              static_cast<long long>(peak));
  return 0;
}

}  // namespace

RAY_MAIN(int argc, char** argv) {
  const std::string which = argc > 1 ? argv[1] : "";
  if (which == "spill" && argc == 5) {
    return Spill(argv[2], std::stoull(argv[3]), std::stoull(argv[4]));
  }
  if (which == "put_spill" && argc == 5) {
    return PutSpill(argv[2], std::stoull(argv[3]), std::stoull(argv[4]));
  }
  if (which == "refuse" && argc == 3) return Refuse(std::stoull(argv[2]));
  if (which == "blocked_spill" && argc == 4) return BlockedSpill(argv[2], std::stoull(argv[3]));
  if (which == "copies" && argc == 4) return Copies(std::stoull(argv[2]), std::stoull(argv[3]));
  if (which == "flood" && argc == 5) {
    return Flood(std::stoull(argv[2]), std::stoull(argv[3]), std::stoull(argv[4]));
  }
  std::fprintf(stderr,
               "usage: store_plugin spill TEMP_DIR COUNT BYTES | put_spill TEMP_DIR COUNT BYTES | refuse BYTES | copies COUNT BYTES "
               "| blocked_spill DIR BYTES | flood PRODUCERS COUNT BYTES\n");
  return 2;
}
