#include "egret/extract/class_error.h"

#include <charconv>
#include <string>

#include "absl/strings/cord.h"

namespace egret::extract {
namespace {

constexpr char kClassPayload[] = "type.egret/extract.ErrorClass";

}  // namespace

absl::Status WithErrorClass(absl::Status status, ClassId c) {
  if (!status.ok()) status.SetPayload(kClassPayload, absl::Cord(std::to_string(c)));
  return status;
}

std::optional<ClassId> ErrorClass(const absl::Status& status) {
  auto payload = status.GetPayload(kClassPayload);  // absl::optional<absl::Cord>
  if (!payload) return std::nullopt;
  std::string text(*payload);
  ClassId c = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), c);
  if (ec != std::errc() || ptr != text.data() + text.size()) return std::nullopt;
  return c;
}

}  // namespace egret::extract
