#pragma once
// A program of the user's own as a job's driver, as in Ray's C++ API:
//
//   int main(int argc, char** argv) {
//     ray::Init();                       // or ray::Init(config)
//     int three = *ray::Get(ray::Task(Plus).Remote(1, 2));
//     ray::Shutdown();
//   }
//
// The program links the client library (CMake: `ray_add_program`, or Ray::client with
// find_package(Ray)); a plugin (RAY_MAIN, `ray run`) never calls these. Workers run
// remote functions from a plugin, never from the program: the program's RAY_REMOTE
// functions must also be built into the plugin named by code_search_path
// (`ray_add_program(name ...)` builds both `name` and `name.so` from the same sources).
// Functions are matched by their registered names.
//
// Init connects this process to a cluster as a new job's driver; Shutdown ends the
// job (its actors and objects are freed) and stops a cluster Init started. A program
// that exits without Shutdown is shut down at exit. Shutdown is refused (RayException,
// the job goes on) from a Then/GetAsync callback. Call them from one thread; the
// rest of the API follows ray/api.h's thread rules. Errors throw ray::RayException.

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <vector>

#include "ray/actor.h"
#include "ray/context.h"
#include "ray/runtime_env.h"
#include "ray/wire.h"

namespace ray {

struct RayConfig {
  // The cluster. "": $RAY_ADDRESS if set, else the newest node running on this
  // machine (under temp_dir), else a cluster started for this program and stopped by
  // Shutdown. "auto": a node running on this machine, or an error. "HOST:PORT": the
  // GCS of a running cluster.
  std::string address;
  // The cluster token. "": read from this machine's node of that cluster (needed for
  // a cluster with no node here). Never put it on a command line: ps shows those.
  std::string token;
  // The plugin holding the program's remote functions, which workers load. Empty:
  // the program's own path with ".so" appended. Exactly one plugin per job.
  std::vector<std::string> code_search_path;
  // CPUs of a cluster started for this program; < 0: all of this machine's.
  double num_cpus = -1;
  // Root of session dirs. "": $RAY_TMPDIR, else /tmp/ray.
  std::string temp_dir;
  // The job's namespace, where its named actors live and GetActor looks ("": an
  // anonymous one of the job's own), as `ray run --namespace`.
  std::string ray_namespace;
  // The job's runtime environment: its tasks and actors run in it unless they set
  // their own (ray/runtime_env.h), as `ray run --runtime-env`.
  RuntimeEnv runtime_env;
  // The lifetime of the actors the job creates (its driver, tasks and actors, on any
  // node) that do not SetLifetime: DETACHED ones outlive their creator and the job.
  ActorLifetime default_actor_lifetime = ActorLifetime::NON_DETACHED;
};

}  // namespace ray

// The client library's entry points. Weak: the plugin built from a program's sources
// is loaded by workers, where they are absent (null); a program that does not link
// the library finds them null too, and Init says what to link. Return 0, or non-zero
// with a message in `error`.
extern "C" {
__attribute__((weak)) int ray_client_init(const char* request, size_t len,
                                          const RayRuntimeApi** api, char* error,
                                          size_t error_cap);
__attribute__((weak)) int ray_client_shutdown(char* error, size_t error_cap);
}

namespace ray {

inline bool IsInitialized() { return internal::Api() != nullptr; }
inline void Shutdown();

inline void Init(const RayConfig& config) {
  if (!ray_client_init) {
    throw RayException("ray::Init: this program does not link the ray client library "
                       "(CMake: ray_add_program, or target_link_libraries(... Ray::client))");
  }
  if (IsInitialized()) throw RayException("ray::Init: already initialized (call Shutdown first)");
  internal::InitRequest r{config.address,  config.token,         config.code_search_path,
                          config.num_cpus, config.temp_dir,      config.ray_namespace,
                          config.runtime_env.ToJson(),
                          config.default_actor_lifetime == ActorLifetime::DETACHED};
  std::string request = internal::Pack(r);
  char error[1024] = {0};
  const RayRuntimeApi* api = nullptr;
  if (ray_client_init(request.data(), request.size(), &api, error, sizeof(error)) != 0) {
    throw RayException(std::string("ray::Init: ") + error);
  }
  internal::Api() = api;
  static bool at_exit = [] {
    return std::atexit([] {
      try {
        Shutdown();
      } catch (const std::exception& e) {
        std::fprintf(stderr, "%s\n", e.what());
      }
    }) == 0;
  }();
  (void)at_exit;
}

inline void Init() { Init(RayConfig{}); }

// Init with Ray's command-line flags over `config`, as Ray's C++ API reads them:
// `--ray_address=HOST:PORT` (or "auto") and `--ray_code_search_path=A.so[:B.so]`, each
// also as two arguments (`--ray_address HOST:PORT`). Arguments not starting with
// `--ray_`, and all after a `--`, are the program's, left alone. Ray's other `--ray_*`
// flags are refused by name (RayException): `--ray_redis_password` because a token on
// a command line shows in `ps` (RayConfig::token, or the node's token file, instead).
inline void Init(RayConfig& config, int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--") break;
    if (arg.rfind("--ray_", 0) != 0) continue;
    std::string name = arg.substr(0, arg.find('='));
    std::string value;
    if (name.size() < arg.size()) {
      value = arg.substr(name.size() + 1);
    } else if (i + 1 < argc && std::string(argv[i + 1]).rfind("--", 0) != 0) {
      value = argv[++i];
    } else {
      throw RayException("ray::Init: " + name + " needs a value");
    }
    if (name == "--ray_address") {
      config.address = value;
    } else if (name == "--ray_code_search_path") {
      config.code_search_path.clear();
      for (size_t start = 0; start <= value.size();) {
        size_t end = value.find(':', start);
        if (end == std::string::npos) end = value.size();
        if (end > start) config.code_search_path.push_back(value.substr(start, end - start));
        start = end + 1;
      }
    } else if (name == "--ray_redis_password") {
      throw RayException("ray::Init: --ray_redis_password is not supported: a token on a "
                         "command line shows in ps; set RayConfig::token, or let Init read "
                         "the token of a node on this machine");
    } else {
      throw RayException("ray::Init: " + name +
                         " is not supported (supported: --ray_address, --ray_code_search_path)");
    }
  }
  Init(config);
}

inline void Shutdown() {
  if (!IsInitialized() || !ray_client_shutdown) return;
  char error[1024] = {0};
  int code = ray_client_shutdown(error, sizeof(error));
  if (code != 2) internal::Api() = nullptr;  // 2: refused, the job goes on
  if (code != 0) throw RayException(std::string("ray::Shutdown: ") + error);
}

}  // namespace ray
