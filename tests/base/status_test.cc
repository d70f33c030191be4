#include "runtime/base/status.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>

namespace ray {
namespace {

TEST(StatusTest, DefaultIsOk) {
  Status st;
  EXPECT_TRUE(st.ok());
  EXPECT_EQ(st.code(), StatusCode::kOk);
  EXPECT_EQ(st.ToString(), "OK");
  EXPECT_TRUE(Status::Ok().ok());
}

TEST(StatusTest, FactoriesSetCodeAndMessage) {
  struct Case {
    Status status;
    StatusCode code;
    const char* name;
  };
  const Case cases[] = {
      {Status::InvalidArgument("m"), StatusCode::kInvalidArgument, "InvalidArgument"},
      {Status::NotFound("m"), StatusCode::kNotFound, "NotFound"},
      {Status::AlreadyExists("m"), StatusCode::kAlreadyExists, "AlreadyExists"},
      {Status::FailedPrecondition("m"), StatusCode::kFailedPrecondition, "FailedPrecondition"},
      {Status::Unavailable("m"), StatusCode::kUnavailable, "Unavailable"},
      {Status::DeadlineExceeded("m"), StatusCode::kDeadlineExceeded, "DeadlineExceeded"},
      {Status::ResourceExhausted("m"), StatusCode::kResourceExhausted, "ResourceExhausted"},
      {Status::PermissionDenied("m"), StatusCode::kPermissionDenied, "PermissionDenied"},
      {Status::Internal("m"), StatusCode::kInternal, "Internal"},
      {Status::DataLoss("m"), StatusCode::kDataLoss, "DataLoss"},
      {Status(StatusCode::kCancelled, "m"), StatusCode::kCancelled, "Cancelled"},
      {Status(StatusCode::kUnimplemented, "m"), StatusCode::kUnimplemented, "Unimplemented"},
  };
  for (const auto& c : cases) {
    EXPECT_FALSE(c.status.ok()) << c.name;
    EXPECT_EQ(c.status.code(), c.code) << c.name;
    EXPECT_EQ(c.status.message(), "m") << c.name;
    EXPECT_STREQ(StatusCodeName(c.code), c.name);
    EXPECT_EQ(c.status.ToString(), std::string(c.name) + ": m");
  }
}

TEST(StatusTest, ToStringCarriesMessage) {
  EXPECT_EQ(Status::NotFound("no such object").ToString(), "NotFound: no such object");
}

TEST(ResultTest, HoldsValueOrStatus) {
  Result<int> good = 7;
  ASSERT_TRUE(good.ok());
  EXPECT_EQ(*good, 7);
  EXPECT_TRUE(good.status().ok());

  Result<int> bad = Status::NotFound("x");
  EXPECT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), StatusCode::kNotFound);
  EXPECT_EQ(bad.status().message(), "x");
}

TEST(ResultTest, MovesOutMoveOnlyValues) {
  Result<std::unique_ptr<int>> r = std::make_unique<int>(3);
  ASSERT_TRUE(r.ok());
  std::unique_ptr<int> p = std::move(r).value();
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(*p, 3);
}

TEST(ResultTest, ArrowReachesMembers) {
  Result<std::string> r = std::string("abc");
  EXPECT_EQ(r->size(), 3u);
  const Result<std::string>& cr = r;
  EXPECT_EQ(cr->size(), 3u);
}

// Helpers for the macro tests; `steps` records how far each function got.
Result<int> Half(int x) {
  if (x % 2) return Status::InvalidArgument("odd: " + std::to_string(x));
  return x / 2;
}

Result<int> Quarter(int x, int* steps) {
  RAY_ASSIGN_OR_RETURN(int h, Half(x));
  ++*steps;
  RAY_ASSIGN_OR_RETURN(auto q, Half(h));  // a second use on another line
  ++*steps;
  return q;
}

Status Check(bool fail, int* steps) {
  RAY_RETURN_IF_ERROR(fail ? Status::Unavailable("down") : Status::Ok());
  ++*steps;
  return Status::Ok();
}

Status CheckTwice(int* steps) {
  RAY_RETURN_IF_ERROR(Check(false, steps));
  RAY_RETURN_IF_ERROR(Check(true, steps));
  ++*steps;  // not reached
  return Status::Ok();
}

TEST(StatusMacrosTest, AssignOrReturnPropagatesFirstError) {
  int steps = 0;
  auto ok = Quarter(12, &steps);
  ASSERT_TRUE(ok.ok());
  EXPECT_EQ(*ok, 3);
  EXPECT_EQ(steps, 2);

  steps = 0;
  auto first = Quarter(7, &steps);
  EXPECT_EQ(first.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(first.status().message(), "odd: 7");
  EXPECT_EQ(steps, 0);

  steps = 0;
  auto second = Quarter(6, &steps);
  EXPECT_EQ(second.status().message(), "odd: 3");
  EXPECT_EQ(steps, 1);
}

TEST(StatusMacrosTest, ReturnIfErrorStopsAtFailure) {
  int steps = 0;
  Status st = CheckTwice(&steps);
  EXPECT_EQ(st.code(), StatusCode::kUnavailable);
  EXPECT_EQ(st.message(), "down");
  EXPECT_EQ(steps, 1);
}

TEST(StatusMacrosTest, ReturnIfErrorWorksInResultFunctions) {
  auto f = [](bool fail) -> Result<std::string> {
    RAY_RETURN_IF_ERROR(fail ? Status::DataLoss("gone") : Status::Ok());
    return std::string("fine");
  };
  EXPECT_EQ(*f(false), "fine");
  EXPECT_EQ(f(true).status().code(), StatusCode::kDataLoss);
}

}  // namespace
}  // namespace ray
