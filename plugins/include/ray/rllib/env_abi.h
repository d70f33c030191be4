#pragma once
// The env plugin boundary: plain C structs and functions, versioned, like the task
// plugins' <ray/abi.h>. A library of envs exports two symbols:
//
//   uint32_t ray_env_plugin_abi_version(void);        // checked first
//   const RayEnvPluginApi* ray_env_plugin_api(void);  // the function table
//
// <ray/rllib/env_plugin.h> defines both from RAY_ENV registrations; write envs with
// it rather than against this header.
//
// Contract:
//  * Functions returning int return 0 on success. On failure they return non-zero and
//    last_error() describes it (the plugin's thread-local text, valid until the next
//    call on the same thread). No exception crosses the boundary.
//  * An env handle (void*) is created by create() and owned by the caller, who
//    releases it with close(). One thread at a time per env; different envs may be
//    used from different threads.
//  * Stepping allocates nothing across the boundary: the caller passes the action and
//    a buffer of exactly obs_size floats that reset() and step() fill; obs_size is the
//    observation space's flat size (Space::flat_size(): a Box's element count, 1 for
//    a Discrete, the sum of the parts' for a Tuple or a Dict).
//  * Strings and arrays returned by the plugin stay owned by it: list()'s until the
//    library is unloaded, spaces()'s while the env lives.

#include <stddef.h>
#include <stdint.h>

// 1 was the C++-object boundary of earlier releases (an Env* handed over); 2 had Box
// and Discrete spaces only.
#define RAY_ENV_PLUGIN_ABI_VERSION 3u

extern "C" {

// One env the library offers: Gymnasium's registration record.
typedef struct RayEnvInfo {
  const char* id;                // e.g. "ReachTarget-v0"
  int32_t max_episode_steps;     // > 0: the runtime wraps the env in a TimeLimit
  uint8_t has_reward_threshold;  // 0: no threshold
  double reward_threshold;
} RayEnvInfo;

enum {
  RAY_ENV_SPACE_BOX = 0,
  RAY_ENV_SPACE_DISCRETE = 1,
  RAY_ENV_SPACE_TUPLE = 2,  // observation spaces only
  RAY_ENV_SPACE_DICT = 3,   // observation spaces only
};

// An observation or action space, pointing into the plugin's storage.
typedef struct RayEnvSpace {
  int32_t kind;          // RAY_ENV_SPACE_*
  int64_t n;             // Discrete: the values are 0 .. n-1
  const float* low;      // Box: `size` lower bounds (may be -inf)
  const float* high;     // Box: `size` upper bounds (may be +inf)
  int64_t size;          // Box: number of elements, the product of shape
  const int64_t* shape;  // Box: `ndim` dimensions
  int64_t ndim;
  const struct RayEnvSpace* parts;  // Tuple, Dict: `num_parts` spaces (a Dict's in key order)
  const char* const* keys;          // Dict: `num_parts` keys, sorted
  int64_t num_parts;
} RayEnvSpace;

// What a step produced besides its observation.
typedef struct RayEnvStepResult {
  double reward;
  uint8_t terminated;
  uint8_t truncated;
} RayEnvStepResult;

typedef struct RayEnvPluginApi {
  uint32_t abi_version;  // RAY_ENV_PLUGIN_ABI_VERSION
  // The envs offered: sets *infos to `count` records.
  size_t (*list)(const RayEnvInfo** infos);
  // A new env of a listed id. config: a JSON object, RLlib's env_config.
  // worker_index (0: the local worker) and vector_index say which copy this is.
  int (*create)(const char* id, const char* config_json, size_t config_len, int32_t worker_index,
                int32_t vector_index, void** env_out);
  int (*spaces)(void* env, RayEnvSpace* observation, RayEnvSpace* action);
  // has_seed == 0: no seed (the env's RNG stream continues).
  int (*reset)(void* env, uint8_t has_seed, uint64_t seed, float* obs, size_t obs_size);
  // A Discrete action space reads action_index; a Box one reads action_size values.
  int (*step)(void* env, int64_t action_index, const float* action_values, size_t action_size,
              float* obs, size_t obs_size, RayEnvStepResult* result);
  void (*close)(void* env);
  const char* (*last_error)(void);
} RayEnvPluginApi;

typedef uint32_t (*RayEnvPluginAbiVersionFn)(void);
typedef const RayEnvPluginApi* (*RayEnvPluginApiFn)(void);

}  // extern "C"
