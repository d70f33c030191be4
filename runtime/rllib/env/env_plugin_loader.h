#pragma once
// Loads env plugins (libraries written with <ray/rllib/env_plugin.h>) into this
// process's env registry, so that MakeEnv builds their envs like builtin ones:
// `--env-plugin lib.so` / config key "env_plugin" of `rllib train`.
//
// The library is reached only through its C boundary (<ray/rllib/env_abi.h>): its
// ABI version is checked first, then each env it lists is registered under its id
// with its time limit and reward threshold (the TimeLimit runs here, in MakeEnv).
// A plugin env is wrapped into an Env whose Reset/Step call across the boundary with
// caller-owned buffers; an error the plugin reports (its env threw) is rethrown by
// Reset/Step as std::runtime_error naming the plugin and the env.
//
// Thread-safe. Libraries stay loaded for the life of the process.

#include <string>

#include "runtime/base/status.h"

namespace ray::rllib {

// Registers the plugin's envs. Loading a file again is a no-op. Errors name the
// file: NotFound (no such file), InvalidArgument (not loadable, not an env plugin,
// an env name that is already registered), FailedPrecondition (another ABI version).
Status LoadEnvPlugin(const std::string& path);

namespace internal {
// LoadEnvPlugin without first loading the builtin envs (the registry loads them
// with it).
Status LoadEnvPluginFile(const std::string& path);
}  // namespace internal

}  // namespace ray::rllib
