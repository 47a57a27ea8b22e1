// ONNX tensor ops egret keeps opaque: the layout shuffles DepthToSpace and
// SpaceToDepth (NCHW), ops producing a tensor like their input (EyeLike,
// CastLike, Dropout) and Det.
#include <cmath>
#include <string>
#include <utility>

#include "absl/strings/str_format.h"
#include "egret/executor/kernels/onnx/onnx_kernels_internal.h"
#include "egret/support/status_macros.h"

namespace egret::backend_internal {
namespace {

using Result = absl::StatusOr<std::vector<Tensor>>;

struct Nchw {
  int64_t n, c, h, w;
};

absl::StatusOr<Nchw> Rank4(const KernelContext& c) {
  const Dims& d = c.InDims(0);
  if (d.size() != 4) return KernelError(c, "input must be rank 4 (NCHW)");
  return Nchw{d[0], d[1], d[2], d[3]};
}

absl::StatusOr<int64_t> BlockSize(const KernelContext& c) {
  const int64_t b = OnnxArgs(c).Int("blocksize", 0);
  if (b < 1) return KernelError(c, "blocksize must be positive");
  return b;
}

// DepthToSpace: [N, C, H, W] -> [N, C/b^2, H*b, W*b]. Output pixel (h*b+i,
// w*b+j) of channel c comes from input channel (i*b+j)*C/b^2 + c in DCR mode
// (depth, column, row: the default) or c*b^2 + i*b+j in CRD mode.
Result DepthToSpace(const KernelContext& c) {
  EGRET_RETURN_IF_ERROR(NeedInputs(c, 1));
  EGRET_ASSIGN_OR_RETURN(Nchw s, Rank4(c));
  EGRET_ASSIGN_OR_RETURN(int64_t b, BlockSize(c));
  const std::string mode = OnnxArgs(c).Str("mode", "DCR");
  if (mode != "DCR" && mode != "CRD") {
    return KernelError(c, absl::StrFormat("mode must be DCR or CRD, not '%s'", mode));
  }
  if (s.c % (b * b) != 0) return KernelError(c, "channels must be a multiple of blocksize^2");
  const int64_t oc = s.c / (b * b), oh = s.h * b, ow = s.w * b;
  const std::vector<double> v = ReadReals(c.In(0));
  std::vector<double> out(v.size());
  size_t e = 0;
  for (int64_t n = 0; n < s.n; ++n) {
    for (int64_t ch = 0; ch < oc; ++ch) {
      for (int64_t y = 0; y < oh; ++y) {
        for (int64_t x = 0; x < ow; ++x) {
          const int64_t i = y % b, j = x % b;
          const int64_t src_c = mode == "DCR" ? (i * b + j) * oc + ch : ch * b * b + i * b + j;
          out[e++] = v[((n * s.c + src_c) * s.h + y / b) * s.w + x / b];
        }
      }
    }
  }
  return OnnxResult(c, out);
}

// SpaceToDepth: [N, C, H, W] -> [N, C*b^2, H/b, W/b], the inverse of
// DepthToSpace in DCR mode.
Result SpaceToDepth(const KernelContext& c) {
  EGRET_RETURN_IF_ERROR(NeedInputs(c, 1));
  EGRET_ASSIGN_OR_RETURN(Nchw s, Rank4(c));
  EGRET_ASSIGN_OR_RETURN(int64_t b, BlockSize(c));
  if (s.h % b != 0 || s.w % b != 0) return KernelError(c, "H and W must be multiples of blocksize");
  const int64_t oc = s.c * b * b, oh = s.h / b, ow = s.w / b;
  const std::vector<double> v = ReadReals(c.In(0));
  std::vector<double> out(v.size());
  size_t e = 0;
  for (int64_t n = 0; n < s.n; ++n) {
    for (int64_t ch = 0; ch < oc; ++ch) {
      const int64_t i = ch / s.c / b, j = ch / s.c % b, src_c = ch % s.c;
      for (int64_t y = 0; y < oh; ++y) {
        for (int64_t x = 0; x < ow; ++x) {
          out[e++] = v[((n * s.c + src_c) * s.h + y * b + i) * s.w + x * b + j];
        }
      }
    }
  }
  return OnnxResult(c, out);
}

// EyeLike: a matrix of the input's dims (the output's type, which the dtype
// attribute may change) with ones on diagonal k (column - row = k).
Result EyeLike(const KernelContext& c) {
  EGRET_RETURN_IF_ERROR(NeedInputs(c, 1));
  const Dims& d = c.InDims(0);
  if (d.size() != 2) return KernelError(c, "input must be rank 2");
  const int64_t k = OnnxArgs(c).Int("k", 0);
  std::vector<double> out(static_cast<size_t>(d[0] * d[1]), 0.0);
  for (int64_t i = 0; i < d[0]; ++i) {
    const int64_t j = i + k;
    if (j >= 0 && j < d[1]) out[i * d[1] + j] = 1.0;
  }
  return OnnxResult(c, out);
}

// Det: the determinant of each square matrix of [..., M, M], by Gaussian
// elimination with partial pivoting.
Result Det(const KernelContext& c) {
  EGRET_RETURN_IF_ERROR(NeedInputs(c, 1));
  const Dims& d = c.InDims(0);
  const size_t r = d.size();
  if (r < 2 || d[r - 1] != d[r - 2]) return KernelError(c, "input must be [..., M, M]");
  const int64_t m = d[r - 1];
  std::vector<double> v = ReadReals(c.In(0));
  const int64_t count = m == 0 ? 1 : static_cast<int64_t>(v.size()) / (m * m);
  std::vector<double> out(static_cast<size_t>(count));
  for (int64_t b = 0; b < count; ++b) {
    double* a = v.data() + b * m * m;
    double det = 1.0;
    for (int64_t col = 0; col < m && det != 0.0; ++col) {
      int64_t pivot = col;
      for (int64_t row = col + 1; row < m; ++row) {
        if (std::abs(a[row * m + col]) > std::abs(a[pivot * m + col])) pivot = row;
      }
      if (a[pivot * m + col] == 0.0) {
        det = 0.0;
        break;
      }
      if (pivot != col) {
        for (int64_t k = 0; k < m; ++k) std::swap(a[pivot * m + k], a[col * m + k]);
        det = -det;
      }
      det *= a[col * m + col];
      for (int64_t row = col + 1; row < m; ++row) {
        const double f = a[row * m + col] / a[col * m + col];
        for (int64_t k = col; k < m; ++k) a[row * m + k] -= f * a[col * m + k];
      }
    }
    out[b] = det;
  }
  return OnnxResult(c, out);
}

// CastLike: input 0 converted to the element type of input 1 (the declared
// output type): to an integer type truncating toward zero, to Bool "not
// zero"; to or from String as CastStrings converts.
Result CastLike(const KernelContext& c) {
  EGRET_RETURN_IF_ERROR(NeedInputs(c, 1));
  if (IsString(c.In(0).type().dtype) || IsString(c.outputs[0].dtype)) return CastStrings(c);
  return OnnxResult(c, ReadReals(c.In(0)));
}

// Dropout: at inference (the default) the output is the input and the mask
// all true. In training mode (input 2, or is_test = 0 before opset 7) each
// element is kept with probability 1 - ratio, where uniform draw i of the
// node (RandomKey, onnx_random.cc) is >= ratio, and scaled by 1 / (1 -
// ratio); the mask says which were kept. Ratio 0 keeps everything.
Result Dropout(const KernelContext& c) {
  EGRET_RETURN_IF_ERROR(NeedInputs(c, 1));
  const OnnxArgs args(c);
  bool training = args.Int("is_test", 1) == 0;
  double ratio = args.Float("ratio", 0.5);
  if (const Tensor* t = args.Input(2)) {
    if (t->num_elements() != 1) return KernelError(c, "training_mode must hold one value");
    training = ReadReals(*t)[0] != 0.0;
  }
  if (const Tensor* t = args.Input(1)) {
    if (t->num_elements() != 1) return KernelError(c, "ratio must hold one value");
    ratio = ReadReals(*t)[0];
  }
  std::vector<double> v = ReadReals(c.In(0));
  std::vector<double> mask(v.size(), 1.0);
  if (training && ratio != 0.0) {
    if (!(ratio > 0.0 && ratio < 1.0)) {
      return KernelError(c, absl::StrFormat("ratio %g is outside [0, 1)", ratio));
    }
    const uint64_t key = RandomKey(c);
    const double scale = 1.0 / (1.0 - ratio);
    for (size_t i = 0; i < v.size(); ++i) {
      const bool keep = RandomUniform01(key, i) >= ratio;
      mask[i] = keep ? 1.0 : 0.0;
      v[i] = keep ? v[i] * scale : 0.0;
    }
  }
  std::vector<Tensor> out;
  out.push_back(MakeOnnxTensor(c.outputs[0], v));
  if (c.outputs.size() > 1) {
    EGRET_RETURN_IF_ERROR(CheckOutputCount(c, 1, static_cast<int64_t>(v.size())));
    out.push_back(MakeOnnxTensor(c.outputs[1], mask));
  }
  return out;
}

}  // namespace

void RegisterOnnxTensorKernels(KernelTable& t) {
  t.emplace("onnx.DepthToSpace", DepthToSpace);
  t.emplace("onnx.SpaceToDepth", SpaceToDepth);
  t.emplace("onnx.EyeLike", EyeLike);
  t.emplace("onnx.Det", Det);
  t.emplace("onnx.CastLike", CastLike);
  t.emplace("onnx.Dropout", Dropout);
}

}  // namespace egret::backend_internal
