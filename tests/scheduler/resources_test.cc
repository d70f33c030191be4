#include "runtime/scheduler/resources.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace ray::scheduler {
namespace {

using Amounts = std::map<std::string, double>;

TEST(ResourceSetTest, RoundTripsDoubles) {
  Amounts in{{"CPU", 4}, {"GPU", 0.5}, {"custom", 0.0001}, {"memory", 2.5e9}};
  EXPECT_EQ(ResourceSet::FromDoubles(in).ToDoubles(), in);
}

TEST(ResourceSetTest, FractionsAddUpExactly) {
  ResourceSet sum;
  sum.Add(ResourceSet::FromDoubles({{"GPU", 0.5}}));
  sum.Add(ResourceSet::FromDoubles({{"GPU", 0.25}}));
  sum.Add(ResourceSet::FromDoubles({{"GPU", 0.25}}));
  EXPECT_EQ(sum.ToDoubles().at("GPU"), 1.0);  // exact, not approximately
  EXPECT_TRUE(sum.Contains(ResourceSet::FromDoubles({{"GPU", 1}})));
  EXPECT_TRUE(ResourceSet::FromDoubles({{"GPU", 1}}).Contains(sum));

  // Ten times 0.1 is exactly 1 too (in doubles it is 0.9999999999999999).
  ResourceSet tenths;
  for (int i = 0; i < 10; ++i) tenths.Add(ResourceSet::FromDoubles({{"CPU", 0.1}}));
  EXPECT_EQ(tenths.ToDoubles().at("CPU"), 1.0);
  tenths.Subtract(ResourceSet::FromDoubles({{"CPU", 1}}));
  EXPECT_EQ(tenths.ToDoubles().at("CPU"), 0.0);
}

TEST(ResourceSetTest, AddUpToStopsAtTheCap) {
  const auto cap = ResourceSet::FromDoubles({{"CPU", 2}});
  ResourceSet s = ResourceSet::FromDoubles({{"CPU", 1}});
  s.Subtract(ResourceSet::FromDoubles({{"CPU", 2}}));  // overcharged: -1
  s.AddUpTo(ResourceSet::FromDoubles({{"CPU", 1}}), cap);
  EXPECT_FALSE(s.Contains(ResourceSet::FromDoubles({{"CPU", 0.5}})));
  s.AddUpTo(ResourceSet::FromDoubles({{"CPU", 5}}), cap);
  EXPECT_EQ(s.Amount("CPU"), 2.0);
  s.AddUpTo(ResourceSet::FromDoubles({{"GPU", 1}}), cap);  // none in the cap: none added
  EXPECT_EQ(s, ResourceSet::FromDoubles({{"CPU", 2}}));
}

TEST(ResourceSetTest, ZeroAndNegativeAmountsAreDropped) {
  auto s = ResourceSet::FromDoubles({{"CPU", 0}, {"GPU", -1}, {"tiny", 0.00001}, {"x", 2}});
  EXPECT_EQ(s.ToDoubles(), (Amounts{{"x", 2}}));
  EXPECT_TRUE(ResourceSet::FromDoubles({{"CPU", 0}}).empty());
  EXPECT_TRUE(ResourceSet().empty());
}

TEST(ResourceSetTest, NonFiniteAmountsAreDropped) {
  double nan = std::numeric_limits<double>::quiet_NaN();
  double inf = std::numeric_limits<double>::infinity();
  auto s = ResourceSet::FromDoubles({{"a", nan}, {"b", -inf}, {"CPU", 1}});
  EXPECT_EQ(s.ToDoubles(), (Amounts{{"CPU", 1}}));
}

TEST(ResourceSetTest, HugeAmountsAreCappedNotDropped) {
  auto s = ResourceSet::FromDoubles({{"memory", 1e300}});
  EXPECT_EQ(s.ToDoubles().at("memory"), 1e11);
  s.Add(s);  // no overflow
  EXPECT_EQ(s.ToDoubles().at("memory"), 2e11);
  EXPECT_TRUE(s.Contains(ResourceSet::FromDoubles({{"memory", 1e10}})));
}

TEST(ResourceSetTest, Contains) {
  auto node = ResourceSet::FromDoubles({{"CPU", 4}, {"GPU", 1}});
  EXPECT_TRUE(node.Contains(ResourceSet()));
  EXPECT_TRUE(node.Contains(ResourceSet::FromDoubles({{"CPU", 4}})));
  EXPECT_TRUE(node.Contains(ResourceSet::FromDoubles({{"CPU", 1}, {"GPU", 0.5}})));
  EXPECT_FALSE(node.Contains(ResourceSet::FromDoubles({{"CPU", 4.0001}})));
  EXPECT_FALSE(node.Contains(ResourceSet::FromDoubles({{"TPU", 1}})));
  EXPECT_FALSE(ResourceSet().Contains(ResourceSet::FromDoubles({{"CPU", 1}})));
  // A zero request for an absent resource asks for nothing.
  EXPECT_TRUE(node.Contains(ResourceSet::FromDoubles({{"TPU", 0}})));
}

TEST(ResourceSetTest, SubtractMayGoBelowZero) {
  auto avail = ResourceSet::FromDoubles({{"CPU", 1}});
  avail.Subtract(ResourceSet::FromDoubles({{"CPU", 2}, {"GPU", 0.5}}));
  EXPECT_EQ(avail.ToDoubles(), (Amounts{{"CPU", -1}, {"GPU", -0.5}}));
  EXPECT_FALSE(avail.Contains(ResourceSet::FromDoubles({{"CPU", 0.0001}})));
  avail.Add(ResourceSet::FromDoubles({{"CPU", 2}, {"GPU", 0.5}}));
  EXPECT_EQ(avail.ToDoubles(), (Amounts{{"CPU", 1}, {"GPU", 0}}));
  EXPECT_TRUE(avail.Contains(ResourceSet::FromDoubles({{"CPU", 1}})));
}

TEST(ResourceSetTest, CpuOnly) {
  auto s = ResourceSet::FromDoubles({{"CPU", 2}, {"GPU", 1}, {"memory", 100}});
  EXPECT_EQ(s.CpuOnly().ToDoubles(), (Amounts{{"CPU", 2}}));
  EXPECT_TRUE(ResourceSet::FromDoubles({{"GPU", 1}}).CpuOnly().empty());
  // A task in a placement group holds its group's CPUs instead.
  auto in_group = ResourceSet::FromDoubles(
      {{"CPU_group_0_ab", 1}, {"CPU_group_ab", 1}, {"GPU_group_ab", 1}, {"memory", 5}});
  EXPECT_EQ(in_group.CpuOnly().ToDoubles(), (Amounts{{"CPU_group_0_ab", 1}, {"CPU_group_ab", 1}}));
}

TEST(ResourceSetTest, ToStringFormat) {
  EXPECT_EQ(ResourceSet().ToString(), "{}");
  EXPECT_EQ(ResourceSet::FromDoubles({{"CPU", 2}, {"GPU", 0.5}}).ToString(),
            "{\"CPU\": 2, \"GPU\": 0.5}");
  EXPECT_EQ(ResourceSet::FromDoubles({{"x", 0.0001}}).ToString(), "{\"x\": 0.0001}");
  // Large amounts (memory in bytes) print in full, not rounded to 6 digits.
  EXPECT_EQ(ResourceSet::FromDoubles({{"memory", 2147483648.0}}).ToString(),
            "{\"memory\": 2147483648}");
  EXPECT_EQ(ResourceSet::FromDoubles({{"CPU", 1234567}}).ToString(), "{\"CPU\": 1234567}");
}

}  // namespace
}  // namespace ray::scheduler
