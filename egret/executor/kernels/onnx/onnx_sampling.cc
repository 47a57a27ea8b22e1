// ONNX ops that sample an input at computed real coordinates: Resize (every
// mode, coordinate transformation, antialias, axes and aspect-ratio policy),
// Upsample (and opset 10's Resize) and GridSample (any spatial rank).
//
// Both interpolate with the same 1-D kernels over the neighbours of a real
// coordinate x: nearest (one tap), linear (two) and cubic (four, Keys'
// kernel with parameter A). Resize, being separable, resizes one axis at a
// time; GridSample takes the tensor product of the per-dim taps.
#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_format.h"
#include "egret/executor/kernels/onnx/onnx_kernels_internal.h"
#include "egret/support/status_macros.h"

namespace egret::backend_internal {
namespace {

using Result = absl::StatusOr<std::vector<Tensor>>;

// Keys' cubic convolution kernel at distance |s|, parameter A.
double CubicKernel(double s, double a) {
  s = std::abs(s);
  if (s <= 1) return ((a + 2) * s - (a + 3)) * s * s + 1;
  if (s < 2) return ((a * s - 5 * a) * s + 8 * a) * s - 4 * a;
  return 0.0;
}

// ---------------------------------------------------------------------------
// Resize.
//
// Output index y of an axis maps to the input coordinate x by the
// coordinate_transformation_mode, with scale the axis' scale factor and
// "width" = scale * in (a real number, as ONNX's reference computes it):
//   half_pixel            (y + 0.5) / scale - 0.5
//   half_pixel_symmetric  the same, shifted so the input and output centres
//                         meet when out != width
//   pytorch_half_pixel    as half_pixel, but 0 when out is 1
//   align_corners         y * (in - 1) / (width - 1), 0 when width is 1
//                         (ONNX's test data use the real width here)
//   asymmetric            y / scale
//   tf_half_pixel_for_nn  (y + 0.5) / scale
//   tf_crop_and_resize    roi_start * (in - 1) + y * (roi_end - roi_start) *
//                         (in - 1) / (width - 1); outside [0, in - 1] the
//                         output is extrapolation_value
// The taps of x are the n integer positions nearest to it (the left one
// preferred), their weights the kernel's coefficients at ratio = x -
// floor(x), taken in (0, 1]. Positions outside the input read the edge
// value, or get weight 0 (and the rest renormalized) with exclude_outside.
// With antialias and scale < 1, linear and cubic kernels are stretched by
// 1 / scale (more taps, normalized).

struct ResizeSpec {
  enum class Mode { kNearest, kLinear, kCubic } mode = Mode::kNearest;
  std::string transform = "half_pixel";
  std::string nearest_mode = "round_prefer_floor";
  double cubic_a = -0.75;
  bool exclude_outside = false;
  bool antialias = false;
  double extrapolation = 0;
};

// The kernel coefficients for a coordinate with fractional part `ratio` in
// (0, 1]; coefficient i applies to position floor-ish(x) - n/2 + 1 + i.
std::vector<double> ResizeCoeffs(const ResizeSpec& s, double ratio, bool integer, double scale) {
  using Mode = ResizeSpec::Mode;
  switch (s.mode) {
    case Mode::kNearest: {
      if (integer) return {0.0, 1.0};
      bool right = false;
      if (s.nearest_mode == "round_prefer_ceil") {
        right = ratio >= 0.5;
      } else if (s.nearest_mode == "floor") {
        right = false;
      } else if (s.nearest_mode == "ceil") {
        right = true;
      } else {  // round_prefer_floor
        right = ratio > 0.5;
      }
      return {right ? 0.0 : 1.0, right ? 1.0 : 0.0};
    }
    case Mode::kLinear: {
      if (!s.antialias) return {1.0 - ratio, ratio};
      const double sc = std::min(scale, 1.0);
      const int64_t start = static_cast<int64_t>(std::floor(-1.0 / sc) + 1);
      const int64_t n = 2 - 2 * start;
      std::vector<double> k(static_cast<size_t>(n));
      double sum = 0;
      for (int64_t i = 0; i < n; ++i) {
        k[i] = std::clamp(1.0 - std::abs((start + i - ratio) * sc), 0.0, 1.0);
        sum += k[i];
      }
      for (double& v : k) v /= sum;
      return k;
    }
    case Mode::kCubic: {
      if (!s.antialias) {
        return {CubicKernel(ratio + 1, s.cubic_a), CubicKernel(ratio, s.cubic_a),
                CubicKernel(1 - ratio, s.cubic_a), CubicKernel(2 - ratio, s.cubic_a)};
      }
      const double sc = std::min(scale, 1.0);
      const int64_t start = static_cast<int64_t>(std::floor(-2.0 / sc) + 1);
      const int64_t n = 2 - 2 * start;
      std::vector<double> k(static_cast<size_t>(n));
      double sum = 0;
      for (int64_t i = 0; i < n; ++i) {
        k[i] = CubicKernel(sc * (start + i - ratio), s.cubic_a);
        sum += k[i];
      }
      for (double& v : k) v /= sum;
      return k;
    }
  }
  return {};
}

// Resizes axis `axis` of `in` (dims `dims`) to `out_len`; returns the new
// values and updates dims.
absl::StatusOr<std::vector<double>> ResizeAxis(const KernelContext& c, const ResizeSpec& s,
                                               const std::vector<double>& in, Dims& dims, int axis,
                                               int64_t out_len, double scale, double roi_start,
                                               double roi_end) {
  const int64_t in_len = dims[axis];
  int64_t outer = 1, inner = 1;
  for (int d = 0; d < axis; ++d) outer *= dims[d];
  for (int d = axis + 1; d < static_cast<int>(dims.size()); ++d) inner *= dims[d];
  std::vector<double> out(static_cast<size_t>(outer * out_len * inner));
  const double width = scale * static_cast<double>(in_len);
  for (int64_t y = 0; y < out_len; ++y) {
    const double yd = static_cast<double>(y);
    double x = 0;
    bool extrapolate = false;
    const std::string& m = s.transform;
    if (m == "half_pixel") {
      x = (yd + 0.5) / scale - 0.5;
    } else if (m == "half_pixel_symmetric") {
      const double adjustment = static_cast<double>(out_len) / width;
      const double offset = static_cast<double>(in_len) / 2.0 * (1.0 - adjustment);
      x = offset + (yd + 0.5) / scale - 0.5;
    } else if (m == "pytorch_half_pixel") {
      x = out_len > 1 ? (yd + 0.5) / scale - 0.5 : 0.0;
    } else if (m == "align_corners") {
      x = width == 1.0 ? 0.0 : yd * static_cast<double>(in_len - 1) / (width - 1.0);
    } else if (m == "asymmetric") {
      x = yd / scale;
    } else if (m == "tf_half_pixel_for_nn") {
      x = (yd + 0.5) / scale;
    } else if (m == "tf_crop_and_resize") {
      const double span = static_cast<double>(in_len - 1);
      x = width == 1.0 ? (roi_end - roi_start) * span / 2.0
                       : yd * (roi_end - roi_start) * span / (width - 1.0);
      x += roi_start * span;
      extrapolate = x < 0 || x > span;
    } else {
      return KernelError(c, absl::StrFormat("unknown coordinate_transformation_mode '%s'", m));
    }
    if (!std::isfinite(x)) return KernelError(c, "a coordinate is not finite");
    // Far outside the input every tap reads the edge; keep x convertible.
    x = std::clamp(x, -1e12, 1e12);
    const double fl = std::floor(x);
    const bool integer = x == fl;
    const double ratio = integer ? 1.0 : x - fl;
    std::vector<double> k = ResizeCoeffs(s, ratio, integer, scale);
    const int64_t n = static_cast<int64_t>(k.size());
    const int64_t start = static_cast<int64_t>(fl) - (integer ? 1 : 0) - n / 2 + 1;
    if (s.exclude_outside) {
      double sum = 0;
      for (int64_t i = 0; i < n; ++i) {
        if (start + i < 0 || start + i >= in_len) k[i] = 0;
        sum += k[i];
      }
      if (sum != 0) {
        for (double& v : k) v /= sum;
      }
    }
    for (int64_t o = 0; o < outer; ++o) {
      for (int64_t j = 0; j < inner; ++j) {
        double v = 0;
        if (extrapolate) {
          v = s.extrapolation;
        } else {
          for (int64_t i = 0; i < n; ++i) {
            if (k[i] == 0) continue;
            const int64_t p = std::clamp<int64_t>(start + i, 0, in_len - 1);
            v += k[i] * in[(o * in_len + p) * inner + j];
          }
        }
        out[(o * out_len + y) * inner + j] = v;
      }
    }
  }
  dims[axis] = out_len;
  return out;
}

// Upsample (opsets 7 to 9) and opset 10's Resize(X, scales): each axis
// scaled by its scale (the "scales" attribute before opset 9, else input 1)
// to floor(in * scale) elements, with asymmetric coordinates (x = y /
// scale). nearest takes the input element at floor(x) when the axis grows and
// ceil(x) when it shrinks (ONNX Runtime's rule for these opsets); linear
// interpolates between the two input elements around x, the last one
// repeated past the end.
Result Upsample(const KernelContext& c) {
  const OnnxArgs a(c);
  if (!a.Has(0)) return KernelError(c, "needs X");
  const Dims& x_dims = a.Input(0)->type().dims;
  std::vector<double> scales;
  if (c.op == "onnx.Upsample" && a.Opset(9) < 9) {
    scales = a.Floats("scales").value_or(std::vector<double>{});
  } else {
    EGRET_ASSIGN_OR_RETURN(const Tensor* t, a.Required(1));
    scales = ReadReals(*t);
  }
  if (scales.size() != x_dims.size()) {
    return KernelError(c, absl::StrFormat("scales has %d values for a rank-%d input", scales.size(),
                                          x_dims.size()));
  }
  ResizeSpec s;
  s.transform = "asymmetric";
  const std::string mode = a.Str("mode", "nearest");
  if (mode == "nearest") {
    s.mode = ResizeSpec::Mode::kNearest;
  } else if (mode == "linear" || mode == "bilinear") {
    s.mode = ResizeSpec::Mode::kLinear;
  } else {
    return KernelError(c, absl::StrFormat("unknown mode '%s'", mode));
  }
  Dims out(x_dims.begin(), x_dims.end());
  for (size_t i = 0; i < scales.size(); ++i) {
    if (!(scales[i] > 0) || scales[i] > 1e9) return KernelError(c, "scales must be positive");
    out[i] = static_cast<int64_t>(std::floor(static_cast<double>(x_dims[i]) * scales[i]));
    if (x_dims[i] == 0 && out[i] > 0) return KernelError(c, "cannot resize an empty axis");
  }
  EGRET_RETURN_IF_ERROR(CheckOnnxOutput(c, 0, out));
  std::vector<double> v = ReadReals(*a.Input(0));
  Dims dims = x_dims;
  for (size_t i = 0; i < scales.size(); ++i) {
    if (scales[i] == 1.0 && out[i] == dims[i]) continue;
    const int ax = static_cast<int>(i);
    s.nearest_mode = scales[i] >= 1.0 ? "floor" : "ceil";
    EGRET_ASSIGN_OR_RETURN(v, ResizeAxis(c, s, v, dims, ax, out[i], scales[i], 0.0, 1.0));
  }
  std::vector<Tensor> result;
  EGRET_ASSIGN_OR_RETURN(Tensor t, OnnxOutput(c, 0, dims, v));
  result.push_back(std::move(t));
  return result;
}

Result Resize(const KernelContext& c) {
  const OnnxArgs a(c);
  if (!a.Has(0)) return KernelError(c, "needs X");
  if (a.num_inputs() == 2) return Upsample(c);  // opset 10's Resize(X, scales)
  const Dims& x_dims = a.Input(0)->type().dims;
  const int rank = static_cast<int>(x_dims.size());
  ResizeSpec s;
  const std::string mode = a.Str("mode", "nearest");
  if (mode == "nearest") {
    s.mode = ResizeSpec::Mode::kNearest;
  } else if (mode == "linear") {
    s.mode = ResizeSpec::Mode::kLinear;
  } else if (mode == "cubic") {
    s.mode = ResizeSpec::Mode::kCubic;
  } else {
    return KernelError(c, absl::StrFormat("unknown mode '%s'", mode));
  }
  s.transform = a.Str("coordinate_transformation_mode", "half_pixel");
  s.nearest_mode = a.Str("nearest_mode", "round_prefer_floor");
  if (s.nearest_mode != "round_prefer_floor" && s.nearest_mode != "round_prefer_ceil" &&
      s.nearest_mode != "floor" && s.nearest_mode != "ceil") {
    return KernelError(c, absl::StrFormat("unknown nearest_mode '%s'", s.nearest_mode));
  }
  s.cubic_a = a.Float("cubic_coeff_a", -0.75);
  s.exclude_outside = a.Int("exclude_outside", 0) != 0;
  s.antialias = a.Int("antialias", 0) != 0 && s.mode != ResizeSpec::Mode::kNearest;
  s.extrapolation = a.Float("extrapolation_value", 0.0);

  std::vector<int> axes;
  if (std::optional<std::vector<int64_t>> attr = a.Ints("axes")) {
    for (int64_t ax : *attr) {
      EGRET_ASSIGN_OR_RETURN(int axis, OnnxAxis(c, ax, rank));
      axes.push_back(axis);
    }
  } else {
    for (int d = 0; d < rank; ++d) axes.push_back(d);
  }
  const size_t na = axes.size();
  std::vector<double> scale(rank, 1.0), roi_start(rank, 0.0), roi_end(rank, 1.0);
  std::vector<int64_t> out(x_dims.begin(), x_dims.end());
  const Tensor* sizes = a.Input(3);
  const Tensor* scales = a.Input(2);
  if (sizes != nullptr && sizes->num_elements() > 0) {
    const std::vector<int64_t> sz = ReadInts(*sizes);
    if (sz.size() != na) {
      return KernelError(c, absl::StrFormat("sizes has %d values, expected %d", sz.size(), na));
    }
    for (size_t i = 0; i < na; ++i) {
      out[axes[i]] = sz[i];
      scale[axes[i]] = static_cast<double>(sz[i]) / static_cast<double>(x_dims[axes[i]]);
    }
    const std::string policy = a.Str("keep_aspect_ratio_policy", "stretch");
    if (policy == "not_larger" || policy == "not_smaller") {
      double common = scale[axes[0]];
      for (int ax : axes) {
        common = policy == "not_larger" ? std::min(common, scale[ax]) : std::max(common, scale[ax]);
      }
      for (int ax : axes) {
        scale[ax] = common;
        out[ax] = static_cast<int64_t>(common * static_cast<double>(x_dims[ax]) + 0.5);
      }
    } else if (policy != "stretch") {
      return KernelError(c, absl::StrFormat("unknown keep_aspect_ratio_policy '%s'", policy));
    }
  } else if (scales != nullptr && scales->num_elements() > 0) {
    const std::vector<double> sc = ReadReals(*scales);
    if (sc.size() != na) {
      return KernelError(c, absl::StrFormat("scales has %d values, expected %d", sc.size(), na));
    }
    for (size_t i = 0; i < na; ++i) {
      if (!(sc[i] > 0)) return KernelError(c, "scales must be positive");
      scale[axes[i]] = sc[i];
      const double size = sc[i] * static_cast<double>(x_dims[axes[i]]);
      out[axes[i]] = static_cast<int64_t>(std::min(size, 4.0e18));
    }
  } else {
    return KernelError(c, "needs scales or sizes");
  }
  if (const Tensor* roi = a.Input(1); roi != nullptr && roi->num_elements() > 0) {
    const std::vector<double> r = ReadReals(*roi);
    if (r.size() != 2 * na) {
      return KernelError(c, absl::StrFormat("roi has %d values, expected %d", r.size(), 2 * na));
    }
    for (size_t i = 0; i < na; ++i) {
      roi_start[axes[i]] = r[i];
      roi_end[axes[i]] = r[na + i];
    }
  }

  for (int ax : axes) {
    if (x_dims[ax] == 0 || out[ax] < 0) return KernelError(c, "cannot resize an empty axis");
    // An antialiasing kernel spans about 4 / scale taps.
    if (s.antialias && scale[ax] < 1e-4) {
      return KernelError(c, absl::StrFormat("antialias with scale %g is not supported", scale[ax]));
    }
  }
  EGRET_RETURN_IF_ERROR(CheckOnnxOutput(c, 0, Dims(out.begin(), out.end())));
  std::vector<double> v = ReadReals(*a.Input(0));
  Dims dims = x_dims;
  for (int ax : axes) {
    const bool identity =
        std::abs(scale[ax] - 1.0) <= 1e-9 && out[ax] == dims[ax] &&
        (s.transform != "tf_crop_and_resize" ||
         (std::abs(roi_start[ax]) <= 1e-9 && std::abs(roi_end[ax] - 1.0) <= 1e-9));
    if (identity) continue;
    EGRET_ASSIGN_OR_RETURN(
        v, ResizeAxis(c, s, v, dims, ax, out[ax], scale[ax], roi_start[ax], roi_end[ax]));
  }
  std::vector<Tensor> result;
  EGRET_ASSIGN_OR_RETURN(Tensor t, OnnxOutput(c, 0, dims, v));
  result.push_back(std::move(t));
  return result;
}

// ---------------------------------------------------------------------------
// GridSample: X [N, C, D1, ..., Dr], grid [N, O1, ..., Or, r] of normalized
// coordinates in [-1, 1] (grid[..., 0] for the last dim Dr, grid[..., r-1]
// for D1); output [N, C, O1, ..., Or]. A coordinate g of a dim of size D is
// x = (g + 1) / 2 * (D - 1) with align_corners, ((g + 1) D - 1) / 2 without.
// padding_mode says what lies outside: zeros; border (coordinates clamped to
// [0, D - 1]); reflection (coordinates reflected at the borders, [0, D - 1]
// with align_corners, [-0.5, D - 0.5] without). nearest rounds half to even;
// linear and cubic (A = -0.75) read 2 and 4 taps per dim, each tap padded
// the same way.

enum class Padding { kZeros, kBorder, kReflection };

// Reflects x into [lo, hi] by its nearest border, as often as needed.
double Reflect(double x, double lo, double hi) {
  const double range = hi - lo;
  if (range <= 0) return lo;
  if (x >= lo && x <= hi) return x;
  const double dx = x < lo ? lo - x : x - hi;  // distance past the border
  const bool even = std::fmod(std::floor(dx / range), 2.0) == 0;
  const double r = std::fmod(dx, range);
  if (x < lo) return even ? lo + r : hi - r;
  return even ? hi - r : lo + r;
}

Result GridSample(const KernelContext& c) {
  const OnnxArgs a(c);
  if (!a.Has(0) || !a.Has(1)) return KernelError(c, "needs X and grid");
  const Dims& xd = a.Input(0)->type().dims;
  const Dims& gd = a.Input(1)->type().dims;
  const int r = static_cast<int>(xd.size()) - 2;
  if (r < 1 || static_cast<int>(gd.size()) != r + 2 || gd[0] != xd[0] || gd.back() != r) {
    return KernelError(c,
                       absl::StrFormat("grid %s does not fit X %s", a.Input(1)->type().ToString(),
                                       a.Input(0)->type().ToString()));
  }
  const std::string mode = a.Str("mode", "linear");
  const bool nearest = mode == "nearest";
  const bool cubic = mode == "cubic" || mode == "bicubic";
  if (!nearest && !cubic && mode != "linear" && mode != "bilinear") {
    return KernelError(c, absl::StrFormat("unknown mode '%s'", mode));
  }
  const std::string pm = a.Str("padding_mode", "zeros");
  Padding padding = Padding::kZeros;
  if (pm == "border") {
    padding = Padding::kBorder;
  } else if (pm == "reflection") {
    padding = Padding::kReflection;
  } else if (pm != "zeros") {
    return KernelError(c, absl::StrFormat("unknown padding_mode '%s'", pm));
  }
  const bool align = a.Int("align_corners", 0) != 0;

  const int64_t n = xd[0], channels = xd[1];
  std::vector<int64_t> size(xd.begin() + 2, xd.end());
  int64_t in_plane = 1, out_plane = 1;
  for (int64_t d : size) in_plane *= d;
  for (int d = 1; d <= r; ++d) out_plane *= gd[d];
  std::vector<double> lo(r), hi(r);
  for (int d = 0; d < r; ++d) {
    lo[d] = align ? 0.0 : -0.5;
    hi[d] = align ? static_cast<double>(size[d] - 1) : static_cast<double>(size[d]) - 0.5;
  }
  // The input position a tap at integer index i of dim d reads, or -1 for a
  // zero.
  auto tap_index = [&](int d, int64_t i) -> int64_t {
    if (i >= 0 && i < size[d]) return i;
    switch (padding) {
      case Padding::kZeros:
        return -1;
      case Padding::kBorder:
        return std::clamp<int64_t>(i, 0, size[d] - 1);
      case Padding::kReflection:
        return std::clamp<int64_t>(
            static_cast<int64_t>(Reflect(static_cast<double>(i), lo[d], hi[d])), 0, size[d] - 1);
    }
    return -1;
  };

  const std::vector<double> x = ReadReals(*a.Input(0));
  const std::vector<double> grid = ReadReals(*a.Input(1));
  std::vector<double> y(static_cast<size_t>(n * channels * out_plane));
  const int taps = nearest ? 1 : cubic ? 4 : 2;
  std::vector<std::vector<int64_t>> idx(r, std::vector<int64_t>(taps));
  std::vector<std::vector<double>> wt(r, std::vector<double>(taps));
  for (int64_t b = 0; b < n; ++b) {
    for (int64_t o = 0; o < out_plane; ++o) {
      // Per-dim taps of this output position.
      for (int d = 0; d < r; ++d) {
        const double g = grid[(b * out_plane + o) * r + (r - 1 - d)];
        const double len = static_cast<double>(size[d]);
        double xc = align ? (g + 1.0) / 2.0 * (len - 1.0) : ((g + 1.0) * len - 1.0) / 2.0;
        if (!std::isfinite(xc)) xc = -8.0;  // reads padding, like any far coordinate
        // With zeros padding, beyond a few pixels outside every tap reads 0.
        if (padding == Padding::kZeros) xc = std::clamp(xc, -8.0, len + 8.0);
        if (nearest) xc = std::nearbyint(xc);
        if (xc < lo[d] || xc > hi[d]) {
          if (padding == Padding::kBorder) xc = std::clamp(xc, 0.0, len - 1.0);
          if (padding == Padding::kReflection) xc = Reflect(xc, lo[d], hi[d]);
        }
        if (nearest) {
          idx[d][0] = tap_index(d, static_cast<int64_t>(xc));
          wt[d][0] = 1.0;
          continue;
        }
        const double x0 = std::floor(xc);
        const double t = xc - x0;
        const int64_t first = static_cast<int64_t>(x0) - (cubic ? 1 : 0);
        for (int k = 0; k < taps; ++k) idx[d][k] = tap_index(d, first + k);
        if (cubic) {
          wt[d] = {CubicKernel(t + 1, -0.75), CubicKernel(t, -0.75), CubicKernel(1 - t, -0.75),
                   CubicKernel(2 - t, -0.75)};
        } else {
          wt[d] = {1.0 - t, t};
        }
      }
      // The tensor product of the taps, for every channel.
      for (int64_t ch = 0; ch < channels; ++ch) {
        const double* plane = x.data() + (b * channels + ch) * in_plane;
        double sum = 0;
        std::vector<int> k(r, 0);
        while (true) {
          double w = 1.0;
          int64_t off = 0;
          bool zero = false;
          for (int d = 0; d < r; ++d) {
            const int64_t i = idx[d][k[d]];
            if (i < 0) zero = true;
            w *= wt[d][k[d]];
            off = off * size[d] + i;
          }
          if (!zero && w != 0) sum += w * plane[off];
          int d = r - 1;
          for (; d >= 0; --d) {
            if (++k[d] < taps) break;
            k[d] = 0;
          }
          if (d < 0) break;
        }
        y[(b * channels + ch) * out_plane + o] = sum;
      }
    }
  }
  Dims out_dims{n, channels};
  out_dims.insert(out_dims.end(), gd.begin() + 1, gd.end() - 1);
  std::vector<Tensor> result;
  EGRET_ASSIGN_OR_RETURN(Tensor t, OnnxOutput(c, 0, out_dims, y));
  result.push_back(std::move(t));
  return result;
}

}  // namespace

void RegisterOnnxSamplingKernels(KernelTable& t) {
  t.emplace("onnx.Resize", Resize);
  t.emplace("onnx.Upsample", Upsample);
  t.emplace("onnx.GridSample", GridSample);
}

}  // namespace egret::backend_internal
