#include "runtime/raylet/bundle_book.h"

#include <gtest/gtest.h>

#include "runtime/scheduler/bundle_resources.h"

namespace ray::raylet {
namespace {

using Key = BundleBook::Key;
using scheduler::ResourceSet;

ResourceSet Cpus(double n) { return ResourceSet::FromDoubles({{"CPU", n}}); }

// A node's total and free resources.
struct Node {
  ResourceSet total = Cpus(8);
  ResourceSet available = Cpus(8);
};

TEST(BundleBookTest, AReservedBundleMovesItsResourcesToTheirRenamedForm) {
  BundleBook book;
  Node node;
  ASSERT_TRUE(book.Reserve({"pg1", 1}, Cpus(2), node.total, node.available));
  ResourceSet renamed = scheduler::BundleReservation(Cpus(2), "pg1", 1);
  ResourceSet total = Cpus(8);
  total.Add(renamed);
  EXPECT_EQ(node.total, total);
  ResourceSet available = Cpus(6);
  available.Add(renamed);
  EXPECT_EQ(node.available, available);
  EXPECT_TRUE(book.Holds({"pg1", 1}));
  EXPECT_FALSE(book.Holds({"pg1", 0}));

  auto released = book.Release({"pg1", 1}, node.total, node.available);
  ASSERT_TRUE(released.has_value());
  EXPECT_EQ(*released, Cpus(2));
  EXPECT_EQ(node.total, Cpus(8)) << "no renamed resource left, not even at zero";
  EXPECT_EQ(node.available, Cpus(8));
  EXPECT_FALSE(book.Release({"pg1", 1}, node.total, node.available).has_value()) << "once";
  EXPECT_EQ(node.available, Cpus(8));
}

TEST(BundleBookTest, ABundleTheFreeResourcesCannotHoldIsRefused) {
  BundleBook book;
  Node node;
  node.available = Cpus(1);
  EXPECT_FALSE(book.Reserve({"pg1", 0}, Cpus(2), node.total, node.available));
  EXPECT_EQ(node.total, Cpus(8));
  EXPECT_EQ(node.available, Cpus(1));
  EXPECT_FALSE(book.Holds({"pg1", 0}));
  EXPECT_EQ(book.refused(), (std::vector<Key>{{"pg1", 0}}));
}

TEST(BundleBookTest, TheLastBundleOfAGroupIsKnown) {
  BundleBook book;
  Node node;
  ASSERT_TRUE(book.Reserve({"pg1", 1}, Cpus(2), node.total, node.available));
  ASSERT_TRUE(book.Reserve({"pg1", 0}, Cpus(1), node.total, node.available));
  ASSERT_TRUE(book.Reserve({"pg2", 0}, Cpus(4), node.total, node.available));
  EXPECT_EQ(book.Held(), (std::vector<Key>{{"pg1", 0}, {"pg1", 1}, {"pg2", 0}}));
  EXPECT_FALSE(book.LastOfGroup({"pg1", 1}));
  EXPECT_TRUE(book.LastOfGroup({"pg2", 0}));
  book.Release({"pg1", 0}, node.total, node.available);
  EXPECT_TRUE(book.LastOfGroup({"pg1", 1}));
}

TEST(BundleBookTest, NotInNamesTheHeldBundlesTheGcsNoLongerWants) {
  BundleBook book;
  Node node;
  ASSERT_TRUE(book.Reserve({"pg1", 0}, Cpus(1), node.total, node.available));
  ASSERT_TRUE(book.Reserve({"pg1", 1}, Cpus(1), node.total, node.available));
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
