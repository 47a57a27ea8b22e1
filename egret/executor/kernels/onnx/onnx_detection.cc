// ONNX object-detection ops: RoiAlign and NonMaxSuppression.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "absl/strings/str_format.h"
#include "egret/executor/kernels/onnx/onnx_kernels_internal.h"
#include "egret/support/status_macros.h"

namespace egret::backend_internal {
namespace {

using Result = absl::StatusOr<std::vector<Tensor>>;

// ---------------------------------------------------------------------------
// RoiAlign(X [N, C, H, W], rois [R, 4] (x1, y1, x2, y2), batch_indices [R])
// -> [R, C, output_height, output_width].
//
// A roi, scaled by spatial_scale (and shifted by -0.5 with the default
// coordinate_transformation_mode half_pixel; output_half_pixel, the only
// behaviour before opset 16, keeps it and makes malformed rois at least
// 1x1), is split into output_height x
// output_width bins. Each bin samples a grid of sampling_ratio^2 points
// (ceil(roi size / bins) per dim when sampling_ratio is 0) at the centres of
// its cells, bilinearly (points more than one pixel outside the map read 0;
// others are clamped to it), and averages them (mode avg) or takes their
// maximum (mode max: the largest of the four weighted corner values of each
// point, as ONNX's reference does).

struct Bilinear {
  int64_t pos[4] = {0, 0, 0, 0};
  double w[4] = {0, 0, 0, 0};
};

Bilinear BilinearAt(double y, double x, int64_t height, int64_t width) {
  Bilinear b;
  if (y < -1.0 || y > static_cast<double>(height) || x < -1.0 || x > static_cast<double>(width)) {
    return b;  // all weights 0
  }
  y = std::max(y, 0.0);
  x = std::max(x, 0.0);
  int64_t y_low = static_cast<int64_t>(y), x_low = static_cast<int64_t>(x);
  int64_t y_high = y_low + 1, x_high = x_low + 1;
  if (y_low >= height - 1) {
    y_high = y_low = height - 1;
    y = static_cast<double>(y_low);
  }
  if (x_low >= width - 1) {
    x_high = x_low = width - 1;
    x = static_cast<double>(x_low);
  }
  const double ly = y - static_cast<double>(y_low), lx = x - static_cast<double>(x_low);
  const double hy = 1.0 - ly, hx = 1.0 - lx;
  b.pos[0] = y_low * width + x_low;
  b.pos[1] = y_low * width + x_high;
  b.pos[2] = y_high * width + x_low;
  b.pos[3] = y_high * width + x_high;
  b.w[0] = hy * hx;
  b.w[1] = hy * lx;
  b.w[2] = ly * hx;
  b.w[3] = ly * lx;
  return b;
}

Result RoiAlign(const KernelContext& c) {
  const OnnxArgs a(c);
  if (!a.Has(0) || !a.Has(1) || !a.Has(2)) return KernelError(c, "needs X, rois and batch_indices");
  const Dims& xd = a.Input(0)->type().dims;
  const Dims& rd = a.Input(1)->type().dims;
  if (xd.size() != 4 || rd.size() != 2 || rd[1] != 4 || a.Input(2)->type().dims != Dims{rd[0]}) {
    return KernelError(c, "expects X [N, C, H, W], rois [R, 4] and batch_indices [R]");
  }
  const std::string mode = a.Str("mode", "avg");
  if (mode != "avg" && mode != "max") {
    return KernelError(c, absl::StrFormat("unknown mode '%s'", mode));
  }
  // Before opset 16 RoiAlign had no such attribute and behaved as
  // output_half_pixel.
  const int64_t opset = a.Opset(0);
  const std::string transform = a.Str("coordinate_transformation_mode",
                                      opset > 0 && opset < 16 ? "output_half_pixel" : "half_pixel");
  if (transform != "half_pixel" && transform != "output_half_pixel") {
    return KernelError(c,
                       absl::StrFormat("unknown coordinate_transformation_mode '%s'", transform));
  }
  const bool half_pixel = transform == "half_pixel";
  const int64_t out_h = a.Int("output_height", 1), out_w = a.Int("output_width", 1);
  const int64_t sampling = a.Int("sampling_ratio", 0);
  const double spatial_scale = a.Float("spatial_scale", 1.0);
  if (out_h <= 0 || out_w <= 0) return KernelError(c, "output_height and output_width must be > 0");
  const int64_t n = xd[0], channels = xd[1], height = xd[2], width = xd[3], num_rois = rd[0];
  EGRET_RETURN_IF_ERROR(CheckOnnxOutput(c, 0, Dims{num_rois, channels, out_h, out_w}));
  const std::vector<double> x = ReadReals(*a.Input(0));
  const std::vector<double> rois = ReadReals(*a.Input(1));
  const std::vector<int64_t> batch = ReadInts(*a.Input(2));
  std::vector<double> y(static_cast<size_t>(num_rois * channels * out_h * out_w));
  const double offset = half_pixel ? 0.5 : 0.0;
  for (int64_t ri = 0; ri < num_rois; ++ri) {
    if (batch[ri] < 0 || batch[ri] >= n) {
      return KernelError(c, absl::StrFormat("batch index %d is outside [0, %d)", batch[ri], n));
    }
    const double* roi = rois.data() + ri * 4;
    const double start_w = roi[0] * spatial_scale - offset;
    const double start_h = roi[1] * spatial_scale - offset;
    double roi_w = roi[2] * spatial_scale - offset - start_w;
    double roi_h = roi[3] * spatial_scale - offset - start_h;
    if (!half_pixel) {
      roi_w = std::max(roi_w, 1.0);
      roi_h = std::max(roi_h, 1.0);
    }
    const double bin_h = roi_h / static_cast<double>(out_h);
    const double bin_w = roi_w / static_cast<double>(out_w);
    if (!std::isfinite(roi_h) || !std::isfinite(roi_w) || !std::isfinite(start_h) ||
        !std::isfinite(start_w)) {
      return KernelError(c, absl::StrFormat("roi %d is not finite", ri));
    }
    // Samples per bin and dim: sampling_ratio, or as many as the bin is wide.
    const double grid_hd = sampling > 0 ? static_cast<double>(sampling)
                                        : std::ceil(roi_h / static_cast<double>(out_h));
    const double grid_wd = sampling > 0 ? static_cast<double>(sampling)
                                        : std::ceil(roi_w / static_cast<double>(out_w));
    if (grid_hd * grid_wd > (1 << 24)) {
      return KernelError(
          c, absl::StrFormat("roi %d needs a %gx%g sampling grid per bin", ri, grid_hd, grid_wd));
    }
    const int64_t grid_h = static_cast<int64_t>(std::max(grid_hd, 0.0));
    const int64_t grid_w = static_cast<int64_t>(std::max(grid_wd, 0.0));
    const double count = static_cast<double>(std::max<int64_t>(grid_h * grid_w, 1));
    for (int64_t ph = 0; ph < out_h; ++ph) {
      for (int64_t pw = 0; pw < out_w; ++pw) {
        std::vector<Bilinear> samples;
        for (int64_t iy = 0; iy < grid_h; ++iy) {
          const double sy = start_h + static_cast<double>(ph) * bin_h +
                            (static_cast<double>(iy) + 0.5) * bin_h / static_cast<double>(grid_h);
          for (int64_t ix = 0; ix < grid_w; ++ix) {
            const double sx = start_w + static_cast<double>(pw) * bin_w +
                              (static_cast<double>(ix) + 0.5) * bin_w / static_cast<double>(grid_w);
            samples.push_back(BilinearAt(sy, sx, height, width));
          }
        }
        for (int64_t ch = 0; ch < channels; ++ch) {
          const double* plane = x.data() + (batch[ri] * channels + ch) * height * width;
          double v = 0;
          bool first = true;
          for (const Bilinear& s : samples) {
            if (mode == "avg") {
              for (int k = 0; k < 4; ++k) v += s.w[k] * plane[s.pos[k]];
            } else {
              double m = s.w[0] * plane[s.pos[0]];
              for (int k = 1; k < 4; ++k) m = std::max(m, s.w[k] * plane[s.pos[k]]);
              v = first ? m : std::max(v, m);
              first = false;
            }
          }
          if (mode == "avg") v /= count;
          y[((ri * channels + ch) * out_h + ph) * out_w + pw] = v;
        }
      }
    }
  }
  std::vector<Tensor> out;
  EGRET_ASSIGN_OR_RETURN(Tensor t, OnnxOutput(c, 0, Dims{num_rois, channels, out_h, out_w}, y));
  out.push_back(std::move(t));
  return out;
}

// ---------------------------------------------------------------------------
// NonMaxSuppression(boxes [B, S, 4], scores [B, K, S],
// max_output_boxes_per_class?, iou_threshold?, score_threshold?) ->
// selected_indices [num_selected, 3] of (batch, class, box).
//
// Per batch and class: the boxes scoring above score_threshold (all boxes
// without one), taken by decreasing score (ties: lower index first), are
// kept unless their IoU with a box already kept exceeds iou_threshold, until
// max_output_boxes_per_class are kept (0 or absent: none). Boxes are
// corners (y1, x1, y2, x2) in either order, or (x_center, y_center, width,
// height) with center_point_box 1. The number selected depends on the data,
// so the node's declared output type must already say it (the importer
// takes it from the model); a different count is an error.

struct Box {
  double x_min, x_max, y_min, y_max;
};

Box ReadBox(const double* b, bool center) {
  if (center) {
    return {b[0] - b[2] / 2, b[0] + b[2] / 2, b[1] - b[3] / 2, b[1] + b[3] / 2};
  }
  return {std::min(b[1], b[3]), std::max(b[1], b[3]), std::min(b[0], b[2]), std::max(b[0], b[2])};
}

// Whether IoU(a, b) > threshold (false for boxes without area).
bool Suppresses(const Box& a, const Box& b, double threshold) {
  const double ix = std::min(a.x_max, b.x_max) - std::max(a.x_min, b.x_min);
  const double iy = std::min(a.y_max, b.y_max) - std::max(a.y_min, b.y_min);
  if (ix <= 0 || iy <= 0) return false;
  const double inter = ix * iy;
  const double area_a = (a.x_max - a.x_min) * (a.y_max - a.y_min);
  const double area_b = (b.x_max - b.x_min) * (b.y_max - b.y_min);
  const double uni = area_a + area_b - inter;
  if (area_a <= 0 || area_b <= 0 || uni <= 0) return false;
  return inter / uni > threshold;
}

Result NonMaxSuppression(const KernelContext& c) {
  const OnnxArgs a(c);
  if (!a.Has(0) || !a.Has(1)) return KernelError(c, "needs boxes and scores");
  const Dims& bd = a.Input(0)->type().dims;
  const Dims& sd = a.Input(1)->type().dims;
  if (bd.size() != 3 || bd[2] != 4 || sd.size() != 3 || sd[0] != bd[0] || sd[2] != bd[1]) {
    return KernelError(c, "expects boxes [B, S, 4] and scores [B, K, S]");
  }
  auto scalar = [&](int k, double def) -> double {
    const Tensor* t = a.Input(k);
    return t == nullptr || t->num_elements() == 0 ? def : ReadReals(*t)[0];
  };
  const int64_t max_out = std::max<int64_t>(0, static_cast<int64_t>(scalar(2, 0)));
  const double iou = scalar(3, 0);
  const bool has_score_threshold = a.Input(4) != nullptr && a.Input(4)->num_elements() > 0;
  const double score_threshold = scalar(4, 0);
  const bool center = a.Int("center_point_box", 0) != 0;
  const int64_t batches = bd[0], boxes = bd[1], classes = sd[1];
  const std::vector<double> bv = ReadReals(*a.Input(0));
  const std::vector<double> sv = ReadReals(*a.Input(1));
  std::vector<double> selected;
  for (int64_t b = 0; b < batches; ++b) {
    std::vector<Box> box(static_cast<size_t>(boxes));
    for (int64_t i = 0; i < boxes; ++i) box[i] = ReadBox(bv.data() + (b * boxes + i) * 4, center);
    for (int64_t k = 0; k < classes; ++k) {
      const double* score = sv.data() + (b * classes + k) * boxes;
      std::vector<int64_t> order;
      for (int64_t i = 0; i < boxes; ++i) {
        if (!has_score_threshold || score[i] > score_threshold) order.push_back(i);
      }
      std::stable_sort(order.begin(), order.end(),
                       [&](int64_t l, int64_t r) { return score[l] > score[r]; });
      std::vector<int64_t> kept;
      for (int64_t i : order) {
        if (static_cast<int64_t>(kept.size()) >= max_out) break;
        bool keep = true;
        for (int64_t j : kept) {
          if (Suppresses(box[i], box[j], iou)) keep = false;
        }
        if (!keep) continue;
        kept.push_back(i);
        selected.insert(selected.end(),
                        {static_cast<double>(b), static_cast<double>(k), static_cast<double>(i)});
      }
    }
  }
  std::vector<Tensor> out;
  const int64_t count = static_cast<int64_t>(selected.size()) / 3;
  EGRET_ASSIGN_OR_RETURN(Tensor t, OnnxOutput(c, 0, Dims{count, 3}, selected));
  out.push_back(std::move(t));
  return out;
}

}  // namespace

void RegisterOnnxDetectionKernels(KernelTable& t) {
  t.emplace("onnx.RoiAlign", RoiAlign);
  t.emplace("onnx.NonMaxSuppression", NonMaxSuppression);
}

}  // namespace egret::backend_internal
