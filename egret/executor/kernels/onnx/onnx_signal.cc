// ONNX signal ops: DFT, STFT, the HannWindow, HammingWindow and BlackmanWindow
// generators, and MelWeightMatrix.
//
// Complex tensors are real tensors with a last dimension of 2 (real,
// imaginary); a last dimension of 1 is a real signal. Transforms are computed
// directly (O(n^2) per line, in double), which is what a reference kernel
// wants: no FFT rounding order to reason about.
#include <algorithm>
#include <cmath>
#include <complex>
#include <numbers>
#include <optional>
#include <vector>

#include "absl/strings/str_format.h"
#include "egret/executor/kernels/onnx/onnx_kernels_internal.h"
#include "egret/support/status_macros.h"

namespace egret::backend_internal {
namespace {

using Result = absl::StatusOr<std::vector<Tensor>>;
using Complex = std::complex<double>;

// exp(sign * 2 pi i k n / len), with k n reduced modulo len first so that
// large products keep their precision.
Complex Twiddle(int64_t k, int64_t n, int64_t len, double sign) {
  const double angle =
      sign * 2.0 * std::numbers::pi * static_cast<double>((k * n) % len) / static_cast<double>(len);
  return {std::cos(angle), std::sin(angle)};
}

// An integer operand's value as an integer (clamped, so that any double
// converts).
int64_t ToInt(double v) {
  if (std::isnan(v)) return 0;
  return static_cast<int64_t>(std::clamp(v, -4.0e18, 4.0e18));
}

// The scalar value of optional input k, or nullopt when absent.
absl::StatusOr<std::optional<double>> OptionalScalar(const KernelContext& c, const OnnxArgs& a,
                                                     int k, const char* name) {
  const Tensor* t = a.Input(k);
  if (t == nullptr) return std::nullopt;
  if (t->num_elements() != 1) {
    return KernelError(c,
                       absl::StrFormat("%s must be a scalar, got %s", name, t->type().ToString()));
  }
  return ReadReals(*t)[0];
}

absl::StatusOr<double> Scalar(const KernelContext& c, const OnnxArgs& a, int k, const char* name) {
  EGRET_ASSIGN_OR_RETURN(std::optional<double> v, OptionalScalar(c, a, k, name));
  if (!v) return KernelError(c, absl::StrFormat("needs %s", name));
  return *v;
}

// DFT: input [..., n, ..., 1 or 2], the transform along `axis` (an attribute
// until opset 20, input 2 since). dft_length (input 1) zero-pads or
// truncates the signal. onesided keeps bins 0 .. len/2; with inverse it reads
// those bins of a Hermitian spectrum and returns the real signal ([..., 1]).
Result Dft(const KernelContext& c) {
  const OnnxArgs a(c);
  if (!a.Has(0)) return KernelError(c, "needs an input");
  const Dims& dims = a.Input(0)->type().dims;
  const int rank = static_cast<int>(dims.size());
  if (rank < 2 || (dims.back() != 1 && dims.back() != 2)) {
    return KernelError(c, "the input must have rank 2 or more and a last dimension of 1 or 2");
  }
  // Opset 17 has an axis attribute (default 1), opset 20 an axis input
  // (default -2).
  int64_t axis_attr = a.Int("axis", a.Opset(17) >= 20 ? -2 : 1);
  EGRET_ASSIGN_OR_RETURN(std::optional<double> axis_in, OptionalScalar(c, a, 2, "axis"));
  if (axis_in) axis_attr = ToInt(*axis_in);
  EGRET_ASSIGN_OR_RETURN(const int axis, OnnxAxis(c, axis_attr, rank));
  if (axis == rank - 1) return KernelError(c, "the axis cannot be the last (complex) dimension");
  const bool inverse = a.Int("inverse", 0) != 0;
  const bool onesided = a.Int("onesided", 0) != 0;
  const bool complex_in = dims.back() == 2;
  const int64_t n_in = dims[axis];
  EGRET_ASSIGN_OR_RETURN(std::optional<double> len_in, OptionalScalar(c, a, 1, "dft_length"));
  const int64_t len = len_in ? ToInt(*len_in) : (inverse && onesided ? 2 * (n_in - 1) : n_in);
  if (len <= 0) return KernelError(c, absl::StrFormat("dft_length %d is not positive", len));

  const bool real_out = inverse && onesided;
  const int64_t bins = !inverse && onesided ? len / 2 + 1 : len;
  Dims out_dims = dims;
  out_dims[axis] = bins;
  out_dims.back() = real_out ? 1 : 2;
  EGRET_RETURN_IF_ERROR(CheckOnnxOutput(c, 0, out_dims));

  const std::vector<double> x = ReadReals(*a.Input(0));
  int64_t outer = 1, inner = 1;
  for (int d = 0; d < axis; ++d) outer *= dims[d];
  for (int d = axis + 1; d < rank - 1; ++d) inner *= dims[d];
  const int64_t in_c = dims.back(), out_c = out_dims.back();
  std::vector<double> y(static_cast<size_t>(outer * bins * inner * out_c));
  std::vector<Complex> line(static_cast<size_t>(len));
  const double sign = inverse ? 1.0 : -1.0;
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t i = 0; i < inner; ++i) {
      auto in_at = [&](int64_t k) -> Complex {
        const int64_t at = ((o * n_in + k) * inner + i) * in_c;
        return {x[at], complex_in ? x[at + 1] : 0.0};
      };
      std::fill(line.begin(), line.end(), Complex{});
      if (real_out) {
        // The spectrum's bins 0 .. len/2 come from the input; the others are
        // the conjugates of their mirror bins.
        for (int64_t k = 0; k <= len / 2 && k < n_in; ++k) line[k] = in_at(k);
        for (int64_t k = 1; k < (len + 1) / 2; ++k) line[len - k] = std::conj(line[k]);
      } else {
        for (int64_t k = 0; k < std::min(len, n_in); ++k) line[k] = in_at(k);
      }
      for (int64_t k = 0; k < bins; ++k) {
        Complex s{};
        for (int64_t m = 0; m < len; ++m) s += line[m] * Twiddle(k, m, len, sign);
        if (inverse) s /= static_cast<double>(len);
        const int64_t at = ((o * bins + k) * inner + i) * out_c;
        y[at] = s.real();
        if (!real_out) y[at + 1] = s.imag();
      }
    }
  }
  std::vector<Tensor> out;
  EGRET_ASSIGN_OR_RETURN(Tensor t, OnnxOutput(c, 0, out_dims, y));
  out.push_back(std::move(t));
  return out;
}

// STFT: signal [batch, length, 1 or 2], frame_step (input 1), optional window
// (input 2) and frame_length (input 3). Frame f covers samples
// f * frame_step .. + frame_length, is multiplied by the window (all ones
// without one) and transformed; the output is [batch, frames, bins, 2] with
// frames = 1 + (length - frame_length) / frame_step and bins =
// frame_length / 2 + 1 when onesided (the default), frame_length otherwise.
Result Stft(const KernelContext& c) {
  const OnnxArgs a(c);
  if (!a.Has(0)) return KernelError(c, "needs a signal");
  const Dims& dims = a.Input(0)->type().dims;
  if (dims.size() != 3 || (dims[2] != 1 && dims[2] != 2)) {
    return KernelError(c, "the signal must be [batch, length, 1 or 2]");
  }
  const int64_t batch = dims[0], length = dims[1], in_c = dims[2];
  EGRET_ASSIGN_OR_RETURN(const double step_v, Scalar(c, a, 1, "frame_step"));
  const int64_t step = ToInt(step_v);
  std::vector<double> window;
  if (const Tensor* w = a.Input(2)) {
    if (w->type().rank() != 1) return KernelError(c, "the window must have rank 1");
    window = ReadReals(*w);
  }
  EGRET_ASSIGN_OR_RETURN(std::optional<double> len_in, OptionalScalar(c, a, 3, "frame_length"));
  int64_t frame = length;
  if (len_in) {
    frame = ToInt(*len_in);
  } else if (!window.empty()) {
    frame = static_cast<int64_t>(window.size());
  }
  if (window.empty()) window.assign(static_cast<size_t>(std::max<int64_t>(frame, 0)), 1.0);
  if (static_cast<int64_t>(window.size()) != frame) {
    return KernelError(
        c, absl::StrFormat("the window has %d values, frame_length is %d", window.size(), frame));
  }
  if (step <= 0 || frame <= 0 || frame > length) {
    return KernelError(c, absl::StrFormat("frame_step %d and frame_length %d do not fit a "
                                          "signal of length %d",
                                          step, frame, length));
  }
  const bool onesided = a.Int("onesided", 1) != 0;
  const int64_t frames = 1 + (length - frame) / step;
  const int64_t bins = onesided ? frame / 2 + 1 : frame;
  EGRET_RETURN_IF_ERROR(CheckOnnxOutput(c, 0, Dims{batch, frames, bins, 2}));
  const std::vector<double> x = ReadReals(*a.Input(0));
  std::vector<double> y(static_cast<size_t>(batch * frames * bins * 2));
  for (int64_t b = 0; b < batch; ++b) {
    for (int64_t f = 0; f < frames; ++f) {
      for (int64_t k = 0; k < bins; ++k) {
        Complex s{};
        for (int64_t m = 0; m < frame; ++m) {
          const int64_t at = (b * length + f * step + m) * in_c;
          const Complex v{x[at], in_c == 2 ? x[at + 1] : 0.0};
          s += v * window[m] * Twiddle(k, m, frame, -1.0);
        }
        const int64_t at = ((b * frames + f) * bins + k) * 2;
        y[at] = s.real();
        y[at + 1] = s.imag();
      }
    }
  }
  std::vector<Tensor> out;
  EGRET_ASSIGN_OR_RETURN(Tensor t, OnnxOutput(c, 0, Dims{batch, frames, bins, 2}, y));
  out.push_back(std::move(t));
  return out;
}

// The generalized cosine windows: w[n] = a0 - a1 cos(2 pi n / N) +
// a2 cos(4 pi n / N), N = size when periodic (the default), size - 1 when
// symmetric.
template <int kWindow>
Result Window(const KernelContext& c) {
  static constexpr double kCoeffs[3][3] = {
      {0.5, 0.5, 0.0},                        // Hann
      {25.0 / 46.0, 1.0 - 25.0 / 46.0, 0.0},  // Hamming
      {0.42, 0.5, 0.08},                      // Blackman
  };
  const double* k = kCoeffs[kWindow];
  const OnnxArgs a(c);
  EGRET_ASSIGN_OR_RETURN(const double size_v, Scalar(c, a, 0, "size"));
  const int64_t size = ToInt(size_v);
  if (size < 0) return KernelError(c, absl::StrFormat("size %d is negative", size));
  EGRET_RETURN_IF_ERROR(CheckOnnxOutput(c, 0, Dims{size}));
  const double denom = static_cast<double>(a.Int("periodic", 1) != 0 ? size : size - 1);
  std::vector<double> w(static_cast<size_t>(size));
  for (int64_t n = 0; n < size; ++n) {
    const double t = 2.0 * std::numbers::pi * static_cast<double>(n) / denom;
    w[n] = k[0] - k[1] * std::cos(t) + k[2] * std::cos(2.0 * t);
  }
  if (size == 1 && denom == 0) w[0] = 1.0;  // a symmetric window of one sample
  std::vector<Tensor> out;
  EGRET_ASSIGN_OR_RETURN(Tensor t, OnnxOutput(c, 0, Dims{size}, w));
  out.push_back(std::move(t));
  return out;
}

// MelWeightMatrix(num_mel_bins, dft_length, sample_rate, lower_edge_hertz,
// upper_edge_hertz): [dft_length / 2 + 1, num_mel_bins] triangular filters
// with peak 1. The num_mel_bins + 2 filter edges are spaced evenly on the
// mel scale mel(f) = 2595 log10(1 + f / 700) from lower_edge_hertz in steps
// of (mel(upper) - mel(lower)) / (num_mel_bins + 2), and mapped to the
// spectrogram bin floor((dft_length + 1) f / sample_rate), as ONNX's
// definition does.
Result MelWeightMatrix(const KernelContext& c) {
  const OnnxArgs a(c);
  EGRET_ASSIGN_OR_RETURN(const double mel_bins_v, Scalar(c, a, 0, "num_mel_bins"));
  EGRET_ASSIGN_OR_RETURN(const double dft_length_v, Scalar(c, a, 1, "dft_length"));
  EGRET_ASSIGN_OR_RETURN(const double sample_rate, Scalar(c, a, 2, "sample_rate"));
  EGRET_ASSIGN_OR_RETURN(const double lower, Scalar(c, a, 3, "lower_edge_hertz"));
  EGRET_ASSIGN_OR_RETURN(const double upper, Scalar(c, a, 4, "upper_edge_hertz"));
  const int64_t mel_bins = ToInt(mel_bins_v);
  const int64_t dft_length = ToInt(dft_length_v);
  if (mel_bins <= 0 || dft_length <= 0 || sample_rate <= 0) {
    return KernelError(c, "num_mel_bins, dft_length and sample_rate must be positive");
  }
  const int64_t spec_bins = dft_length / 2 + 1;
  EGRET_RETURN_IF_ERROR(CheckOnnxOutput(c, 0, Dims{spec_bins, mel_bins}));
  auto mel = [](double hz) { return 2595.0 * std::log10(1.0 + hz / 700.0); };
  const double low_mel = mel(lower);
  const double mel_step = (mel(upper) - low_mel) / static_cast<double>(mel_bins + 2);
  std::vector<int64_t> edge(static_cast<size_t>(mel_bins + 2));
  for (int64_t i = 0; i < mel_bins + 2; ++i) {
    const double hz = 700.0 * (std::pow(10.0, (i * mel_step + low_mel) / 2595.0) - 1.0);
    edge[i] = ToInt(std::floor(static_cast<double>(dft_length + 1) * hz / sample_rate));
  }
  std::vector<double> w(static_cast<size_t>(spec_bins * mel_bins), 0.0);
  auto set = [&](int64_t bin, int64_t m, double v) -> absl::Status {
    if (bin < 0 || bin >= spec_bins) {
      return KernelError(
          c, absl::StrFormat("filter %d reaches bin %d, outside [0, %d)", m, bin, spec_bins));
    }
    w[bin * mel_bins + m] = v;
    return absl::OkStatus();
  };
  for (int64_t m = 0; m < mel_bins; ++m) {
    const int64_t left = edge[m], center = edge[m + 1], right = edge[m + 2];
    if (center == left) {
      EGRET_RETURN_IF_ERROR(set(center, m, 1.0));
    } else {
      for (int64_t j = left; j <= center; ++j) {
        EGRET_RETURN_IF_ERROR(
            set(j, m, static_cast<double>(j - left) / static_cast<double>(center - left)));
      }
    }
    for (int64_t j = center; j < right; ++j) {
      EGRET_RETURN_IF_ERROR(
          set(j, m, static_cast<double>(right - j) / static_cast<double>(right - center)));
    }
  }
  std::vector<Tensor> out;
  EGRET_ASSIGN_OR_RETURN(Tensor t, OnnxOutput(c, 0, Dims{spec_bins, mel_bins}, w));
  out.push_back(std::move(t));
  return out;
}

}  // namespace

void RegisterOnnxSignalKernels(KernelTable& t) {
  t.emplace("onnx.DFT", Dft);
  t.emplace("onnx.STFT", Stft);
  t.emplace("onnx.HannWindow", Window<0>);
  t.emplace("onnx.HammingWindow", Window<1>);
  t.emplace("onnx.BlackmanWindow", Window<2>);
  t.emplace("onnx.MelWeightMatrix", MelWeightMatrix);
}

}  // namespace egret::backend_internal
