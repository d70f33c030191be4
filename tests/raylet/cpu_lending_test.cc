#include "runtime/raylet/cpu_lending.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "runtime/base/clock.h"
#include "runtime/scheduler/local_task_queue.h"
#include "tests/test_util/named_ids.h"

namespace ray::raylet {
namespace {

const ResourceSet kOneCpu = ResourceSet::FromDoubles({{"CPU", 1}});

double Cpus(const ResourceSet& r) { return r.Amount("CPU"); }

// A node of 1 CPU, which busy worker w1's task holds.
class CpuLendingTest : public ::testing::Test {
 protected:
  CpuLendingTest()
      : leases_({clients_, available_, ready_, outbox_, clock_, [](size_t) {}, [] {}}),
        lending_({clients_, available_, leases_, [this] { ++freed_; }}) {
    clients_.AddStarting("w1");
    clients_.Register(W(), 100, "ipc://w1");
    clients_.TakeFirstIdle();
    W().state = Client::kBusy;
    W().held = kOneCpu;
    protocol::TaskSpec t;
    t.task_id = test_util::TaskNamed("running");
    t.resources = {{"CPU", 1}};
    W().running = t;
  }

  Client& W() { return *clients_.Find("w1"); }

  std::shared_ptr<Waiter> Request(uint64_t id) {
    auto w = std::make_shared<Waiter>();
    w->kind = Waiter::kGet;
    w->peer = "w1";
    w->request_id = id;
    return w;
  }

  ManualClock clock_{1000};
  ClientTable clients_;
  ResourceSet available_;
  scheduler::LocalTaskQueue ready_;
  Outbox outbox_;
  LocalLeases leases_;
  int freed_ = 0;
  CpuLending lending_;
};

TEST_F(CpuLendingTest, ABlockedWorkerLendsItsCpuUntilItsLastRequestIsAnswered) {
  auto first = Request(1);
  auto second = Request(2);
  lending_.Blocked(W(), first);
  EXPECT_TRUE(W().blocked);
  EXPECT_EQ(Cpus(available_), 1);
  EXPECT_EQ(Cpus(W().held), 0);
  EXPECT_EQ(freed_, 1);
  lending_.Blocked(W(), second);
  EXPECT_EQ(Cpus(available_), 1) << "lent once";
  EXPECT_EQ(freed_, 1);

  lending_.Answered("w1", 1);
  EXPECT_TRUE(W().blocked) << "one request still waits";
  EXPECT_EQ(Cpus(available_), 1);
  lending_.Answered("w1", 2);
  EXPECT_FALSE(W().blocked);
  EXPECT_EQ(Cpus(available_), 0);
  EXPECT_EQ(Cpus(W().held), 1);
  lending_.Answered("w1", 2);
  lending_.Answered("gone", 2);
  EXPECT_EQ(Cpus(available_), 0) << "taken back once";
}

TEST_F(CpuLendingTest, DriversIdleWorkersAndAnsweredRequestsLendNothing) {
  auto done = Request(1);
  done->done = true;
  lending_.Blocked(W(), done);
  EXPECT_FALSE(W().blocked);

  W().state = Client::kActor;  // an actor's worker holds its resources for life
  lending_.Blocked(W(), Request(2));
  EXPECT_FALSE(W().blocked);

  Client& driver = clients_.AddDriver("driver", 7, test_util::JobNamed("job"));
  lending_.Blocked(driver, Request(3));
  EXPECT_FALSE(driver.blocked);
  EXPECT_EQ(Cpus(available_), 0);
  EXPECT_EQ(freed_, 0);
}

TEST_F(CpuLendingTest, AnAbandonedRequestIsDoneAndEndsTheBlock) {
  auto w = Request(1);
  lending_.Blocked(W(), w);
  lending_.Abandoned(W(), 1);
  EXPECT_TRUE(w->done) << "never answered";
  EXPECT_FALSE(W().blocked);
  EXPECT_EQ(Cpus(available_), 0);
  lending_.Abandoned(W(), 1);
  EXPECT_EQ(Cpus(available_), 0);
}

TEST_F(CpuLendingTest, ALeasedWorkerTakesBackItsLeasesShape) {
  W().running.reset();
  W().leased_to = "caller";
  W().lease_shape = kOneCpu;
  lending_.Blocked(W(), Request(1));
  EXPECT_EQ(Cpus(available_), 1);
  lending_.Answered("w1", 1);
  EXPECT_EQ(Cpus(W().held), 1);
  EXPECT_EQ(Cpus(available_), 0);

  W().leased_to.clear();  // (its lease ended while it was blocked: nothing to take back)
  W().held = ResourceSet();
  available_ = kOneCpu;
  lending_.Blocked(W(), Request(2));
  lending_.Answered("w1", 2);
  EXPECT_EQ(Cpus(W().held), 0);
}

}  // namespace
}  // namespace ray::raylet
