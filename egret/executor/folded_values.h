// Private to the backend: the values of nodes that read only graph
// constants, computed by the first run of an ExecuteCache and reused by
// every later one (run-time constant folding).
//
// ONNX graphs carry work on their weights that every run would repeat: a
// DequantizeLinear of an 8-bit FullyConnected weight (QDQ ResNet-50: 2M
// elements, a millisecond a run), a Transpose or Reshape of a weight. A
// node qualifies when each input is a graph constant, another folded value
// or a $Shape, and it has no attributes (its op and types say everything).
// An entry is keyed by the op, the thread count (a kernel's result is fixed
// for a given count), the inputs' identities and the output types, and
// holds shared ownership of its inputs, so no later tensor at one of their
// addresses can be taken for them.
#ifndef EGRET_EXECUTOR_FOLDED_VALUES_H_
#define EGRET_EXECUTOR_FOLDED_VALUES_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "egret/graph/tensor.h"

namespace egret::backend_internal {

class FoldedValues {
 public:
  using Tensors = std::vector<std::shared_ptr<const Tensor>>;

  // The key of a node reading `inputs` (null for a $Shape input, whose type
  // `input_types` gives) with outputs of `output_types`.
  static std::string Key(std::string_view op, int threads, const Tensors& inputs,
                         const std::vector<const TensorType*>& input_types,
                         const std::vector<TensorType>& output_types);

  // The outputs kept for `key`, or null.
  const Tensors* Find(const std::string& key) const;
  // Keeps `outputs` for `key` (computed from `inputs`).
  void Insert(std::string key, Tensors inputs, Tensors outputs);
  // Bytes of the outputs kept.
  int64_t bytes() const { return bytes_; }

 private:
  struct Entry {
    Tensors inputs;
    Tensors outputs;
  };
  absl::flat_hash_map<std::string, Entry> entries_;
  int64_t bytes_ = 0;
};

}  // namespace egret::backend_internal

#endif  // EGRET_EXECUTOR_FOLDED_VALUES_H_
