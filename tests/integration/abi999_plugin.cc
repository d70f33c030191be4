// A library with every ray plugin entry point, built for a plugin ABI this ray does not
// speak: `ray run` must refuse it before calling anything else.
#include <cstddef>
#include <cstdint>

#define IT_EXPORT extern "C" __attribute__((visibility("default")))

IT_EXPORT uint32_t ray_plugin_abi_version() { return 999; }
IT_EXPORT void ray_plugin_attach(const void*) {}
IT_EXPORT int ray_plugin_main(int, char**) { return 0; }
IT_EXPORT void ray_plugin_destroy(const char*, size_t, void*) {}
// ray_plugin_describe / ray_plugin_invoke return structs; never reached past the version check.
IT_EXPORT void ray_plugin_describe() {}
IT_EXPORT void ray_plugin_invoke() {}
