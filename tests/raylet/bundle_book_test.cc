#include "runtime/raylet/bundle_book.h"

#include <gtest/gtest.h>

namespace ray::raylet {
namespace {

using Key = BundleBook::Key;
using scheduler::ResourceSet;

ResourceSet Cpus(double n) { return ResourceSet::FromDoubles({{"CPU", n}}); }

TEST(BundleBookTest, ReservedBundlesAreHeldUntilReleasedWithTheirResources) {
  BundleBook book;
  book.Reserved({"pg1", 1}, Cpus(2));
  book.Reserved({"pg1", 0}, Cpus(1));
  book.Reserved({"pg2", 0}, Cpus(4));
  EXPECT_TRUE(book.Holds({"pg1", 0}));
  EXPECT_FALSE(book.Holds({"pg1", 2}));
  EXPECT_EQ(book.Held(), (std::vector<Key>{{"pg1", 0}, {"pg1", 1}, {"pg2", 0}}));
  auto released = book.Release({"pg1", 1});
  ASSERT_TRUE(released.has_value());
  EXPECT_EQ(*released, Cpus(2));
  EXPECT_FALSE(book.Release({"pg1", 1}).has_value());  // once
  EXPECT_TRUE(book.HoldsGroup("pg1"));
  book.Release({"pg1", 0});
  EXPECT_FALSE(book.HoldsGroup("pg1"));  // its last bundle here went
  EXPECT_TRUE(book.HoldsGroup("pg2"));
}

TEST(BundleBookTest, NotInNamesTheHeldBundlesTheGcsNoLongerWants) {
  BundleBook book;
  book.Reserved({"pg1", 0}, Cpus(1));
  book.Reserved({"pg1", 1}, Cpus(1));
  std::map<Key, ResourceSet> wanted = {{{"pg1", 1}, Cpus(1)}, {{"pg3", 0}, Cpus(1)}};
  EXPECT_EQ(book.NotIn(wanted), (std::vector<Key>{{"pg1", 0}}));
}

TEST(BundleBookTest, RefusedBundlesWaitForTheNextSync) {
  BundleBook book;
  book.Refused({"pg1", 0});
  book.Refused({"pg1", 0});
  EXPECT_EQ(book.refused(), (std::vector<Key>{{"pg1", 0}}));
  book.ClearRefused();
  EXPECT_TRUE(book.refused().empty());
}

TEST(BundleBookTest, AVersionIsNewOnceWhenItChanges) {
  BundleBook book;
  EXPECT_FALSE(book.NewVersion(0));
  EXPECT_TRUE(book.NewVersion(3));
  EXPECT_FALSE(book.NewVersion(3));
  EXPECT_TRUE(book.NewVersion(2));  // any change (a GCS that restarted counts anew)
}

}  // namespace
}  // namespace ray::raylet
