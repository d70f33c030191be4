#include "runtime/worker/runtime_env_setup.h"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>

#include "runtime/api/runtime_env.h"
#include "runtime/api/working_dir_pack.h"
#include "runtime/base/fs.h"

namespace ray::worker {

Status RuntimeEnvSetup::Enter(const std::string& canonical) {
  if (entered_) {
    if (*entered_ == canonical) return Status::Ok();
    return Status::FailedPrecondition("this worker serves runtime_env '" + *entered_ +
                                      "', not '" + canonical + "'");
  }
  Status st = SetUp(canonical);
  if (st.ok()) entered_ = canonical;
  return st;
}

Status RuntimeEnvSetup::SetUp(const std::string& canonical) {
  RAY_ASSIGN_OR_RETURN(core::RuntimeEnv env, core::ParseRuntimeEnv(canonical, "the task"));
  for (const auto& [name, value] : env.env_vars) ::setenv(name.c_str(), value.c_str(), 1);
  if (!env.working_dir.empty()) {
    RAY_ASSIGN_OR_RETURN(std::string blob_path, fetch_(env.working_dir));
    RAY_ASSIGN_OR_RETURN(std::string blob, ReadFile(blob_path));
    std::string root = session_dir_ + "/runtime_resources";
    std::error_code ec;
    std::filesystem::create_directories(root, ec);
    std::string dir = root + "/working_dir_" + env.working_dir;
    RAY_RETURN_IF_ERROR(core::UnpackWorkingDir(blob, dir));
    if (::chdir(dir.c_str()) != 0) return Status::Internal("cannot enter working_dir " + dir);
  }
  for (const auto& hash : env.plugins) {
    RAY_ASSIGN_OR_RETURN(std::string path, fetch_(hash));
    RAY_RETURN_IF_ERROR(load_(hash, path));
  }
  return Status::Ok();
}

}  // namespace ray::worker
