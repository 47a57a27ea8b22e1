// ONNX Runtime's com.microsoft transformer ops (docs/onnx-import.md), the
// ones its transformer optimizer and ONNX Runtime GenAI write, decomposed
// into standard ONNX ops (import_contrib_internal.h) so that egret's
// reference kernels, costs and rules apply to the parts. This file: FastGelu,
// BiasGelu, Gelu, QuickGelu, BiasAdd; SkipLayerNormalization,
// SkipSimplifiedLayerNormalization, SimplifiedLayerNormalization (also in the
// default domain, where ONNX Runtime registers it), EmbedLayerNormalization;
// and the registration of every one (RotaryEmbedding and the attentions are
// import_contrib_attention.cc's). RMS normalization is written
// Mul/ReduceMean/Add/Sqrt/Div/Mul, the spelling the rule library recognizes.
//
// float16 and bfloat16 nodes are decomposed in float32 between Casts (as
// ONNX Runtime computes them); other element types stay opaque. A form a
// decomposition does not cover (a mask format, shared KV buffers, a smooth
// softmax, ...) returns Unmapped with the reason, so that the node stays opaque,
// typed as ONNX Runtime would type it, rather than computing anything other
// than what ONNX Runtime computes.
#include "absl/strings/match.h"
#include "egret/onnx/import_contrib_internal.h"

namespace egret::onnx_import {
namespace contrib {
namespace {

// ---- activations

// 0.5 * x * (1 + tanh(sqrt(2/pi) * (x + 0.044715 * x^3))) of `x` into `out`.
absl::Status TanhGelu(Steps& s, const std::string& x, const std::string& out) {
  EGRET_ASSIGN_OR_RETURN(auto x2, s.Bin("Mul", x, x));
  EGRET_ASSIGN_OR_RETURN(auto x3, s.Bin("Mul", x2, x));
  EGRET_ASSIGN_OR_RETURN(auto c3, s.Bin("Mul", x3, s.Scalar(0.044715)));
  EGRET_ASSIGN_OR_RETURN(auto inner, s.Bin("Add", x, c3));
  EGRET_ASSIGN_OR_RETURN(auto scaled, s.Bin("Mul", inner, s.Scalar(0.7978845608028654)));
  EGRET_ASSIGN_OR_RETURN(auto t, s.Un("Tanh", scaled));
  EGRET_ASSIGN_OR_RETURN(auto one_plus, s.Bin("Add", t, s.Scalar(1.0)));
  EGRET_ASSIGN_OR_RETURN(auto xt, s.Bin("Mul", x, one_plus));
  return s.Bin("Mul", xt, s.Scalar(0.5), out).status();
}

// x, plus input 1 (a bias) when present.
absl::StatusOr<std::string> WithBias(Steps& s, Importer& im) {
  if (!im.Has(1)) return im.InName(0);
  return s.Bin("Add", im.InName(0), im.InName(1));
}

absl::Status DoFastGelu(Importer& im) {
  EGRET_RETURN_IF_ERROR(RequireFloat32(im, {0, 1}));
  Steps s(im);
  EGRET_ASSIGN_OR_RETURN(auto x, WithBias(s, im));
  return TanhGelu(s, x, im.Out());
}

absl::Status DoErfGelu(Importer& im) {  // Gelu and BiasGelu
  EGRET_RETURN_IF_ERROR(RequireFloat32(im, {0, 1}));
  Steps s(im);
  EGRET_ASSIGN_OR_RETURN(auto x, WithBias(s, im));
  return s.Op("Gelu", {x}, {}, im.Out()).status();
}

absl::Status DoQuickGelu(Importer& im) {
  EGRET_RETURN_IF_ERROR(RequireFloat32(im, {0}));
  Steps s(im);
  const double alpha = im.AttrFloat("alpha", 1.702);
  std::string ax = im.InName(0);
  if (alpha != 1.0) {
    EGRET_ASSIGN_OR_RETURN(ax, s.Bin("Mul", ax, s.Scalar(alpha)));
  }
  EGRET_ASSIGN_OR_RETURN(auto sig, s.Un("Sigmoid", ax));
  return s.Bin("Mul", im.InName(0), sig, im.Out()).status();
}

absl::Status DoBiasAdd(Importer& im) {
  EGRET_RETURN_IF_ERROR(RequireFloat32(im, {0, 1, 2}));
  if (!im.Has(1) || !im.Has(2)) return absl::InvalidArgumentError("bias and skip are required");
  Steps s(im);
  EGRET_ASSIGN_OR_RETURN(auto xb, s.Bin("Add", im.InName(0), im.InName(1)));
  return s.Bin("Add", xb, im.InName(2), im.Out()).status();
}

// ---- normalizations

// x / sqrt(mean(x^2 over axes axis..rank-1) + eps) * scale into `out`.
absl::Status RmsNorm(Steps& s, const std::string& x, const std::string& scale, int64_t axis,
                     double eps, const std::string& out) {
  const int rank = static_cast<int>(s.DimsOf(x).size());
  EGRET_ASSIGN_OR_RETURN(int a, NormalizeAxis(axis, rank, "axis"));
  std::vector<int64_t> axes;
  for (int i = a; i < rank; ++i) axes.push_back(i);
  EGRET_ASSIGN_OR_RETURN(auto sq, s.Bin("Mul", x, x));
  EGRET_ASSIGN_OR_RETURN(auto ms, s.Reduce("ReduceMean", sq, axes, true));
  EGRET_ASSIGN_OR_RETURN(auto mse, s.Bin("Add", ms, s.Scalar(eps)));
  EGRET_ASSIGN_OR_RETURN(auto rms, s.Un("Sqrt", mse));
  EGRET_ASSIGN_OR_RETURN(auto n, s.Bin("Div", x, rms));
  return s.Bin("Mul", n, scale, out).status();
}

absl::Status DoSimplifiedLayerNorm(Importer& im) {
  EGRET_RETURN_IF_ERROR(RequireFloat32(im, {0, 1}));
  EGRET_RETURN_IF_ERROR(RequireUnused(im, 1, "inv_std_var"));
  if (!im.Has(1)) return absl::InvalidArgumentError("scale is missing");
  Steps s(im);
  return RmsNorm(s, im.InName(0), im.InName(1), im.AttrInt("axis", -1),
                 im.AttrFloat("epsilon", 1e-5), im.Out());
}

// input + skip (+ bias): output 3 when used, else a temporary.
absl::StatusOr<std::string> SkipSum(Steps& s, Importer& im, int bias_input) {
  const bool named = im.OutputUsed(3);
  EGRET_ASSIGN_OR_RETURN(auto sum, s.Bin("Add", im.InName(0), im.InName(1),
                                         named && !im.Has(bias_input) ? im.Out(3) : ""));
  if (im.Has(bias_input)) {
    EGRET_ASSIGN_OR_RETURN(sum, s.Bin("Add", sum, im.InName(bias_input), named ? im.Out(3) : ""));
  }
  return sum;
}

absl::Status DoSkipLayerNorm(Importer& im) {  // and SkipSimplifiedLayerNormalization
  const bool simplified = im.cur_->op_type() == "SkipSimplifiedLayerNormalization";
  const int bias_input = simplified ? 3 : 4;
  EGRET_RETURN_IF_ERROR(RequireFloat32(im, {0, 1, 2, 3, 4}));
  EGRET_RETURN_IF_ERROR(RequireUnused(im, 1, "mean"));
  EGRET_RETURN_IF_ERROR(RequireUnused(im, 2, "inv_std_var"));
  if (!im.Has(1) || !im.Has(2)) return absl::InvalidArgumentError("skip and gamma are required");
  Steps s(im);
  EGRET_ASSIGN_OR_RETURN(auto sum, SkipSum(s, im, bias_input));
  const double eps = im.AttrFloat("epsilon", 1e-12);
  if (simplified) return RmsNorm(s, sum, im.InName(2), -1, eps, im.Out());
  std::vector<std::string> in = {sum, im.InName(2)};
  if (im.Has(3)) in.push_back(im.InName(3));
  return s.Op("LayerNormalization", in, {IntAttr("axis", -1), FloatAttr("epsilon", eps)}, im.Out())
      .status();
}

absl::Status DoEmbedLayerNorm(Importer& im) {
  EGRET_RETURN_IF_ERROR(RequireFloat32(im, {2, 3, 4, 5, 6}));
  for (int i : {0, 2, 3, 5, 6}) {
    if (!im.Has(i)) return absl::InvalidArgumentError(absl::StrCat("input ", i, " is required"));
  }
  const Dims ids = im.In(0).type.dims;
  if (ids.size() != 2) return Unmapped("input_ids is not 2-D");
  Steps s(im);
  EGRET_ASSIGN_OR_RETURN(auto word, s.Op("Gather", {im.InName(2), im.InName(0)}));
  std::string pos;
  if (im.Has(8)) {
    EGRET_ASSIGN_OR_RETURN(pos, s.Op("Gather", {im.InName(3), im.InName(8)}));
  } else {
    std::vector<int64_t> seq(static_cast<size_t>(ids[1]));
    for (size_t i = 0; i < seq.size(); ++i) seq[i] = static_cast<int64_t>(i);
    EGRET_ASSIGN_OR_RETURN(pos, s.Op("Gather", {im.InName(3), s.Int64s(Dims{ids[1]}, seq)}));
  }
  const bool segments = im.Has(1) && im.Has(4);
  EGRET_ASSIGN_OR_RETURN(auto sum, s.Bin("Add", word, pos,
                                         segments           ? ""
                                         : im.OutputUsed(2) ? im.Out(2)
                                                            : ""));
  if (segments) {
    EGRET_ASSIGN_OR_RETURN(auto seg, s.Op("Gather", {im.InName(4), im.InName(1)}));
    EGRET_ASSIGN_OR_RETURN(sum, s.Bin("Add", sum, seg, im.OutputUsed(2) ? im.Out(2) : ""));
  }
  EGRET_RETURN_IF_ERROR(
      s.Op("LayerNormalization", {sum, im.InName(5), im.InName(6)},
           {IntAttr("axis", -1), FloatAttr("epsilon", im.AttrFloat("epsilon", 1e-12))}, im.Out())
          .status());
  if (im.OutputUsed(1)) {  // the count of mask entries equal to 1, per batch row
    if (!im.Has(7)) {
      im.SetConst(im.Out(1), Tensor(TensorType(DType::kInt32, Dims{ids[0]})));
    } else {
      EGRET_ASSIGN_OR_RETURN(
          auto mf, s.Op("Cast", {im.InName(7)}, {IntAttr("to", onnx::TensorProto::FLOAT)}));
      EGRET_ASSIGN_OR_RETURN(auto ones, s.Op("Equal", {mf, s.Scalar(1.0)}));
      EGRET_ASSIGN_OR_RETURN(auto onef,
                             s.Op("Cast", {ones}, {IntAttr("to", onnx::TensorProto::FLOAT)}));
      EGRET_ASSIGN_OR_RETURN(auto count, s.Reduce("ReduceSum", onef, {1}, false));
      EGRET_RETURN_IF_ERROR(
          s.Op("Cast", {count}, {IntAttr("to", onnx::TensorProto::INT32)}, im.Out(1)).status());
    }
  }
  return absl::OkStatus();
}

// ---- output types of a node left opaque

// Output k's type as ONNX Runtime's shape inference gives it, where the
// inputs' dims give it (ONNX's own shape inference knows no com.microsoft
// op): an Unmapped form stays an opaque node instead of failing the import.
std::optional<TensorType> ContribOutputType(Importer& im, int k) {
  const std::string& op = im.cur_->op_type();
  if (!im.Has(0)) return std::nullopt;
  const TensorType x = im.In(0).type;
  auto with_dims = [&](Dims d) {
    TensorType t = x;
    t.dims = std::move(d);
    return t;
  };
  if (op == "Attention" || op == "MultiHeadAttention" || op == "GroupQueryAttention") {
    if (x.rank() != 3) return std::nullopt;
    const int64_t n = im.AttrInt("num_heads", 0);
    if (n <= 0) return std::nullopt;
    if (op == "Attention") {
      if (!im.Has(1) || im.In(1).type.rank() != 2) return std::nullopt;
      int64_t hq = im.In(1).type.dims[1] / 3, hv = hq;
      if (auto sizes = im.AttrInts("qkv_hidden_sizes"); sizes && sizes->size() == 3) {
        hq = (*sizes)[0], hv = (*sizes)[2];
      }
      if (k == 0) return with_dims({x.dims[0], x.dims[1], hv});
      if (k == 1 && im.Has(4) && im.In(4).type.rank() == 5 && !im.Has(6)) {
        const Dims p = im.In(4).type.dims;
        return with_dims({2, x.dims[0], n, p[3] + x.dims[1], hq / n});
      }
      return std::nullopt;
    }
    if (op == "MultiHeadAttention") {
      if (!im.Has(1) || !im.Has(2)) return std::nullopt;
      const Dims kd = im.In(1).type.dims;
      const Dims v = im.In(2).type.dims;
      if (k == 0) {
        if (v.size() == 3) return with_dims({x.dims[0], x.dims[1], v[2]});
        if (v.size() == 4) return with_dims({x.dims[0], x.dims[1], v[1] * v[3]});
        return std::nullopt;
      }
      // present_key/present_value: the past's buffer when shared, else past ++ new.
      const int past = k == 1 ? 6 : 7;
      const Dims& cur = k == 1 ? kd : v;
      if (k > 2 || cur.size() != 3 || cur[2] % n != 0) return std::nullopt;
      int64_t len = cur[1];
      if (im.Has(past) && im.In(past).type.rank() == 4) {
        len = im.Has(8) ? im.In(past).type.dims[2] : im.In(past).type.dims[2] + cur[1];
      }
      return with_dims({x.dims[0], n, len, cur[2] / n});
    }
    const int64_t nk = im.AttrInt("kv_num_heads", 0);
    if (nk <= 0 || x.dims[2] <= 0) return std::nullopt;
    const int64_t h = im.Has(1) ? x.dims[2] / n : x.dims[2] / (n + 2 * nk);
    if (k == 0) return with_dims({x.dims[0], x.dims[1], n * h});
    if (k == 1 || k == 2) {  // [B, Nk, max(total, past), h]
      int64_t past = 0;
      if (im.Has(3) && im.In(3).type.rank() == 4) past = im.In(3).type.dims[2];
      int64_t total = past + x.dims[1];
      if (im.Has(6) && im.In(6).constant && im.In(6).constant->num_elements() == 1) {
        total = static_cast<int64_t>(im.In(6).constant->GetValue(0));
      }
      return with_dims({x.dims[0], nk, std::max(total, past), h});
    }
    return std::nullopt;
  }
  if (op == "EmbedLayerNormalization") {
    if (x.rank() != 2 || !im.Has(2) || im.In(2).type.rank() != 2) return std::nullopt;
    TensorType t = im.In(2).type;
    t.dims = {x.dims[0], x.dims[1], t.dims[1]};
    if (k == 0 || k == 2) return t;
    if (k == 1) {
      TensorType m = ScalarType(DType::kInt32);
      m.dims.push_back(x.dims[0]);
      return m;
    }
    return std::nullopt;
  }
  if (k == 0 || (k == 3 && absl::StartsWith(op, "Skip"))) return x;
  return std::nullopt;
}

// Runs `handler` on the current node. A node with float16 or bfloat16
// operands runs on float32 copies of them (Cast), its float outputs cast
// back, as ONNX Runtime's kernels compute these ops in float32.
absl::Status InFloat32(Importer& im, absl::Status (*handler)(Importer&)) {
  const onnx::NodeProto& node = *im.cur_;
  std::optional<DType> half;
  for (int i = 0; i < node.input_size(); ++i) {
    if (!im.Has(i)) continue;
    const DType dt = im.In(i).type.dtype;
    if (dt == DType::kFloat16 || dt == DType::kBFloat16) half = dt;
  }
  if (!half) return handler(im);
  Steps s(im);
  onnx::NodeProto copy = node;
  for (int i = 0; i < node.input_size(); ++i) {
    if (!im.Has(i) || im.In(i).type.dtype != *half) continue;
    EGRET_ASSIGN_OR_RETURN(
        auto f, s.Op("Cast", {node.input(i)}, {IntAttr("to", onnx::TensorProto::FLOAT)}));
    copy.set_input(i, f);
  }
  for (int k = 0; k < node.output_size(); ++k) {
    if (node.output(k).empty()) continue;
    copy.set_output(k, s.Temp("float32"));
    if (im.consumed_.contains(node.output(k))) im.consumed_.insert(copy.output(k));
  }
  im.cur_ = &copy;
  absl::Status st = handler(im);
  im.cur_ = &node;
  EGRET_RETURN_IF_ERROR(st);
  const int64_t to =
      *half == DType::kFloat16 ? onnx::TensorProto::FLOAT16 : onnx::TensorProto::BFLOAT16;
  for (int k = 0; k < node.output_size(); ++k) {
    if (node.output(k).empty() || !im.values_.contains(copy.output(k))) continue;
    if (im.values_.at(copy.output(k)).type.dtype == DType::kFloat32) {
      EGRET_RETURN_IF_ERROR(
          s.Op("Cast", {copy.output(k)}, {IntAttr("to", to)}, node.output(k)).status());
    } else {
      im.Alias(node.output(k), copy.output(k));
    }
  }
  return absl::OkStatus();
}

// Runs `handler` (InFloat32); when it leaves the node Unmapped, declares the
// output types ContribOutputType knows that the model does not declare.
template <absl::Status (*handler)(Importer&)>
absl::Status Typed(Importer& im) {
  absl::Status s = InFloat32(im, handler);
  if (!IsUnmapped(s)) return s;
  for (int k = 0; k < im.cur_->output_size(); ++k) {
    if (im.Out(k).empty() || im.HasStaticDeclaredType(im.Out(k))) continue;
    if (std::optional<TensorType> t = ContribOutputType(im, k)) im.DeclareType(im.Out(k), *t);
  }
  return s;
}

}  // namespace
}  // namespace contrib

void RegisterContribHandlers(HandlerTable& t) {
  const std::string ms = "com.microsoft.";
  t[ms + "FastGelu"] = contrib::Typed<contrib::DoFastGelu>;
  t[ms + "BiasGelu"] = contrib::Typed<contrib::DoErfGelu>;
  t[ms + "Gelu"] = contrib::Typed<contrib::DoErfGelu>;
  t[ms + "QuickGelu"] = contrib::Typed<contrib::DoQuickGelu>;
  t[ms + "BiasAdd"] = contrib::Typed<contrib::DoBiasAdd>;
  t[ms + "SkipLayerNormalization"] = contrib::Typed<contrib::DoSkipLayerNorm>;
  t[ms + "SkipSimplifiedLayerNormalization"] = contrib::Typed<contrib::DoSkipLayerNorm>;
  t[ms + "SimplifiedLayerNormalization"] = contrib::Typed<contrib::DoSimplifiedLayerNorm>;
  t["SimplifiedLayerNormalization"] =
      contrib::Typed<contrib::DoSimplifiedLayerNorm>;  // ONNX Runtime's default domain
  t[ms + "EmbedLayerNormalization"] = contrib::Typed<contrib::DoEmbedLayerNorm>;
  t[ms + "RotaryEmbedding"] = contrib::Typed<contrib::DoRotaryEmbedding>;
  t[ms + "Attention"] = contrib::Typed<contrib::DoAttention>;
  t[ms + "MultiHeadAttention"] = contrib::Typed<contrib::DoMultiHeadAttention>;
  t[ms + "GroupQueryAttention"] = contrib::Typed<contrib::DoGroupQueryAttention>;
}

}  // namespace egret::onnx_import
