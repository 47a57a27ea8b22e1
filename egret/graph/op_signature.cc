#include "egret/graph/op_signature.h"

#include "absl/container/flat_hash_map.h"

namespace egret {
namespace {

constexpr uint32_t Bits(std::initializer_list<int> inputs) {
  uint32_t m = 0;
  for (int i : inputs) m |= 1u << i;
  return m;
}

constexpr int V = kVariadic;

// clang-format off
constexpr OpSignature kOps[] = {
    // Convolution and matrix products.
    {"Conv2d",          5, 8, Bits({3, 4, 5, 6, 7}), "in filter bias stride pads dilation act_min act_max"},
    {"DepthWiseConv2d", 5, 8, Bits({3, 4, 5, 6, 7}), "in filter bias stride pads dilation act_min act_max"},
    {"TransposeConv2d", 5, 7, Bits({3, 4, 5, 6}), "in filter bias stride pads dilation output_padding"},
    {"FullyConnected",  2, 5, Bits({3, 4}),       "in weights bias act_min act_max"},
    {"MatMul",          2, 2, 0,                  "a b"},
    // Binary elementwise with numpy broadcasting.
    {"ElementWiseAdd",      2, 2, 0, "a b"},
    {"ElementWiseSubtract", 2, 2, 0, "a b"},
    {"ElementWiseMultiply", 2, 2, 0, "a b"},
    {"ElementWiseDivide",   2, 2, 0, "a b"},
    {"ElementWiseMaximum",  2, 2, 0, "a b"},
    {"ElementWiseMinimum",  2, 2, 0, "a b"},
    {"ElementWisePower",    2, 2, 0, "a b"},
    // Unary elementwise.
    {"Relu",        1, 1, 0,             "x"},
    {"Relu1",       1, 1, 0,             "x"},
    {"Relu6",       1, 1, 0,             "x"},
    {"ReluX",       2, 2, Bits({1}),     "x max"},
    {"ReluMinMax",  3, 3, Bits({1, 2}),  "x min max"},
    {"Sigmoid",     1, 1, 0,             "x"},
    {"Tanh",        1, 1, 0,             "x"},
    {"HardSigmoid", 3, 3, Bits({1, 2}),  "x alpha beta"},
    {"HardSwish",   1, 1, 0,             "x"},
    {"Gelu",        1, 1, 0,             "x"},
    {"Erf",         1, 1, 0,             "x"},
    {"Exp",         1, 1, 0,             "x"},
    {"Log",         1, 1, 0,             "x"},
    {"Sqrt",        1, 1, 0,             "x"},
    {"Neg",         1, 1, 0,             "x"},
    {"Abs",         1, 1, 0,             "x"},
    // Normalization.
    {"Softmax",   1, 2, Bits({1}),    "x axis"},
    {"LayerNorm", 4, 5, Bits({3, 4}), "x gamma beta epsilon axis"},
    {"Batchnorm", 3, 3, 0,            "x scale offset"},
    {"LRN",       5, 5, Bits({1, 2, 3, 4}), "x size alpha beta bias"},
    // Reductions.
    {"ReduceMean", 2, 3, Bits({1, 2}), "x axes keep_dims"},
    {"ReduceSum",  2, 3, Bits({1, 2}), "x axes keep_dims"},
    {"ReduceMax",  2, 3, Bits({1, 2}), "x axes keep_dims"},
    // Data movement.
    {"Reshape",      2, 2, Bits({1}),       "x shape"},
    {"Transpose",    2, 2, Bits({1}),       "x perm"},
    {"Concat",       2, V, Bits({0}),       "axis x"},
    {"Slice_shape",  3, 3, Bits({1, 2}),    "x start size"},
    {"StridedSlice", 4, 4, Bits({1, 2, 3}), "x begin end strides"},
    {"Split",        3, 3, Bits({1, 2}),    "x axis sizes", V},
    {"Pad",          2, 4, Bits({1, 2, 3}), "x pads mode value"},
    // Pooling and resizing (NHWC).
    {"PoolMax2d", 4, 4, Bits({1, 2, 3}),    "x window stride pads"},
    {"PoolAvg2d", 4, 5, Bits({1, 2, 3, 4}), "x window stride pads count_pad"},
    {"Resize",                3, 5, Bits({1, 2, 3, 4}), "x size mode transform nearest_mode"},
    {"ResizeBilinear",        2, 3, Bits({1, 2}),       "x size transform"},
    {"ResizeNearestNeighbor", 2, 4, Bits({1, 2, 3}),    "x size transform nearest_mode"},
    // Types and quantization.
    {"Cast",       1, 1, 0, "x"},
    {"Quantize",   1, 1, 0, "x"},
    {"Dequantize", 1, 1, 0, "x"},
    // Special ops.
    {"$Out",   2, 2, Bits({1}), "multi selector"},
    {"$Const", 0, 0, 0,         ""},
    {"$Shape", 0, 0, 0,         ""},
    {"*Input", 0, 0, 0,         ""},
};
// clang-format on

}  // namespace

std::string_view OpSignature::InputName(int input) const {
  std::string_view rest = input_names;
  std::string_view last;
  for (int i = 0; !rest.empty(); ++i) {
    size_t sp = rest.find(' ');
    std::string_view word = rest.substr(0, sp);
    if (i == input) return word;
    last = word;
    rest = sp == std::string_view::npos ? std::string_view() : rest.substr(sp + 1);
  }
  return max_inputs == kVariadic ? last : std::string_view();
}

std::string_view BaseOpName(std::string_view op) {
  if (op.empty() || op.front() == '$' || op.front() == '*') return op;
  size_t dot = op.find('.');
  return dot == std::string_view::npos ? op : op.substr(0, dot);
}

const OpSignature* FindOpSignature(std::string_view op) {
  static const auto* const kByName = [] {
    auto* m = new absl::flat_hash_map<std::string_view, const OpSignature*>();
    for (const OpSignature& s : kOps) m->emplace(s.name, &s);
    return m;
  }();
  auto it = kByName->find(BaseOpName(op));
  return it == kByName->end() ? nullptr : it->second;
}

bool IsKnownOp(std::string_view op) { return FindOpSignature(op) != nullptr; }

absl::Span<const OpSignature> AllOpSignatures() { return kOps; }

}  // namespace egret
