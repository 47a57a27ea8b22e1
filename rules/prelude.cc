#include "egret/rules/prelude.h"

namespace egret::rules {
namespace {

constexpr std::string_view kPrelude = R"prelude(
#define CHANNEL_SPLIT_SIZE 256
)prelude";

}  // namespace

std::string_view PreludeText() { return kPrelude; }

}  // namespace egret::rules
