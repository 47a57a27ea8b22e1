// Private to the onnx stage: the toolkit shared by the decompositions of
// ONNX Runtime's com.microsoft transformer ops (import_contrib.cc: the
// activations, normalizations and registration; import_contrib_attention.cc:
// RotaryEmbedding and the attentions). A decomposition is a sequence of
// steps, each a synthetic standard ONNX node run through its handler
// (Importer::RunSynthetic) or one of the importer's shared lowering steps,
// its temporaries named after the current node's first output.
#ifndef EGRET_ONNX_IMPORT_CONTRIB_INTERNAL_H_
#define EGRET_ONNX_IMPORT_CONTRIB_INTERNAL_H_

#include <deque>
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

#include "egret/onnx/importer_internal.h"

namespace egret::onnx_import::contrib {

inline onnx::AttributeProto IntAttr(const std::string& name, int64_t v) {
  onnx::AttributeProto a;
  a.set_name(name);
  a.set_type(onnx::AttributeProto::INT);
  a.set_i(v);
  return a;
}
inline onnx::AttributeProto IntsAttr(const std::string& name, const std::vector<int64_t>& v) {
  onnx::AttributeProto a;
  a.set_name(name);
  a.set_type(onnx::AttributeProto::INTS);
  for (int64_t x : v) a.add_ints(x);
  return a;
}
inline onnx::AttributeProto FloatAttr(const std::string& name, double v) {
  onnx::AttributeProto a;
  a.set_name(name);
  a.set_type(onnx::AttributeProto::FLOAT);
  a.set_f(static_cast<float>(v));
  return a;
}

// Builds one decomposition: temporaries named after the current node's first
// output, each step a synthetic ONNX node or a shared lowering step.
class Steps {
 public:
  explicit Steps(Importer& im) : im_(im), base_(im.Out()), label_(im.cur_->name()) {}

  Importer& im() { return im_; }
  const Dims& DimsOf(const std::string& name) const { return im_.values_.at(name).type.dims; }

  std::string Temp(std::string_view what) {
    return im_.Temp(base_, absl::StrCat(std::string(what), ".", next_++));
  }

  // op(inputs) -> out (a new temporary when empty); returns out.
  absl::StatusOr<std::string> Op(const std::string& op, const std::vector<std::string>& inputs,
                                 std::vector<onnx::AttributeProto> attrs = {},
                                 std::string out = "") {
    if (out.empty()) out = Temp(op);
    onnx::NodeProto& n = nodes_.emplace_back();
    n.set_op_type(op);
    n.set_name(label_.empty() ? std::string() : absl::StrCat(label_, "/", op));
    for (const auto& i : inputs) n.add_input(i);
    n.add_output(out);
    for (auto& a : attrs) *n.add_attribute() = std::move(a);
    EGRET_RETURN_IF_ERROR(im_.RunSynthetic(n));
    return out;
  }
  absl::StatusOr<std::string> Bin(std::string_view op, const std::string& a, const std::string& b,
                                  std::string out = "") {
    if (out.empty()) out = Temp(op);
    EGRET_RETURN_IF_ERROR(im_.Binary(op, a, b, out));
    return out;
  }
  absl::StatusOr<std::string> Un(std::string_view op, const std::string& a, std::string out = "") {
    if (out.empty()) out = Temp(op);
    EGRET_RETURN_IF_ERROR(im_.Unary(op, a, out));
    return out;
  }
  absl::StatusOr<std::string> Reshape(const std::string& a, const Dims& dims,
                                      std::string out = "") {
    if (out.empty()) out = Temp("Reshape");
    EGRET_RETURN_IF_ERROR(im_.ReshapeTo(a, dims, out));
    return out;
  }
  // a[..., from:to] along the last axis.
  absl::StatusOr<std::string> SliceLast(const std::string& a, int64_t from, int64_t to,
                                        std::string out = "") {
    if (out.empty()) out = Temp("Slice");
    const Dims d = DimsOf(a);
    std::vector<int64_t> begin(d.size(), 0), end(d.begin(), d.end()), stride(d.size(), 1);
    begin.back() = from;
    end.back() = to;
    EGRET_RETURN_IF_ERROR(im_.SliceTo(a, begin, end, stride, out));
    return out;
  }
  // a[from:to] along axis 0.
  absl::StatusOr<std::string> SliceFirst(const std::string& a, int64_t from, int64_t to) {
    std::string out = Temp("Slice");
    const Dims d = DimsOf(a);
    std::vector<int64_t> begin(d.size(), 0), end(d.begin(), d.end()), stride(d.size(), 1);
    begin[0] = from;
    end[0] = to;
    EGRET_RETURN_IF_ERROR(im_.SliceTo(a, begin, end, stride, out));
    return out;
  }
  absl::StatusOr<std::string> Transpose(const std::string& a, const std::vector<int64_t>& perm,
                                        std::string out = "") {
    return Op("Transpose", {a}, {IntsAttr("perm", perm)}, std::move(out));
  }
  absl::StatusOr<std::string> Concat(const std::vector<std::string>& parts, int64_t axis,
                                     std::string out = "") {
    if (parts.size() == 1 && out.empty()) return parts[0];
    return Op("Concat", parts, {IntAttr("axis", axis)}, std::move(out));
  }
  // ReduceMean or ReduceSum over `axes`, in the form of the model's opset.
  absl::StatusOr<std::string> Reduce(const std::string& op, const std::string& a,
                                     const std::vector<int64_t>& axes, bool keepdims) {
    const int axes_input_from = op == "ReduceSum" ? 13 : 18;
    if (im_.opset_ >= axes_input_from) {
      return Op(op, {a, Int64s(Dims{static_cast<int64_t>(axes.size())}, axes)},
                {IntAttr("keepdims", keepdims)});
    }
    return Op(op, {a}, {IntsAttr("axes", axes), IntAttr("keepdims", keepdims)});
  }

  // Constants, as temporaries.
  std::string Scalar(double v) { return Const(DType::kFloat32, Dims{}, {v}); }
  std::string Int64s(const Dims& dims, const std::vector<int64_t>& v) {
    return Const(DType::kInt64, dims, std::vector<double>(v.begin(), v.end()));
  }
  std::string Const(DType dt, const Dims& dims, const std::vector<double>& values) {
    std::string name = Temp("const");
    TensorType t;
    t.dtype = dt;
    t.dims = dims;
    im_.SetConst(name, Tensor::FromValues(t, values));
    return name;
  }

 private:
  Importer& im_;
  std::string base_;
  std::string label_;
  int next_ = 0;
  std::deque<onnx::NodeProto> nodes_;  // live while their handlers run
};

// Unmapped unless input i (when present) is a float32 tensor.
inline absl::Status RequireFloat32(Importer& im, std::initializer_list<int> inputs) {
  for (int i : inputs) {
    if (im.Has(i) && im.In(i).type.dtype != DType::kFloat32) {
      return Unmapped(absl::StrCat("input ", i, " is ", std::string(DTypeName(im.In(i).type.dtype)),
                                   "; only float32 is decomposed"));
    }
  }
  return absl::OkStatus();
}

// Unmapped when output k is used (an output the decomposition does not make).
inline absl::Status RequireUnused(Importer& im, int k, std::string_view what) {
  if (im.OutputUsed(k)) return Unmapped(absl::StrCat("its ", std::string(what), " output is used"));
  return absl::OkStatus();
}

// The handlers of import_contrib_attention.cc, for the current node.
absl::Status DoRotaryEmbedding(Importer& im);
absl::Status DoAttention(Importer& im);
absl::Status DoMultiHeadAttention(Importer& im);
absl::Status DoGroupQueryAttention(Importer& im);

}  // namespace egret::onnx_import::contrib

#endif  // EGRET_ONNX_IMPORT_CONTRIB_INTERNAL_H_
