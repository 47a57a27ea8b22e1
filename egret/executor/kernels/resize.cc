// Resize (nearest or bilinear) of the height and width of an NHWC tensor.
#include <algorithm>
#include <cmath>

#include "egret/executor/kernels/kernels_internal.h"
#include "egret/support/status_macros.h"

namespace egret::backend_internal {
namespace {

using Result = absl::StatusOr<std::vector<Tensor>>;

enum Transform : int64_t { kHalfPixel = 0, kAlignCorners = 1, kAsymmetric = 2, kPytorchHalf = 3 };
enum NearestMode : int64_t { kRoundPreferFloor = 0, kRoundPreferCeil = 1, kFloor = 2, kCeil = 3 };

// The input coordinate of output coordinate o.
double SourceCoord(int64_t o, int64_t in, int64_t out, int64_t transform) {
  const double scale = static_cast<double>(out) / static_cast<double>(in);
  switch (transform) {
    case kAlignCorners:
      return out == 1 ? 0.0 : static_cast<double>(o) * (in - 1) / (out - 1);
    case kAsymmetric:
      return static_cast<double>(o) / scale;
    case kPytorchHalf:
      return out == 1 ? 0.0 : (o + 0.5) / scale - 0.5;
    default:
      return (o + 0.5) / scale - 0.5;
  }
}

int64_t RoundNearest(double x, int64_t mode) {
  switch (mode) {
    case kRoundPreferCeil:
      return static_cast<int64_t>(x - std::floor(x) == 0.5 ? std::ceil(x) : std::round(x));
    case kFloor:
      return static_cast<int64_t>(std::floor(x));
    case kCeil:
      return static_cast<int64_t>(std::ceil(x));
    default:
      return static_cast<int64_t>(x - std::floor(x) == 0.5 ? std::floor(x) : std::round(x));
  }
}

Result Resize(const KernelContext& c) {
  int64_t mode = c.op == "ResizeBilinear" ? 1 : 0;
  int next = 2;
  if (c.op == "Resize") {
    EGRET_ASSIGN_OR_RETURN(auto m, ReadIntScalarParam(c.inputs[2], "Resize mode"));
    mode = m;
    next = 3;
  }
  int64_t transform = kHalfPixel, nearest = kRoundPreferFloor;
  if (c.Has(next)) {
    EGRET_ASSIGN_OR_RETURN(auto t, ReadIntScalarParam(c.inputs[next], "transform"));
    transform = t;
  }
  if (c.Has(next + 1)) {
    EGRET_ASSIGN_OR_RETURN(auto n, ReadIntScalarParam(c.inputs[next + 1], "nearest_mode"));
    nearest = n;
  }
  const Dims& xd = c.InDims(0);
  const Dims& od = c.outputs[0].dims;
  if (mode == 0) {
    std::vector<std::vector<int64_t>> map(4);
    for (int64_t i = 0; i < xd[0]; ++i) map[0].push_back(i);
    for (int64_t i = 0; i < xd[3]; ++i) map[3].push_back(i);
    for (int d = 1; d <= 2; ++d) {
      for (int64_t o = 0; o < od[d]; ++o) {
        int64_t i = RoundNearest(SourceCoord(o, xd[d], od[d], transform), nearest);
        map[d].push_back(std::clamp<int64_t>(i, 0, xd[d] - 1));
      }
    }
    std::vector<Tensor> result;
    result.push_back(GatherTensor(c.In(0), c.outputs[0], map));  // each an input element
    return result;
  }
  // Bilinear: per axis, the two neighbours and the weight of the second.
  struct Tap {
    int64_t i0, i1;
    double f;
  };
  std::vector<Tap> taps[2];
  for (int d = 0; d < 2; ++d) {
    const int64_t in = xd[d + 1];
    for (int64_t o = 0; o < od[d + 1]; ++o) {
      double s =
          std::clamp(SourceCoord(o, in, od[d + 1], transform), 0.0, static_cast<double>(in - 1));
      int64_t i0 = static_cast<int64_t>(std::floor(s));
      taps[d].push_back({i0, std::min(i0 + 1, in - 1), s - static_cast<double>(i0)});
    }
  }
  const int64_t ih = xd[1], iw = xd[2], ch = xd[3];
  // Output row (b, oy) of ow * ch values, each interpolated in double from
  // in[] (T: double, or float when the values are floats) and stored by
  // store(index, value).
  auto rows = [&](const auto* in, auto store) {
    const int64_t oh = od[1], row = od[2] * ch;
    ParallelFor(od[0] * oh, std::max<int64_t>(1, kElementwiseGrain / std::max<int64_t>(row, 1)),
                [&](int64_t first, int64_t last) {
                  for (int64_t r = first; r < last; ++r) {
                    const int64_t b = r / oh;
                    const Tap& ty = taps[0][r % oh];
                    int64_t o = r * row;
                    for (const Tap& tx : taps[1]) {
                      auto at = [&](int64_t y, int64_t xx, int64_t k) {
                        return static_cast<double>(in[((b * ih + y) * iw + xx) * ch + k]);
                      };
                      for (int64_t k = 0; k < ch; ++k) {
                        double top = at(ty.i0, tx.i0, k) * (1 - tx.f) + at(ty.i0, tx.i1, k) * tx.f;
                        double bot = at(ty.i1, tx.i0, k) * (1 - tx.f) + at(ty.i1, tx.i1, k) * tx.f;
                        store(o++, top * (1 - ty.f) + bot * ty.f);
                      }
                    }
                  }
                });
  };
  std::vector<Tensor> result;
  // Float32, Float16 and BFloat16, not Float64: those values are floats.
  auto floats = [](DType t) { return IsFloat(t) && t != DType::kFloat64; };
  if (floats(c.In(0).type().dtype) && floats(c.outputs[0].dtype)) {
    // The same arithmetic from the input's floats (exactly its values), each
    // result rounded to float once, as MakeTensor stores a double.
    const FloatsIn x(c.In(0));
    FloatsOut y(c.outputs[0]);
    float* out = y.data();
    rows(x.data(), [out](int64_t i, double v) { out[i] = static_cast<float>(v); });
    result.push_back(y.Finish());
    return result;
  }
  const std::vector<double> x = ReadReals(c.In(0));
  std::vector<double> out(static_cast<size_t>(c.outputs[0].num_elements()));
  double* dst = out.data();
  rows(x.data(), [dst](int64_t i, double v) { dst[i] = v; });
  result.push_back(MakeTensor(c.outputs[0], out));
  return result;
}

}  // namespace

void RegisterResizeKernels(KernelTable& t) {
  t.emplace("Resize", Resize);
  t.emplace("ResizeBilinear", Resize);
  t.emplace("ResizeNearestNeighbor", Resize);
}

}  // namespace egret::backend_internal
