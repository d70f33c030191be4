#include "runtime/api/task_spec_rules.h"

#include <fmt/format.h>

#include <map>

#include "runtime/scheduler/bundle_resources.h"

namespace ray::core {

namespace ri = ray::internal;

Status InPlacementGroup(protocol::TaskSpec& spec) {
  const std::string& pg = spec.placement_group_id;
  if (pg.size() != 36 || pg.find_first_not_of("0123456789abcdef") != std::string::npos) {
    return Status::InvalidArgument(
        fmt::format("{}: placement group id '{}' is not 36 hex characters", spec.function, pg));
  }
  if (spec.bundle_index < -1) {
    return Status::InvalidArgument(
        fmt::format("{}: bundle index {} of placement group {} (-1: any bundle)", spec.function,
                    spec.bundle_index, pg));
  }
  std::map<std::string, double> request = spec.resources;
  for (const auto& [name, amount] : request) {
    if (scheduler::IsBundleResourceName(name)) {
      return Status::InvalidArgument(
          fmt::format("{}: resource '{}' is a placement group's; ask for it with SetPlacementGroup",
                      spec.function, name));
    }
  }
  // Ray's default of one CPU for a task is taken from the bundle too.
  if (spec.kind == ri::kNormalTask && !request.count("CPU")) request["CPU"] = 1;
  spec.resources = scheduler::BundleRequest(request, pg, spec.bundle_index);
  return Status::Ok();
}

Status CompleteSpec(protocol::TaskSpec& spec, const Inherited& inherited) {
  if (spec.num_returns == 0 || spec.num_returns > 1000) {
    return Status::InvalidArgument("num_returns must be between 1 and 1000");
  }
  const bool creation = spec.kind == ri::kActorCreation;
  spec.actors_detached = inherited.actors_detached;
  if (creation && !spec.lifetime_set) spec.detached = spec.actors_detached;
  if (Status valid = protocol::CheckResourceRequest(spec.resources); !valid.ok()) {
    return Status::InvalidArgument(
        fmt::format("{} {}: {}", creation ? "actor" : "task", spec.function, valid.message()));
  }
  if (spec.placement_group_id.empty() && spec.kind != ri::kActorTask &&
      !inherited.capture_group.empty()) {
    spec.placement_group_id = inherited.capture_group;  // its parent's group captures it
    spec.bundle_index = -1;
    spec.placement_group_capture_child_tasks = true;
  }
  if (!spec.placement_group_id.empty() && spec.kind != ri::kActorTask) {
    RAY_RETURN_IF_ERROR(InPlacementGroup(spec));
  }
  if (creation && spec.max_retries < -1) {
    return Status::InvalidArgument(
        fmt::format("actor {}: max_task_retries is {}; it is -1 (no limit) or more", spec.function,
                    spec.max_retries));
  }
  if (creation && (spec.max_concurrency < 1 || spec.max_concurrency > kMaxActorConcurrency)) {
    return Status::InvalidArgument(
        fmt::format("actor {}: max_concurrency is {}; it is between 1 and {}", spec.function,
                    spec.max_concurrency, kMaxActorConcurrency));
  }
  for (const auto& arg : spec.args) {
    if (arg.is_ref && arg.data.size() != ObjectId::kSize) {
      return Status::InvalidArgument("an ObjectRef argument is not a valid object id");
    }
  }
  if (spec.kind == ri::kActorTask) {
    spec.runtime_env.clear();  // it runs in its actor's
  } else if (!HasOwnRuntimeEnv(spec)) {
    spec.runtime_env = inherited.runtime_env;  // the job's (or parent's), canonical already
  }
  return Status::Ok();
}

bool HasOwnRuntimeEnv(const protocol::TaskSpec& spec) {
  return spec.kind != ri::kActorTask && !spec.runtime_env.empty();
}

}  // namespace ray::core
