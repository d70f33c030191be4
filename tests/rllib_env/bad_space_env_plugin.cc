// An env plugin written against the C boundary itself (<ray/rllib/env_abi.h>), whose
// envs describe spaces the SDK could never build: the runtime must refuse each by name
// rather than abort. Each env's observation space is broken; its action space is
// Discrete(2). Stepping is never reached.

#include <ray/rllib/env_abi.h>

#include <cstring>
#include <limits>

namespace {

const float kLow[] = {1.0f};
const float kHigh[] = {0.0f};  // below kLow
const int64_t kShape[] = {1};
const int64_t kWrongShape[] = {3};
const char* const kUnsortedKeys[] = {"b", "a"};

RayEnvSpace Discrete2() {
  RayEnvSpace s{};
  s.kind = RAY_ENV_SPACE_DISCRETE;
  s.n = 2;
  return s;
}

RayEnvSpace g_self_loop{};  // a Tuple whose part is itself
RayEnvSpace g_unsorted_parts[2];

const RayEnvInfo kInfos[] = {
    {"InvertedBox-v0", 0, 0, 0},  {"MisshapenBox-v0", 0, 0, 0}, {"UnknownKind-v0", 0, 0, 0},
    {"LoopingTuple-v0", 0, 0, 0}, {"UnsortedDict-v0", 0, 0, 0}, {"EmptyTuple-v0", 0, 0, 0},
};
int g_made[6];  // an env handle points at its index here

size_t List(const RayEnvInfo** infos) {
  *infos = kInfos;
  return sizeof(kInfos) / sizeof(kInfos[0]);
}

int Create(const char* id, const char*, size_t, int32_t, int32_t, void** env_out) {
  for (int i = 0; i < 6; ++i) {
    if (std::strcmp(id, kInfos[i].id) == 0) {
      g_made[i] = i;
      *env_out = &g_made[i];
      return 0;
    }
  }
  return 1;
}

int Spaces(void* env, RayEnvSpace* observation, RayEnvSpace* action) {
  *action = Discrete2();
  RayEnvSpace s{};
  switch (*static_cast<int*>(env)) {
    case 0:
      s.kind = RAY_ENV_SPACE_BOX;
      s.low = kLow, s.high = kHigh, s.size = 1, s.shape = kShape, s.ndim = 1;
      break;
    case 1:
      s.kind = RAY_ENV_SPACE_BOX;
      s.low = kLow, s.high = kLow, s.size = 1, s.shape = kWrongShape, s.ndim = 1;
      break;
    case 2:
      s.kind = 9;
      break;
    case 3:
      g_self_loop.kind = RAY_ENV_SPACE_TUPLE;
      g_self_loop.parts = &g_self_loop;
      g_self_loop.num_parts = 1;
      s = g_self_loop;
      break;
    case 4:
      g_unsorted_parts[0] = g_unsorted_parts[1] = Discrete2();
      s.kind = RAY_ENV_SPACE_DICT;
      s.parts = g_unsorted_parts, s.keys = kUnsortedKeys, s.num_parts = 2;
      break;
    default:
      s.kind = RAY_ENV_SPACE_TUPLE;
      break;
  }
  *observation = s;
  return 0;
}

int Reset(void*, uint8_t, uint64_t, float*, size_t) { return 1; }
int Step(void*, int64_t, const float*, size_t, float*, size_t, RayEnvStepResult*) { return 1; }
void Close(void*) {}
const char* LastError() { return "not steppable"; }

const RayEnvPluginApi kApi = {RAY_ENV_PLUGIN_ABI_VERSION, &List, &Create, &Spaces, &Reset, &Step, &Close,
                              &LastError};

}  // namespace

extern "C" __attribute__((visibility("default"))) uint32_t ray_env_plugin_abi_version() {
  return RAY_ENV_PLUGIN_ABI_VERSION;
}
extern "C" __attribute__((visibility("default"))) const RayEnvPluginApi* ray_env_plugin_api() { return &kApi; }
