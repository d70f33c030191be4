// Ray's C++ API test cases (cpp/src/ray/test/cluster/cluster_mode_test.cc), re-created
// from their meaning against <ray/api.h>: a program of the user's own (ray::Init) on a
// cluster it starts, as Ray's test runs. Each case starts its own cluster in a fresh
// temp dir and shuts it down. Where the API differs on purpose the case says how:
// timeouts are std::chrono durations, a factory overload has a name of its own, Ray's
// RayTaskException / RayActorException / RayTimeoutException are ray::TaskError /
// ray::ActorDiedError / ray::GetTimeoutError.
//
// Not re-created: PythonInvocationTest (no Python workers); and in FullTest, the
// CheckRestartIn* checks (no
// WasCurrentActorRestarted) and the options Ray puts on single calls (SetName on a
// task, SetResources on an actor call: a task's name is its function's here, and an
// actor's calls run in its resources).

#include <gtest/gtest.h>
#include <stdlib.h>

#include <chrono>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "tests/e2e/ray_api_cases_remote.h"

namespace {

using namespace std::chrono_literals;

// `ref`'s Get throws an E whose message holds `says`.
template <typename E, typename T>
void ExpectFailsWith(const ray::ObjectRef<T>& ref, const std::string& says) {
  try {
    ray::Get(ref, 30s);
    ADD_FAILURE() << "no error";
  } catch (const E& e) {
    EXPECT_NE(std::string(e.what()).find(says), std::string::npos) << e.what();
  } catch (const std::exception& e) {
    ADD_FAILURE() << "another error: " << e.what();
  }
}

// A cluster of this program's own, in a temp dir of the case's own.
class RayApiCase : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/ray-api-cases-XXXXXX";
    ASSERT_NE(::mkdtemp(tmpl), nullptr);
    temp_dir_ = tmpl;
    config_.temp_dir = temp_dir_;
    config_.num_cpus = 2;
  }
  void TearDown() override {
    if (ray::IsInitialized()) ray::Shutdown();
    std::filesystem::remove_all(temp_dir_);
  }
  void Init() { ray::Init(config_); }

  std::string temp_dir_;
  ray::RayConfig config_;
};

TEST_F(RayApiCase, Initialized) {
  EXPECT_FALSE(ray::IsInitialized());
  Init();
  EXPECT_TRUE(ray::IsInitialized());
  ray::Shutdown();
  EXPECT_FALSE(ray::IsInitialized());
}

// With default_actor_lifetime DETACHED, an actor an actor creates outlives its creator.
TEST_F(RayApiCase, DefaultActorLifetimeTest) {
  config_.default_actor_lifetime = ray::ActorLifetime::DETACHED;
  Init();
  auto parent = ray::Actor(Counter::FactoryCreate).Remote();
  ray::Get(parent.Task(&Counter::CreateChildActor).Remote("child_actor_name"));
  auto child = ray::GetActor<Counter>("child_actor_name");
  ASSERT_TRUE(child);
  EXPECT_EQ(1, *ray::Get(child->Task(&Counter::Plus1).Remote()));
  parent.Kill();
  std::this_thread::sleep_for(4s);
  EXPECT_EQ(2, *ray::Get(child->Task(&Counter::Plus1).Remote()));
}

TEST_F(RayApiCase, FullTest) {
  Init();
  // Put and get.
  auto obj = ray::Put(12345);
  EXPECT_EQ(12345, *ray::Get(obj));
  EXPECT_EQ(12345, *ray::Get(obj, 5s));
  EXPECT_EQ(1, *ray::Get(ray::Task(Return1).SetResources({{"CPU", 1.0}}).Remote()));
  // Tasks without and with arguments.
  EXPECT_EQ(1, *ray::Get(ray::Task(Return1).Remote()));
  EXPECT_EQ(6, *ray::Get(ray::Task(Plus1).Remote(5)));

  // A named actor that may restart once.
  auto actor = ray::Actor(Counter::FactoryCreate).SetMaxRestarts(1).SetName("named_actor").Remote();
  EXPECT_TRUE(*ray::Get(actor.Task(&Counter::Initialized).Remote()));
  EXPECT_EQ(1, *ray::Get(actor.Task(&Counter::Plus1).Remote()));
  auto named = ray::GetActor<Counter>("named_actor");
  ASSERT_TRUE(named);
  EXPECT_EQ(2, *ray::Get(named->Task(&Counter::Plus1).Remote()));
  EXPECT_FALSE(ray::GetActor<Counter>("not_exist_actor"));
  // Killed allowing a restart: a fresh instance answers.
  named->Kill(false);
  std::this_thread::sleep_for(2s);
  EXPECT_EQ(1, *ray::Get(named->Task(&Counter::Plus1).Remote()));
  // Killed for good.
  named->Kill();
  std::this_thread::sleep_for(2s);
  EXPECT_THROW(ray::Get(named->Task(&Counter::Plus1).Remote()), ray::ActorDiedError);
  EXPECT_FALSE(ray::GetActor<Counter>("named_actor"));

  // Actor calls without and with arguments, by value and by reference.
  auto actor1 = ray::Actor(Counter::FactoryCreate).Remote();
  EXPECT_EQ(1, *ray::Get(actor1.Task(&Counter::Plus1).Remote()));
  auto actor2 = ray::Actor(Counter::FactoryCreateWith).Remote(1);
  auto actor_object2 = actor2.Task(&Counter::Add).Remote(5);
  EXPECT_EQ(6, *ray::Get(actor_object2));
  auto actor3 = ray::Actor(Counter::FactoryCreateWith2).Remote(6, 0);
  EXPECT_EQ(12, *ray::Get(actor3.Task(&Counter::Add).Remote(actor_object2)));

  // Tasks with arguments by value; Wait and Get of several.
  auto r0 = ray::Task(Return1).Remote();
  auto r1 = ray::Task(Plus1).Remote(30);
  auto r2 = ray::Task(Plus).Remote(3, 22);
  std::vector<ray::ObjectRef<int>> objects = {r0, r1, r2};
  auto waited = ray::Wait(objects, 3, 5000ms);
  EXPECT_EQ(waited.ready.size(), 3u);
  EXPECT_EQ(waited.unready.size(), 0u);
  auto values = ray::Get(objects);
  EXPECT_EQ(*values[0], 1);
  EXPECT_EQ(*values[1], 31);
  EXPECT_EQ(*values[2], 25);

  // Tasks with arguments by reference.
  auto r3 = ray::Task(Return1).Remote();
  auto r4 = ray::Task(Plus1).Remote(r3);
  auto r5 = ray::Task(Plus).Remote(r4, r3);
  auto r6 = ray::Task(Plus).Remote(r4, 10);
  EXPECT_EQ(*ray::Get(r5), 3);
  EXPECT_EQ(*ray::Get(r4), 2);
  EXPECT_EQ(*ray::Get(r6), 12);
  EXPECT_EQ(*ray::Get(r3), 1);

  // One actor's calls run in order.
  auto actor4 = ray::Actor(Counter::FactoryCreateWith).Remote(10);
  auto r7 = actor4.Task(&Counter::Add).Remote(5);
  auto r8 = actor4.Task(&Counter::Add).Remote(1);
  auto r9 = actor4.Task(&Counter::Add).Remote(3);
  auto r10 = actor4.Task(&Counter::Add).Remote(8);
  EXPECT_EQ(*ray::Get(r7), 15);
  EXPECT_EQ(*ray::Get(r8), 16);
  EXPECT_EQ(*ray::Get(r9), 19);
  EXPECT_EQ(*ray::Get(r10), 27);

  // An actor made from a ref, and calls and tasks chained through refs.
  auto actor5 = ray::Actor(Counter::FactoryCreateWith2).Remote(r10, 0);
  auto r11 = actor5.Task(&Counter::Add).Remote(r0);
  auto r12 = actor5.Task(&Counter::Add).Remote(r11);
  auto r13 = actor5.Task(&Counter::Add).Remote(r10);
  auto r14 = actor5.Task(&Counter::Add).Remote(r13);
  auto r15 = ray::Task(Plus).Remote(r0, r11);
  auto r16 = ray::Task(Plus1).Remote(r15);
  EXPECT_EQ(*ray::Get(r12), 56);
  EXPECT_EQ(*ray::Get(r14), 166);
  EXPECT_EQ(*ray::Get(r11), 28);
  EXPECT_EQ(*ray::Get(r13), 83);
  EXPECT_EQ(*ray::Get(r16), 30);
  EXPECT_EQ(*ray::Get(r15), 29);

  // Large objects: put, passed to a task, returned.
  std::array<int, 100000> arr{};
  for (size_t i = 0; i < arr.size(); ++i) arr[i] = static_cast<int>(i);
  auto r17 = ray::Put(arr);
  auto r18 = ray::Task(ReturnLargeArray).Remote(r17);
  EXPECT_EQ(arr, *ray::Get(r17));
  EXPECT_EQ(arr, *ray::Get(r18));

  // An actor that exits: its call fails and its process is gone.
  uint64_t pid = *ray::Get(actor1.Task(&Counter::GetPid).Remote(), 5s);
  EXPECT_TRUE(Counter::IsProcessAlive(pid));
  auto exited = actor1.Task(&Counter::Exit).Remote();
  std::this_thread::sleep_for(2s);
  EXPECT_THROW(ray::Get(exited), ray::ActorDiedError);
  EXPECT_FALSE(Counter::IsProcessAlive(pid));
}

TEST_F(RayApiCase, ActorHandleTest) {
  Init();
  auto actor1 = ray::Actor(Counter::FactoryCreate).Remote();
  EXPECT_EQ(1, *ray::Get(actor1.Task(&Counter::Plus1).Remote()));
  // A handle as an argument.
  auto actor2 = ray::Actor(Counter::FactoryCreate).Remote();
  EXPECT_EQ(2, *ray::Get(actor2.Task(&Counter::Plus1ForActor).Remote(actor1)));
  // A handle as a result.
  auto child = ray::Get(actor1.Task(&Counter::CreateChildActor).Remote("child_actor_name"));
  EXPECT_EQ(1, *ray::Get(child->Task(&Counter::Plus1).Remote()));
  auto named = ray::GetActor<Counter>("child_actor_name");
  ASSERT_TRUE(named);
  EXPECT_EQ(2, *ray::Get(named->Task(&Counter::Plus1).Remote()));
}

TEST_F(RayApiCase, MaxConcurrentTest) {
  Init();
  auto actor1 = ray::Actor(ActorConcurrentCall::FactoryCreate).SetMaxConcurrency(3).Remote();
  std::vector<ray::ObjectRef<std::string>> three;
  for (int i = 0; i < 3; ++i) three.push_back(actor1.Task(&ActorConcurrentCall::CountDown).Remote());
  for (auto& r : three) EXPECT_EQ(*ray::Get(r), "ok");
  // Two at a time never reach three.
  auto actor2 = ray::Actor(ActorConcurrentCall::FactoryCreate).SetMaxConcurrency(2).Remote();
  std::vector<ray::ObjectRef<std::string>> stuck;
  for (int i = 0; i < 3; ++i) stuck.push_back(actor2.Task(&ActorConcurrentCall::CountDown).Remote());
  for (auto& r : stuck) EXPECT_THROW(ray::Get(r, 2s), ray::GetTimeoutError);
}

// Ray leaves work no node could ever hold pending; here, with no autoscaler to add a
// node, it fails at once saying so (a test that waits 5 s for it to stay unready
// would pass either way).
TEST_F(RayApiCase, ResourcesManagementTest) {
  Init();
  auto actor1 = ray::Actor(Counter::FactoryCreate).SetResources({{"CPU", 1.0}}).Remote();
  EXPECT_EQ(*ray::Get(actor1.Task(&Counter::Plus1).Remote()), 1);
  auto actor2 = ray::Actor(Counter::FactoryCreate).SetResources({{"CPU", 10000.0}}).Remote();
  // (The actor's calls fail as a dead actor's, saying it could not be placed.)
  ExpectFailsWith<ray::ActorDiedError>(actor2.Task(&Counter::Plus1).Remote(), "could not be placed");
  EXPECT_EQ(*ray::Get(ray::Task(Return1).SetResource("CPU", 1.0).Remote()), 1);
  ExpectFailsWith<ray::UnschedulableError>(ray::Task(Return1).SetResource("CPU", 100.0).Remote(),
                                           "CPU");
}

TEST_F(RayApiCase, ExceptionTest) {
  Init();
  try {
    ray::Get(ray::Task(ThrowTask).Remote());
    ADD_FAILURE() << "a throwing task did not throw";
  } catch (const ray::TaskError& e) {
    EXPECT_NE(std::string(e.what()).find("std::logic_error"), std::string::npos) << e.what();
  }
  auto actor1 = ray::Actor(Counter::FactoryCreateWith).Remote(1);
  EXPECT_THROW(ray::Get(actor1.Task(&Counter::ExceptionFunc).Remote()), ray::TaskError);
  // A factory that throws: the actor's calls fail as a dead actor's.
  auto actor2 = ray::Actor(Counter::FactoryCreateException).Remote();
  EXPECT_THROW(ray::Get(actor2.Task(&Counter::Plus1).Remote()), ray::ActorDiedError);
}

TEST_F(RayApiCase, GetAllNodeInfoTest) {
  Init();
  auto nodes = ray::Nodes();
  ASSERT_EQ(nodes.size(), 1u);
  EXPECT_TRUE(nodes[0].alive);
}

// Ray reads its reference table; here the store says whether the object lives.
TEST_F(RayApiCase, LocalRefrenceTest) {
  Init();
  auto r1 = std::make_unique<ray::ObjectRef<std::array<int, 100000>>>(
      ray::Put(std::array<int, 100000>{}));
  const std::string id = r1->Binary();
  auto r2 = std::make_unique<ray::ObjectRef<std::array<int, 100000>>>(*r1);
  r1.reset();
  std::this_thread::sleep_for(200ms);
  EXPECT_TRUE(ray::ObjectInLocalStore(id)) << "a copy of the ref keeps the object";
  r2.reset();
  bool freed = false;
  for (int i = 0; i < 100 && !freed; ++i) {
    freed = !ray::ObjectInLocalStore(id);  // (a call: it takes this process's frees along)
    if (!freed) std::this_thread::sleep_for(50ms);
  }
  EXPECT_TRUE(freed) << "the object is freed with its last ref";
}

TEST_F(RayApiCase, DependencyRefrenceTest) {
  Init();
  std::string id;
  {
    std::array<int, 100000> arr{};
    arr[7] = 7;
    auto r1 = ray::Put(arr);
    id = r1.Binary();
    auto r2 = ray::Task(ReturnLargeArray).Remote(r1);
    // The task holds its argument: the driver's ref may go before it runs.
    r1 = ray::ObjectRef<std::array<int, 100000>>();
    EXPECT_EQ(*ray::Get(r2), arr);
  }
  bool freed = false;
  for (int i = 0; i < 100 && !freed; ++i) {
    freed = !ray::ObjectInLocalStore(id);
    if (!freed) std::this_thread::sleep_for(50ms);
  }
  EXPECT_TRUE(freed) << "the argument is freed once the task and the refs are done";
}

TEST_F(RayApiCase, GetActorTest) {
  Init();
  auto actor = ray::Actor(Counter::FactoryCreate).SetMaxRestarts(1).SetName("named_actor").Remote();
  EXPECT_EQ(1, *ray::Get(actor.Task(&Counter::Plus1).Remote()));
  auto named = ray::GetActor<Counter>("named_actor");
  ASSERT_TRUE(named);
  EXPECT_EQ(2, *ray::Get(named->Task(&Counter::Plus1).Remote()));
  EXPECT_FALSE(ray::GetActor<Counter>("not_exist_actor"));
}

ray::PlacementGroup CreateSimplePlacementGroup(const std::string& name) {
  std::vector<std::unordered_map<std::string, double>> bundles{{{"CPU", 1}}};
  return ray::CreatePlacementGroup(
      ray::PlacementGroupCreationOptions{name, bundles, ray::PlacementStrategy::PACK});
}

TEST_F(RayApiCase, CreateAndRemovePlacementGroup) {
  Init();
  auto first = CreateSimplePlacementGroup("first_placement_group");
  EXPECT_TRUE(first.Wait(10));
  EXPECT_THROW(CreateSimplePlacementGroup("first_placement_group"), ray::RayException);
  EXPECT_EQ(ray::GetAllPlacementGroups().size(), 1u);
  EXPECT_EQ(ray::GetPlacementGroupById(first.GetID()).GetID(), first.GetID());
  EXPECT_EQ(ray::GetPlacementGroup("first_placement_group").GetID(), first.GetID());
  ray::RemovePlacementGroup(first.GetID());
  EXPECT_EQ(ray::GetPlacementGroupById(first.GetID()).GetState(), ray::PlacementGroupState::REMOVED);
  EXPECT_TRUE(ray::GetPlacementGroup("not_exist_placement_group").GetID().empty());
  ray::RemovePlacementGroup(first.GetID());  // again: nothing happens
}

// Ray leaves a group no node could ever hold pending (Wait(3) is false); here, with no
// autoscaler, creating it fails at once saying why.
TEST_F(RayApiCase, CreatePlacementGroupExceedsClusterResource) {
  Init();
  std::vector<std::unordered_map<std::string, double>> bundles{{{"CPU", 10000}}};
  try {
    ray::CreatePlacementGroup(ray::PlacementGroupCreationOptions{
        "first_placement_group", bundles, ray::PlacementStrategy::PACK});
    ADD_FAILURE() << "a group larger than the cluster was created";
  } catch (const ray::RayException& e) {
    EXPECT_NE(std::string(e.what()).find("cannot be placed on this cluster"), std::string::npos)
        << e.what();
  }
  EXPECT_TRUE(ray::GetPlacementGroup("first_placement_group").GetID().empty());
  EXPECT_TRUE(ray::GetPlacementGroup("not_exist_placement_group").GetID().empty());
}

TEST_F(RayApiCase, CreateActorWithPlacementGroup) {
  Init();
  auto group = CreateSimplePlacementGroup("first_placement_group");
  EXPECT_TRUE(group.Wait(10));
  auto actor1 = ray::Actor(Counter::FactoryCreate)
                    .SetResources({{"CPU", 1.0}})
                    .SetPlacementGroup(group, 0)
                    .Remote();
  std::vector<ray::ObjectRef<int>> r1{actor1.Task(&Counter::Plus1).Remote()};
  auto waited = ray::Wait(r1, 1, 5000ms);
  EXPECT_EQ(waited.ready.size(), 1u);
  EXPECT_EQ(*ray::Get(r1)[0], 1);
  // More than its bundle holds: not run (Ray leaves it pending; here it fails).
  auto actor2 = ray::Actor(Counter::FactoryCreate)
                    .SetResources({{"CPU", 2.0}})
                    .SetPlacementGroup(group, 0)
                    .Remote();
  ExpectFailsWith<ray::RayException>(actor2.Task(&Counter::Plus1).Remote(), "bundle");
  ray::RemovePlacementGroup(group.GetID());
}

TEST_F(RayApiCase, TaskWithPlacementGroup) {
  Init();
  auto group = CreateSimplePlacementGroup("first_placement_group");
  EXPECT_TRUE(group.Wait(10));
  auto r = ray::Task(Return1).SetResources({{"CPU", 1.0}}).SetPlacementGroup(group, 0).Remote();
  EXPECT_EQ(*ray::Get(r), 1);
  ray::RemovePlacementGroup(group.GetID());
}

TEST_F(RayApiCase, NamespaceTest) {
  Init();
  // A named actor in namespace isolated_ns: invisible to the job's and to others.
  auto actor = ray::Actor(Counter::FactoryCreate)
                   .SetName("named_actor_in_isolated_ns", "isolated_ns")
                   .Remote();
  EXPECT_TRUE(*ray::Get(actor.Task(&Counter::Initialized).Remote()));
  EXPECT_FALSE(ray::GetActor<Counter>("named_actor_in_isolated_ns"));
  EXPECT_TRUE(ray::GetActor<Counter>("named_actor_in_isolated_ns", "isolated_ns"));
  EXPECT_FALSE(ray::GetActor<Counter>("named_actor_in_isolated_ns", "other_ns"));
  // A named actor in the job's namespace: visible there only.
  auto actor1 = ray::Actor(Counter::FactoryCreate).SetName("actor_name_in_default_ns").Remote();
  EXPECT_TRUE(*ray::Get(actor1.Task(&Counter::Initialized).Remote()));
  EXPECT_TRUE(ray::GetActor<Counter>("actor_name_in_default_ns"));
  EXPECT_FALSE(ray::GetActor<Counter>("actor_name_in_default_ns", "isolated_ns"));
}

TEST_F(RayApiCase, GetNamespaceApiTest) {
  config_.ray_namespace = "test_get_current_namespace";
  Init();
  EXPECT_EQ(ray::GetNamespace(), "test_get_current_namespace");
  EXPECT_EQ(*ray::Get(ray::Task(GetNamespaceInTask).Remote()), "test_get_current_namespace");
  auto actor = ray::Actor(Counter::FactoryCreate).Remote();
  EXPECT_EQ(*ray::Get(actor.Task(&Counter::GetNamespaceInActor).Remote()),
            "test_get_current_namespace");
}

// Ray sets a struct through nlohmann::json's to_json; the SDK has no JSON library, so
// a structured field goes in as JSON text (SetJsonStr) and comes back the same.
TEST_F(RayApiCase, RuntimeEnvApiTest) {
  ray::RuntimeEnv env;
  const std::string pip = R"({"packages":["requests"],"pip_check":true})";
  env.SetJsonStr("pip", pip);
  const std::string working_dir = "https://path/to/working_dir.zip";
  env.Set("working_dir", working_dir);
  auto env2 = ray::RuntimeEnv::Deserialize(env.Serialize());
  EXPECT_EQ(env2.GetJsonStr("pip"), pip);
  EXPECT_EQ(env2.Get<std::string>("working_dir"), working_dir);
  ray::RuntimeEnv env3;
  const std::string raw = R"({"packages":["requests","tensorflow"],"pip_check":false})";
  env3.SetJsonStr("pip", raw);
  EXPECT_EQ(env3.GetJsonStr("pip"), raw);
}

TEST_F(RayApiCase, RuntimeEnvApiExceptionTest) {
  ray::RuntimeEnv env;
  EXPECT_THROW(env.Get<std::string>("working_dir"), ray::RuntimeEnvError);
  env.Set("working_dir", "https://path/to/working_dir.zip");
  EXPECT_THROW((env.Get<std::map<std::string, std::string>>("working_dir")), ray::RuntimeEnvError);
  EXPECT_THROW(env.SetJsonStr("pip", "{123"), ray::RuntimeEnvError);
  EXPECT_THROW(env.GetJsonStr("pip"), ray::RuntimeEnvError);
  EXPECT_FALSE(env.Empty());
  EXPECT_TRUE(env.Remove("working_dir"));
  EXPECT_FALSE(env.Remove("pip"));  // none: nothing happens
  EXPECT_TRUE(env.Empty());
}

TEST_F(RayApiCase, RuntimeEnvTaskLevelEnvVarsTest) {
  Init();
  EXPECT_EQ(*ray::Get(ray::Task(GetEnvVar).Remote("KEY1")), "");
  auto actor = ray::Actor(Counter::FactoryCreate).Remote();
  EXPECT_EQ(*ray::Get(actor.Task(&Counter::GetEnvVar).Remote("KEY1")), "");
  ray::RuntimeEnv env;
  env.Set("env_vars", std::map<std::string, std::string>{{"KEY1", "value1"}});
  EXPECT_EQ(*ray::Get(ray::Task(GetEnvVar).SetRuntimeEnv(env).Remote("KEY1")), "value1");
  ray::RuntimeEnv env2;
  env2.Set("env_vars", std::map<std::string, std::string>{{"KEY1", "value2"}});
  auto actor2 = ray::Actor(Counter::FactoryCreate).SetRuntimeEnv(env2).Remote();
  EXPECT_EQ(*ray::Get(actor2.Task(&Counter::GetEnvVar).Remote("KEY1")), "value2");
}

TEST_F(RayApiCase, RuntimeEnvJobLevelEnvVarsTest) {
  config_.runtime_env.Set("env_vars", std::map<std::string, std::string>{{"KEY1", "value1"}});
  Init();
  EXPECT_EQ(*ray::Get(ray::Task(GetEnvVar).Remote("KEY1")), "value1");
  auto actor = ray::Actor(Counter::FactoryCreate).Remote();
  EXPECT_EQ(*ray::Get(actor.Task(&Counter::GetEnvVar).Remote("KEY1")), "value1");
}

// Ray refuses an ObjectRef argument for a method parameter (invalid_argument); here a
// parameter of type ObjectRef<T> takes the ref itself, and the method reads it.
TEST_F(RayApiCase, UnsupportObjectRefTest) {
  Init();
  auto actor = ray::Actor(Counter::FactoryCreate).Remote();
  auto int_ref = ray::Put(1);
  EXPECT_EQ(*ray::Get(actor.Task(&Counter::GetIntByObjectRef).Remote(int_ref)), 1);
}

}  // namespace
