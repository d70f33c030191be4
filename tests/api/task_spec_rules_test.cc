#include "runtime/api/task_spec_rules.h"

#include <gtest/gtest.h>

#include <map>
#include <string>

#include "runtime/scheduler/bundle_resources.h"

namespace ray::core {
namespace {

namespace ri = ray::internal;
using protocol::TaskSpec;

const std::string kGroup(36, 'a');

TaskSpec Spec(uint8_t kind = ri::kNormalTask) {
  TaskSpec t;
  t.kind = kind;
  t.function = "f";
  return t;
}

// The message of `st`, which is an InvalidArgument.
std::string Refused(const Status& st) {
  EXPECT_EQ(st.code(), StatusCode::kInvalidArgument) << st.ToString();
  return st.message();
}

TEST(TaskSpecRulesTest, ABadRequestIsRefusedNamingTheTaskAndWhatIsWrong) {
  TaskSpec t = Spec();
  t.num_returns = 0;
  EXPECT_EQ(Refused(CompleteSpec(t, {})), "num_returns must be between 1 and 1000");

  t = Spec();
  t.resources = {{"CPU", -1}};
  EXPECT_EQ(Refused(CompleteSpec(t, {})).rfind("task f: ", 0), 0u);

  t = Spec();
  t.args = {{/*is_ref=*/true, "short"}};
  EXPECT_EQ(Refused(CompleteSpec(t, {})), "an ObjectRef argument is not a valid object id");

  TaskSpec actor = Spec(ri::kActorCreation);
  actor.max_retries = -2;
  EXPECT_EQ(Refused(CompleteSpec(actor, {})),
            "actor f: max_task_retries is -2; it is -1 (no limit) or more");
  actor = Spec(ri::kActorCreation);
  for (int32_t bad : {0, kMaxActorConcurrency + 1}) {
    actor.max_concurrency = bad;
    EXPECT_NE(Refused(CompleteSpec(actor, {})).find("max_concurrency is " + std::to_string(bad)),
              std::string::npos);
  }
  actor.max_concurrency = kMaxActorConcurrency;
  EXPECT_TRUE(CompleteSpec(actor, {}).ok());
}

TEST(TaskSpecRulesTest, AGroupThatCapturesChildrenTakesTasksAndActorsButNotCalls) {
  Inherited in;
  in.capture_group = kGroup;
  TaskSpec t = Spec();
  ASSERT_TRUE(CompleteSpec(t, in).ok());
  EXPECT_EQ(t.placement_group_id, kGroup);
  EXPECT_EQ(t.bundle_index, -1);
  EXPECT_TRUE(t.placement_group_capture_child_tasks);
  EXPECT_EQ(t.resources, scheduler::BundleRequest({{"CPU", 1}}, kGroup, -1))
      << "a task's default CPU is taken from the bundle";

  TaskSpec call = Spec(ri::kActorTask);
  ASSERT_TRUE(CompleteSpec(call, in).ok());
  EXPECT_TRUE(call.placement_group_id.empty());

  TaskSpec own = Spec();
  own.placement_group_id = std::string(36, 'b');
  own.bundle_index = 1;
  own.resources = {{"CPU", 2}};
  ASSERT_TRUE(CompleteSpec(own, in).ok());
  EXPECT_EQ(own.placement_group_id, std::string(36, 'b')) << "its own group wins";
  EXPECT_EQ(own.resources, scheduler::BundleRequest({{"CPU", 2}}, std::string(36, 'b'), 1));
}

TEST(TaskSpecRulesTest, AGroupIdBundleAndResourceNamesAreChecked) {
  TaskSpec t = Spec();
  t.placement_group_id = "not-hex";
  EXPECT_EQ(Refused(CompleteSpec(t, {})),
            "f: placement group id 'not-hex' is not 36 hex characters");
  t.placement_group_id = kGroup;
  t.bundle_index = -2;
  EXPECT_NE(Refused(CompleteSpec(t, {})).find("bundle index -2"), std::string::npos);
  t.bundle_index = 0;
  t.resources = {{"CPU_group_0_" + kGroup, 1}};
  EXPECT_NE(Refused(CompleteSpec(t, {})).find("is a placement group's"), std::string::npos);
}

TEST(TaskSpecRulesTest, ActorsTakeTheJobsLifetimeUnlessTheySetTheirOwn) {
  Inherited in;
  in.actors_detached = true;
  TaskSpec actor = Spec(ri::kActorCreation);
  ASSERT_TRUE(CompleteSpec(actor, in).ok());
  EXPECT_TRUE(actor.detached);
  EXPECT_TRUE(actor.actors_detached) << "and pass the default on";
  TaskSpec own = Spec(ri::kActorCreation);
  own.lifetime_set = true;
  ASSERT_TRUE(CompleteSpec(own, in).ok());
  EXPECT_FALSE(own.detached);
}

TEST(TaskSpecRulesTest, RuntimeEnvironmentsAreInheritedUnlessOwnAndCallsUseTheirActors) {
  Inherited in;
  in.runtime_env = R"({"env_vars":{"A":"1"}})";
  TaskSpec t = Spec();
  ASSERT_TRUE(CompleteSpec(t, in).ok());
  EXPECT_EQ(t.runtime_env, in.runtime_env);
  TaskSpec own = Spec(ri::kActorCreation);
  own.runtime_env = R"({"env_vars":{"B":"2"}})";
  ASSERT_TRUE(CompleteSpec(own, in).ok());
  EXPECT_EQ(own.runtime_env, R"({"env_vars":{"B":"2"}})") << "left to the caller to merge";
  TaskSpec call = Spec(ri::kActorTask);
  call.runtime_env = R"({"env_vars":{"C":"3"}})";
  ASSERT_TRUE(CompleteSpec(call, in).ok());
  EXPECT_TRUE(call.runtime_env.empty());
}

}  // namespace
}  // namespace ray::core
