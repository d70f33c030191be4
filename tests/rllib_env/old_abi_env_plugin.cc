// An env plugin built for another env plugin ABI (version 1, which handed C++ Env
// objects across): it must be refused by its version before anything else is read.

#include <stdint.h>

extern "C" __attribute__((visibility("default"))) uint32_t ray_env_plugin_abi_version() {
  return 1;
}
