#include "egret/support/enum_names.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace egret {
namespace {

using ::testing::ElementsAre;

enum class Color { kRed, kGreen, kBlue };

constexpr auto kColorNames = MakeEnumNames<Color>({
    {Color::kRed, "red"},
    {Color::kGreen, "green"},
    {Color::kBlue, "blue"},
});

// Both directions are usable at compile time.
static_assert(kColorNames.size() == 3);
static_assert(kColorNames.Name(Color::kGreen) == "green");
static_assert(kColorNames.Parse("blue") == Color::kBlue);

TEST(EnumNames, NameAndParseAreInverse) {
  for (Color c : kColorNames.Values()) {
    EXPECT_EQ(kColorNames.Parse(kColorNames.Name(c)), c);
  }
  EXPECT_THAT(kColorNames.Values(), ElementsAre(Color::kRed, Color::kGreen, Color::kBlue));
}

TEST(EnumNames, UnknownNamesAndValues) {
  EXPECT_EQ(kColorNames.Parse("Red"), std::nullopt);  // case-sensitive
  EXPECT_EQ(kColorNames.Parse(""), std::nullopt);
  EXPECT_EQ(kColorNames.Name(static_cast<Color>(7)), "?");
  EXPECT_EQ(kColorNames.Name(static_cast<Color>(7), "none"), "none");
}

}  // namespace
}  // namespace egret
