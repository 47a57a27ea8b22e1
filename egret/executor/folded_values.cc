#include "egret/executor/folded_values.h"

#include <cstring>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "egret/graph/checked_math.h"

namespace egret::backend_internal {
namespace {

uint32_t Bits(float f) {
  uint32_t b;
  std::memcpy(&b, &f, sizeof b);
  return b;
}

// Every field of `t`, exactly (ToString rounds stepsizes and summarizes
// per-axis encodings).
void AppendType(std::string& key, const TensorType& t) {
  absl::StrAppend(&key, "|", static_cast<int>(t.dtype), "[", absl::StrJoin(t.dims, ","), "]",
                  t.zero_offset, ":", Bits(t.stepsize));
  if (t.per_axis) {
    absl::StrAppend(&key, "@", t.per_axis->axis);
    for (size_t c = 0; c < t.per_axis->stepsizes.size(); ++c) {
      absl::StrAppend(&key, ",", t.per_axis->zero_offsets[c], ":", Bits(t.per_axis->stepsizes[c]));
    }
  }
}

}  // namespace

std::string FoldedValues::Key(std::string_view op, int threads, const Tensors& inputs,
                              const std::vector<const TensorType*>& input_types,
                              const std::vector<TensorType>& output_types) {
  std::string key(op);
  absl::StrAppend(&key, "|", threads);
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (inputs[i] != nullptr) {
      absl::StrAppend(&key, "|@", reinterpret_cast<uintptr_t>(inputs[i].get()));
    } else {
      AppendType(key, *input_types[i]);
    }
  }
  absl::StrAppend(&key, "|->");
  for (const TensorType& t : output_types) AppendType(key, t);
  return key;
}

const FoldedValues::Tensors* FoldedValues::Find(const std::string& key) const {
  auto it = entries_.find(key);
  return it == entries_.end() ? nullptr : &it->second.outputs;
}

void FoldedValues::Insert(std::string key, Tensors inputs, Tensors outputs) {
  int64_t bytes = 0;
  for (const auto& t : outputs) bytes = SaturatingAdd(bytes, t->type().byte_size());
  if (entries_.try_emplace(std::move(key), Entry{std::move(inputs), std::move(outputs)}).second) {
    bytes_ = SaturatingAdd(bytes_, bytes);
  }
}

}  // namespace egret::backend_internal
