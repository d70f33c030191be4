// ClientLock: recursive holding, letting a waiting thread in, and the pump role.
#include "runtime/api/client_lock.h"

#include <gtest/gtest.h>
#include <poll.h>

#include <future>
#include <mutex>
#include <thread>

namespace ray::core {
namespace {

bool Readable(int fd, int timeout_ms) {
  pollfd p{fd, POLLIN, 0};
  return ::poll(&p, 1, timeout_ms) == 1;
}

TEST(ClientLockTest, IsRecursiveForItsHolder) {
  ClientLock lock;
  std::lock_guard<ClientLock> outer(lock);
  std::lock_guard<ClientLock> inner(lock);
  EXPECT_TRUE(lock.TryTakePump());
  EXPECT_TRUE(lock.TryTakePump());  // nested
  lock.ReleasePump();
  lock.ReleasePump();
}

TEST(ClientLockTest, AWaitingThreadWakesTheHolderWhoLetsItIn) {
  ClientLock lock;
  lock.lock();
  EXPECT_FALSE(Readable(lock.wake_fd(), 0));
  std::promise<void> entered;
  std::thread other([&] {
    std::lock_guard<ClientLock> hold(lock);
    entered.set_value();
  });
  // The holder polls its sockets and the wake fd: it turns readable.
  ASSERT_TRUE(Readable(lock.wake_fd(), 10000));
  lock.LetWaitersIn();  // returns once the other thread had its turn
  EXPECT_EQ(entered.get_future().wait_for(std::chrono::seconds(0)), std::future_status::ready);
  EXPECT_FALSE(Readable(lock.wake_fd(), 0));
  lock.unlock();
  other.join();
}

TEST(ClientLockTest, OneThreadPumpsAndTheOthersSleepUntilItHandledSomething) {
  ClientLock lock;
  std::promise<void> pumping, slept;
  std::thread pumper([&] {
    std::lock_guard<ClientLock> hold(lock);
    ASSERT_TRUE(lock.TryTakePump());
    pumping.set_value();
    ASSERT_TRUE(Readable(lock.wake_fd(), 10000));  // the sleeper wants the lock first
    lock.LetWaitersIn();
    slept.get_future().wait();
    lock.NotifyHandled();  // a frame handled: the sleeper looks again
    lock.ReleasePump();
  });
  pumping.get_future().wait();
  std::lock_guard<ClientLock> hold(lock);
  EXPECT_FALSE(lock.TryTakePump());  // taken
  slept.set_value();
  lock.AwaitPump(-1);  // without a handled frame or a free role this never returns
  pumper.join();       // (it let go of the lock before we had it back)
  EXPECT_TRUE(lock.TryTakePump());  // the role is free again
  lock.ReleasePump();
}

}  // namespace
}  // namespace ray::core
