#include "egret/support/status_macros.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace egret {
namespace {

int calls = 0;

absl::Status Check(bool ok) {
  ++calls;
  return ok ? absl::OkStatus() : absl::InvalidArgumentError("bad");
}

absl::StatusOr<std::unique_ptr<int>> Make(int v) {
  ++calls;
  if (v < 0) return absl::OutOfRangeError("negative");
  return std::make_unique<int>(v);
}

absl::Status Both(bool first, bool second, int* reached) {
  EGRET_RETURN_IF_ERROR(Check(first));
  *reached = 1;
  EGRET_RETURN_IF_ERROR(Check(second));
  *reached = 2;
  return absl::OkStatus();
}

// Two uses in one scope (unique temporaries), a move-only value, assignment
// to an existing variable, and a StatusOr-returning caller.
absl::StatusOr<int> Sum(int a, int b) {
  EGRET_ASSIGN_OR_RETURN(auto x, Make(a));
  EGRET_ASSIGN_OR_RETURN(std::unique_ptr<int> y, Make(b));
  int z = 0;
  EGRET_ASSIGN_OR_RETURN(std::unique_ptr<int> w, Make(1));
  EGRET_ASSIGN_OR_RETURN(z, absl::StatusOr<int>(*w + 1));
  return *x + *y + z;
}

TEST(StatusMacros, ReturnIfErrorStopsAtTheFirstError) {
  int reached = 0;
  calls = 0;
  EXPECT_TRUE(Both(true, true, &reached).ok());
  EXPECT_EQ(reached, 2);
  EXPECT_EQ(calls, 2);
  reached = 0;
  calls = 0;
  absl::Status s = Both(false, true, &reached);
  EXPECT_EQ(s, absl::InvalidArgumentError("bad"));
  EXPECT_EQ(reached, 0);
  EXPECT_EQ(calls, 1);  // the expression is evaluated once, the rest skipped
  s = Both(true, false, &reached);
  EXPECT_EQ(s, absl::InvalidArgumentError("bad"));
  EXPECT_EQ(reached, 1);
}

TEST(StatusMacros, AssignOrReturnAssignsOrPropagates) {
  calls = 0;
  absl::StatusOr<int> r = Sum(3, 4);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(*r, 3 + 4 + 2);
  EXPECT_EQ(calls, 3);
  calls = 0;
  r = Sum(3, -1);
  EXPECT_EQ(r.status(), absl::OutOfRangeError("negative"));
  EXPECT_EQ(calls, 2);
}

}  // namespace
}  // namespace egret
