// The port the dashboard's supervisor binds again after a restart, read back from
// the URL the first start wrote to dashboard.ready.
#include <gtest/gtest.h>

#include "runtime/dashboard/dashboard.h"

namespace ray::dashboard {
namespace {

TEST(PortOfUrlTest, ReadsThePortOfTheUrlsTheDashboardWrites) {
  EXPECT_EQ(PortOfUrl(DashboardUrl("127.0.0.1", 8265)), 8265);
  EXPECT_EQ(PortOfUrl(DashboardUrl("::1", 41234)), 41234);
  EXPECT_EQ(PortOfUrl("http://10.0.0.2:1"), 1);
}

TEST(PortOfUrlTest, AnythingElseIsNoPort) {
  for (const char* bad : {"", "http://127.0.0.1", "http://127.0.0.1:", "http://h:0",
                          "http://h:65536", "http://h:12a4", "http://h:123456", "8265x"}) {
    EXPECT_FALSE(PortOfUrl(bad).has_value()) << bad;
  }
}

}  // namespace
}  // namespace ray::dashboard
