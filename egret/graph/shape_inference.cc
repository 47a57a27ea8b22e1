// Shape inference's entry points (shape_inference.h): InferOutputTypes checks
// an op's operand count and types against its op table row and calls the
// row's shape function, and InferNodeOutputTypes gathers a graph node's
// operands for it. Also here: the parameter readers and dims helpers the
// shape functions share, and ShapeContext's output-type rule (Out,
// PerAxisOut, OutOfType: the dtype and encoding of an output, the header's
// rule). The shape functions themselves are beside the op table rows that
// name them, one file per op family (ops_<family>.cc).
#include "egret/graph/shape_inference.h"

#include <algorithm>
#include <cmath>
#include <initializer_list>
#include <limits>
#include <optional>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "egret/graph/checked_math.h"
#include "egret/graph/shape_functions_internal.h"
#include "egret/support/status_macros.h"

namespace egret {
namespace shape_internal {

namespace {

int Family(DType t) {
  if (IsFloat(t)) return 1;
  if (IsQuantized(t)) return 2;
  return 100 + static_cast<int>(t);
}

}  // namespace

absl::StatusOr<TensorType> ShapeContext::Out(Dims dims, int from, size_t k) const {
  const TensorType* declared = nullptr;
  if (k < options.declared.size() && options.declared[k].dtype != DType::kMulti &&
      options.declared[k].dtype != DType::kUnknown) {
    declared = &options.declared[k];
  }
  const TensorType& src = T(from);
  if (declared == nullptr) {
    if (op == "Cast" || op == "QNN_Cast" || op == "Quantize") {
      return Error("needs a declared output type (the dtype or encoding to convert to)");
    }
    if (op == "Dequantize") return TensorType(DType::kFloat32, std::move(dims));
    if (src.per_axis) return PerAxisOut(std::move(dims), src);
    return TensorType(src.dtype, std::move(dims), src.zero_offset, src.stepsize);
  }
  DType dt = declared->dtype;
  if (!IsConcrete(dt)) {
    return Error(absl::StrFormat("declared output dtype %s holds no data", DTypeName(dt)));
  }
  bool ok;
  if (op == "Cast" || op == "QNN_Cast") {
    ok = true;
  } else if (op == "Quantize") {
    ok = IsQuantized(dt);
  } else if (op == "Dequantize") {
    ok = IsFloat(dt);
  } else {
    ok = Family(dt) == Family(src.dtype);
  }
  if (!ok) {
    return Error(absl::StrFormat("declared output dtype %s does not fit input %s (%s)",
                                 DTypeName(dt), def.InputName(from), src.ToString()));
  }
  TensorType out(dt, std::move(dims), declared->zero_offset, declared->stepsize);
  if (declared->per_axis && IsQuantized(dt)) {
    const AxisQuantization& q = *declared->per_axis;
    absl::Status st = out.SetPerAxis(q.axis, q.stepsizes, q.zero_offsets, q.block_size);
    if (!st.ok()) return Error(absl::StrCat("declared output type: ", st.message()));
  }
  return out;
}

absl::StatusOr<TensorType> ShapeContext::PerAxisOut(Dims dims, const TensorType& src) const {
  // An op that keeps every element where it is keeps the channels (Transpose
  // moves the axis itself, in InferTranspose); anything else would need to
  // know where each channel went, so it must be told the output type.
  if (dims != src.dims) {
    return Error(absl::StrFormat("input %s is quantized per axis; %s needs a declared output type",
                                 src.ToString(), op));
  }
  TensorType t = src;
  t.dims = std::move(dims);
  return t;
}

absl::StatusOr<TensorType> ShapeContext::OutOfType(Dims dims, DType dflt,
                                                   std::initializer_list<DType> allowed,
                                                   size_t k) const {
  DType dt = dflt;
  if (k < options.declared.size() && options.declared[k].dtype != DType::kMulti &&
      options.declared[k].dtype != DType::kUnknown) {
    dt = options.declared[k].dtype;
    if (std::find(allowed.begin(), allowed.end(), dt) == allowed.end()) {
      std::string names;
      for (DType a : allowed) {
        absl::StrAppend(&names, names.empty() ? "" : " or ", std::string(DTypeName(a)));
      }
      return Error(
          absl::StrFormat("declared output %d dtype %s is not %s", k, DTypeName(dt), names));
    }
  }
  return TensorType(dt, std::move(dims));
}

}  // namespace shape_internal

bool NormalizeStridedRange(int64_t dim, int64_t begin, int64_t end, int64_t stride, int64_t* first,
                           int64_t* count) {
  if (stride == 0) return false;
  if (begin < 0) begin += dim;
  if (end < 0) end += dim;
  if (stride > 0) {
    begin = std::clamp<int64_t>(begin, 0, dim);
    end = std::clamp<int64_t>(end, 0, dim);
    *count = end > begin ? (end - begin - 1) / stride + 1 : 0;  // no overflow for any stride
  } else {
    begin = std::clamp<int64_t>(begin, -1, dim - 1);
    end = std::clamp<int64_t>(end, -1, dim - 1);
    const int64_t step = stride == std::numeric_limits<int64_t>::min()
                             ? std::numeric_limits<int64_t>::max()
                             : -stride;
    *count = begin > end ? (begin - end - 1) / step + 1 : 0;
  }
  *first = begin;
  return true;
}

absl::StatusOr<std::vector<int64_t>> ReadIntParam(const OperandInfo& param, std::string_view what) {
  if (param.is_shape) return std::vector<int64_t>(param.type->dims.begin(), param.type->dims.end());
  if (param.value == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrFormat("%s must be a $Shape or $Const (a value known before running)", what));
  }
  const Tensor& t = *param.value;
  DType dt = t.type().dtype;
  if (IsQuantized(dt) || dt == DType::kBool) {
    return absl::InvalidArgumentError(
        absl::StrFormat("%s must hold integers, got %s", what, t.type().ToString()));
  }
  std::vector<int64_t> out(t.num_elements());
  for (int64_t i = 0; i < t.num_elements(); ++i) {
    double v = t.GetValue(i);
    std::optional<int64_t> n = DoubleToInt64(v, std::numeric_limits<int64_t>::min() / 2,
                                             std::numeric_limits<int64_t>::max() / 2);
    if (v != std::floor(v) || !n.has_value()) {
      return absl::InvalidArgumentError(
          absl::StrFormat("%s must hold integers, element %d is %g", what, i, v));
    }
    out[i] = *n;
  }
  return out;
}

absl::StatusOr<int64_t> ReadIntScalarParam(const OperandInfo& param, std::string_view what) {
  auto v = ReadIntParam(param, what);
  if (!v.ok()) return v.status();
  if (v->size() != 1) {
    return absl::InvalidArgumentError(
        absl::StrFormat("%s must hold one integer, got %d values", what, v->size()));
  }
  return (*v)[0];
}

absl::StatusOr<double> ReadFloatScalarParam(const OperandInfo& param, std::string_view what) {
  if (param.value == nullptr) {
    return absl::InvalidArgumentError(absl::StrFormat("%s must be a $Const", what));
  }
  if (param.value->num_elements() != 1) {
    return absl::InvalidArgumentError(
        absl::StrFormat("%s must hold one number, got %s", what, param.value->type().ToString()));
  }
  return param.value->GetReal(0);
}

absl::StatusOr<Dims> BroadcastDims(const Dims& a, const Dims& b) {
  const size_t rank = std::max(a.size(), b.size());
  Dims out(rank);
  for (size_t i = 0; i < rank; ++i) {
    int64_t da = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    int64_t db = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    if (da != db && da != 1 && db != 1) {
      return absl::InvalidArgumentError(absl::StrFormat("shapes %s and %s do not broadcast",
                                                        shape_internal::DimsStr(a),
                                                        shape_internal::DimsStr(b)));
    }
    out[i] = da == 1 ? db : da;
  }
  return out;
}

absl::StatusOr<int> NormalizeAxis(int64_t axis, int rank, std::string_view what) {
  if (axis < -rank || axis >= rank) {
    return absl::InvalidArgumentError(
        absl::StrFormat("%s %d is out of range for rank %d", what, axis, rank));
  }
  return static_cast<int>(axis < 0 ? axis + rank : axis);
}

absl::StatusOr<std::vector<TensorType>> InferOutputTypes(std::string_view op,
                                                         absl::Span<const OperandInfo> inputs,
                                                         const InferOptions& options) {
  const OpDef* def = FindOpDef(op);
  if (def == nullptr) {
    return absl::UnimplementedError(absl::StrFormat("unknown op '%s'", op));
  }
  std::string_view base = def->name;
  const int n = static_cast<int>(inputs.size());
  if (!def->AcceptsInputCount(n)) {
    return absl::InvalidArgumentError(absl::StrFormat("%s: expects %s inputs (%s), got %d", base,
                                                      def->InputCountText(), def->InputNames(), n));
  }
  for (int i = 0; i < n; ++i) {
    const TensorType* t = inputs[i].type;
    if (t == nullptr) {
      return absl::InvalidArgumentError(absl::StrFormat("%s: input %d has no type", base, i));
    }
    bool multi_ok = base == "$Out" && i == 0;
    if (!IsConcrete(t->dtype) && !(multi_ok && t->dtype == DType::kMulti)) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "%s: input %d (%s) has dtype %s%s", base, i, def->InputName(i), DTypeName(t->dtype),
          t->dtype == DType::kMulti ? "; select one output with $Out" : ""));
    }
  }
  if (def->shape_fn == nullptr) {
    return absl::InternalError(absl::StrFormat("%s: no shape function", base));
  }
  absl::StatusOr<std::vector<TensorType>> out =
      def->shape_fn(shape_internal::ShapeContext{base, *def, inputs, options});
  if (!out.ok()) return out;
  // One check for every shape function: no output above the element cap.
  for (size_t k = 0; k < out->size(); ++k) {
    if (absl::Status s = CheckShape((*out)[k].dims); !s.ok()) {
      return absl::InvalidArgumentError(absl::StrFormat("%s: output %d: %s", base, k, s.message()));
    }
  }
  return out;
}

absl::StatusOr<std::vector<TensorType>> InferNodeOutputTypes(const Graph& g, NodeId id) {
  const Node& node = g.node(id);
  std::vector<OperandInfo> ops(node.inputs.size());
  std::vector<std::vector<TensorType>> multis(node.inputs.size());
  for (size_t i = 0; i < node.inputs.size(); ++i) {
    const ValueRef& in = node.inputs[i];
    const Node& p = g.node(in.node);
    ops[i].type = &g.TypeOf(in);
    if (IsConstantOp(p.op)) ops[i].value = p.constant.get();
    ops[i].is_shape = p.op == kShapeOp;
    if (ops[i].type->dtype == DType::kMulti) {
      if (p.outputs.size() == 1) {
        auto t = InferNodeOutputTypes(g, in.node);
        if (!t.ok()) return t.status();
        multis[i] = *std::move(t);
      } else {
        multis[i].assign(p.outputs.begin(), p.outputs.end());
      }
      ops[i].multi = multis[i];
    }
  }
  InferOptions options;
  options.declared = node.outputs;
  if (node.op == kConstOp && node.constant) {
    return std::vector<TensorType>{node.constant->type()};
  }
  return InferOutputTypes(node.op, ops, options);
}

}  // namespace egret
