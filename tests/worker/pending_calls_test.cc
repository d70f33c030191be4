#include "runtime/worker/pending_calls.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <string>

#include "tests/test_util/named_ids.h"

namespace ray::worker {
namespace {

int freed = 0;
void CountFree(char* p) {
  ++freed;
  std::free(p);
}

RayResult Result(const std::string& bytes) {
  RayResult r{};
  r.data = static_cast<char*>(std::malloc(bytes.size() + 1));
  std::memcpy(r.data, bytes.data(), bytes.size());
  r.size = bytes.size();
  r.kind = RAY_OBJECT_VALUE;
  r.free_fn = CountFree;
  return r;
}

PendingCalls::Call CallFor(const std::string& task_id) {
  PendingCalls::Call c;
  c.in.task.spec.task_id = test_util::TaskNamed(task_id);
  return c;
}

TEST(PendingCallsTest, AResultAnswersTheCallThatWaitsForIt) {
  PendingCalls calls;
  calls.Started(1);
  EXPECT_FALSE(calls.Pend(1, CallFor("t1")));
  EXPECT_EQ(calls.size(), 1u);
  auto ready = calls.Complete(1, Result("one"));
  ASSERT_TRUE(ready);
  EXPECT_EQ(ready->first.in.task.spec.task_id, test_util::TaskNamed("t1"));
  EXPECT_EQ(std::string(ready->second.data, ready->second.size), "one");
  ready->second.free_fn(ready->second.data);
  EXPECT_EQ(calls.size(), 0u);
}

TEST(PendingCallsTest, AResultBeforeItsInvokeReturnedAnswersWhenTheCallIsRecorded) {
  PendingCalls calls;
  calls.Started(1);
  calls.Started(2);
  EXPECT_FALSE(calls.Complete(2, Result("two")));  // the body ended first
  auto ready = calls.Pend(2, CallFor("t2"));
  ASSERT_TRUE(ready);
  EXPECT_EQ(ready->first.in.task.spec.task_id, test_util::TaskNamed("t2"));
  EXPECT_EQ(std::string(ready->second.data, ready->second.size), "two");
  ready->second.free_fn(ready->second.data);
  EXPECT_EQ(calls.size(), 0u);
}

TEST(PendingCallsTest, AResultOfACallNeverStartedOrAnsweredTwiceIsFreed) {
  PendingCalls calls;
  freed = 0;
  calls.Started(1);
  EXPECT_FALSE(calls.Complete(9, Result("nine")));  // never started
  EXPECT_FALSE(calls.Complete(0, Result("zero")));  // no call
  EXPECT_EQ(freed, 2);
  EXPECT_FALSE(calls.Pend(1, CallFor("t1")));
  auto ready = calls.Complete(1, Result("one"));
  ASSERT_TRUE(ready);
  ready->second.free_fn(ready->second.data);
  EXPECT_FALSE(calls.Complete(1, Result("again")));  // kept as early, freed at the end
}

TEST(PendingCallsTest, ResultsKeptForCallsNeverRecordedAreFreedWithIt) {
  freed = 0;
  {
    PendingCalls calls;
    calls.Started(1);
    calls.Complete(1, Result("one"));
    EXPECT_EQ(freed, 0);
  }
  EXPECT_EQ(freed, 1);
}

}  // namespace
}  // namespace ray::worker
