// RAY_REMOTE of template functions and methods, and RAY_REMOTE_NAMED, end to end:
// `ray run registration_plugin.so` calls them on a real cluster by function and by
// registered name (see the plugin for the cases).

#include <gtest/gtest.h>

#include "tests/integration/ray_harness.h"

namespace ray::testing {
namespace {

TEST(RegistrationTest, TemplateAndNamedFunctionsRunThroughTheRuntime) {
  TempDir tmp;
  RunResult r = RunRay({"run", "--num-cpus", "2", "--temp-dir", tmp.path(),
                        IT_REGISTRATION_PLUGIN},
                       tmp.path());
  EXPECT_EQ(r.exit_code, 0) << r.all();
  EXPECT_NE(r.out.find("REGISTRATION OK"), std::string::npos) << r.all();
  EXPECT_EQ(r.err.find("CHECK FAILED"), std::string::npos) << r.all();
  EXPECT_EQ(AwaitNoProcessesMentioning(tmp.path()), std::vector<int>{});
}

}  // namespace
}  // namespace ray::testing
