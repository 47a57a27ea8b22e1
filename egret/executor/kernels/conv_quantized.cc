// The exact convolution of 8-bit quantized operands on oneDNN's int8
// convolution (conv_internal.h, DnnlQuantizedConv): the filter's int8
// values (whole, or as two halves this CPU sums exactly), int32 sums
// requantized band by band while they are in cache, the bands split over
// the threads.
#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <memory>
#include <optional>
#include <vector>

#include "egret/executor/kernels/conv_internal.h"
#include "egret/executor/kernels/dnnl_support.h"
#include "egret/executor/kernels/kernels_internal.h"
#include "egret/executor/kernels/parallel.h"
#include "egret/executor/kernels/requantize.h"
#include "egret/executor/kernels/simd.h"

namespace egret::backend_internal::conv {
namespace {

// The stepsize of each output channel of a filter [fh, fw, fcin, cout]
// 8-bit quantized per tensor or per output channel (axis 3), or nullopt.
std::optional<std::vector<double>> Int8FilterStepsizes(const TensorType& t) {
  if (t.dtype != DType::kQInt8 && t.dtype != DType::kQUInt8) return std::nullopt;
  if (t.per_axis && t.per_axis->axis != 3) return std::nullopt;
  std::vector<double> step(t.dims[3]);
  for (size_t k = 0; k < step.size(); ++k) step[k] = t.StepsizeAt(static_cast<int64_t>(k));
  return step;
}

// The int8 values oneDNN multiplies for such a filter, v = q - zero of each
// stored element (zero: its output channel's zero offset): for part 0 v
// itself, for parts 1 and 2 floor(v / 2) and v - floor(v / 2), two filters
// of values in [-64, 64] whose sums add up to v's. The stored bytes when
// they are the values already, else `scratch` filled; nullptr when some v
// falls outside int8, or for part 0 outside [-limit, limit]
// (DnnlInt8WeightLimit: the values this CPU's kernels sum exactly).
const int8_t* Int8FilterValues(const Tensor& w, int part, int limit, std::vector<int8_t>& scratch) {
  const TensorType& t = w.type();
  const int64_t cout = t.dims[3];
  std::vector<int32_t> zero(cout);
  bool shift = t.dtype == DType::kQUInt8 || part != 0;
  for (int64_t k = 0; k < cout; ++k) {
    zero[k] = t.ZeroOffsetAt(k);
    shift = shift || zero[k] != 0;
  }
  const uint8_t* bytes = w.bytes().data();
  const int64_t n = t.num_elements();
  const int32_t lo = std::max(-128, -limit), hi = std::min(127, limit);
  if (!shift) {
    const int8_t* values = reinterpret_cast<const int8_t*>(bytes);
    if (lo > -128 || hi < 127) {
      for (int64_t i = 0; i < n; ++i) {
        if (values[i] < lo || values[i] > hi) return nullptr;
      }
    }
    return values;
  }
  scratch.resize(n);
  for (int64_t i = 0; i < n; ++i) {
    const int32_t q = t.dtype == DType::kQUInt8
                          ? static_cast<int32_t>(bytes[i])
                          : static_cast<int32_t>(static_cast<int8_t>(bytes[i]));
    const int32_t v = q - zero[i % cout];
    if (v < -128 || v > 127) return nullptr;
    if (part == 0 && (v < lo || v > hi)) return nullptr;
    const int32_t low = v >= 0 ? v / 2 : -((1 - v) / 2);  // floor(v / 2)
    scratch[i] = static_cast<int8_t>(part == 0 ? v : part == 1 ? low : v - low);
  }
  return scratch.data();
}

// This thread's scratchpad for oneDNN primitives made with a user
// scratchpad, of at least `bytes` (kept for the thread's next primitive:
// allocating it per call, with its page faults, cost more than some small
// convolutions).
void* ThreadScratchpad(size_t bytes) {
  thread_local std::vector<uint8_t> pad;
  if (pad.size() < bytes) pad.resize(bytes);
  return pad.data();
}

// An int8 filter as oneDNN's convolution takes it: whole (`first`), or as
// two halves whose sums add up to the whole's (Int8FilterValues).
struct Int8Weights {
  dnnl::memory first;
  std::optional<dnnl::memory> second;
};

// The int32 sums an integer convolution computes at a time when its output
// is quantized (DnnlQuantizedConv): 256 KB, which stays in the L2 cache
// while the band is requantized; and the fewest sums per image it splits
// into one band per thread.
constexpr int64_t kBandSums = 1 << 16;
// Pixels of slack after every int32 sums buffer oneDNN writes: its AVX-512
// VNNI kernel for an int8 1x1 convolution writes past a small output (seen:
// a 4 x 12 band of 1152 channels written as 64 pixels, 16 past the end;
// efficientnet_b4 w8a8 at 380 x 380 crashed on the heap damage).
constexpr int64_t kSumsSlackPixels = 64;
constexpr int64_t kParallelBandSums = 1 << 12;

}  // namespace

std::optional<Tensor> DnnlQuantizedConv(const KernelContext& c, const ConvParams& p,
                                        int64_t pad_bottom, int64_t pad_right,
                                        const std::optional<ActivationClamp>& clamp) {
  const TensorType& xt = c.In(0).type();
  if ((xt.dtype != DType::kQUInt8 && xt.dtype != DType::kQInt8) || xt.per_axis) return std::nullopt;
  const Dims& xd = c.InDims(0);
  const Dims& wd = c.InDims(1);
  const Dims& od = c.outputs[0].dims;
  const int64_t cin = xd[3], fh = wd[0], fw = wd[1], fcin = wd[2], cout = wd[3];
  // |qx - zx| <= 255 and |qw - zw| <= 128: the sum of fh * fw * fcin
  // products stays inside int32.
  if (fh * fw * fcin * 255 * 128 > INT32_MAX) return std::nullopt;
  const std::optional<std::vector<double>> wstep = Int8FilterStepsizes(c.In(1).type());
  if (!wstep) return std::nullopt;
  const bool depthwise = c.op == "DepthWiseConv2d";
  const int64_t groups = depthwise ? cin : cin / fcin;
  const int64_t og = cout / groups;
  try {
    using dnnl::memory;
    // Without VNNI, oneDNN's kernels for a signed input halve the filter
    // values (rounding them) to keep their int16 pair sums from saturating,
    // which is not exact. There a signed input is given as unsigned instead:
    // qx + 128 with zero offset zx + 128, the same differences qx - zx.
    const int limit = DnnlInt8WeightLimit();
    const bool flip_sign = xt.dtype == DType::kQInt8 && limit < 128;
    std::vector<uint8_t> flipped;
    const uint8_t* xbytes = c.In(0).bytes().data();
    if (flip_sign) {
      flipped.resize(c.In(0).bytes().size());
      for (size_t i = 0; i < flipped.size(); ++i) flipped[i] = xbytes[i] ^ 0x80;
      xbytes = flipped.data();
    }
    const memory::data_type xtype =
        xt.dtype == DType::kQUInt8 || flip_sign ? memory::data_type::u8 : memory::data_type::s8;
    const memory::dims wdims = {groups, og, depthwise ? 1 : fcin, fh, fw};
    const memory::desc wdesc(wdims, memory::data_type::s8,
                             memory::dims{og, 1, cout, fw * fcin * cout, fcin * cout});
    const memory::desc wany(wdims, memory::data_type::s8, memory::format_tag::any);
    // The primitive for `images` images of in_rows input rows, giving
    // out_rows output rows, with pad_top and pad_bottom rows of padding: the
    // whole convolution, or a band of one image's output rows.
    const auto primitive = [&](int64_t images, int64_t in_rows, int64_t out_rows, int64_t pad_top,
                               int64_t pad_bot) {
      std::vector<int64_t> key =
          ConvKey(kInt8Conv, static_cast<int64_t>(xtype), c, groups, p, pad_bottom, pad_right);
      key.insert(key.end(), {images, in_rows, out_rows, pad_top, pad_bot});
      return CachedPrimitive<ConvPrimitive>(c.primitives, std::move(key), [&] {
        const memory::desc xdesc({images, cin, in_rows, xd[2]}, xtype, memory::format_tag::nhwc);
        const memory::desc odesc({images, cout, out_rows, od[2]}, memory::data_type::s32,
                                 memory::format_tag::nhwc);
        dnnl::convolution_forward::desc d(
            dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct, xdesc, wany,
            odesc, {p.sh, p.sw}, {p.dh - 1, p.dw - 1}, {pad_top, p.pad_left}, {pad_bot, pad_right});
        dnnl::primitive_attr attr;
        attr.set_zero_points(DNNL_ARG_SRC, 0, {DNNL_RUNTIME_S32_VAL});
        // The caller's scratchpad: bands of one convolution run concurrently.
        attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
        dnnl::convolution_forward::primitive_desc pd(d, attr, CpuEngine());
        return ConvPrimitive{pd, dnnl::convolution_forward(pd)};
      });
    };
    const dnnl::engine& eng = CpuEngine();
    dnnl::stream s(eng);
    std::vector<int8_t> scratch;
    int32_t zx = xt.zero_offset + (flip_sign ? 128 : 0);
    dnnl::memory zmem({{1}, memory::data_type::s32, memory::format_tag::a}, eng, &zx);
    // The filter in `made`'s layout: whole when this CPU's kernels sum its
    // values exactly, else as two halves that they do (Int8FilterValues);
    // nullopt when it cannot be given to oneDNN.
    const auto filter_part = [&](const ConvPrimitive& made, int part) {
      return FilterIn(c, made.pd.weights_desc(), part, [&]() -> std::optional<dnnl::memory> {
        const int8_t* values = Int8FilterValues(c.In(1), part, limit, scratch);
        if (values == nullptr) return std::nullopt;
        // oneDNN takes non-const handles; it only reads sources and weights.
        return dnnl::memory(wdesc, eng, const_cast<int8_t*>(values));
      });
    };
    // Whether the filter goes as halves, settled by the first call: a whole
    // filter that does not fit is not cached, and every band asks again.
    bool halves = false;
    const auto filter = [&](const ConvPrimitive& made) -> std::optional<Int8Weights> {
      if (!halves) {
        if (std::optional<dnnl::memory> whole = filter_part(made, 0)) {
          return Int8Weights{*std::move(whole), std::nullopt};
        }
        if (limit >= 128) return std::nullopt;
        halves = true;
      }
      std::optional<dnnl::memory> low = filter_part(made, 1);
      std::optional<dnnl::memory> high = filter_part(made, 2);
      if (!low || !high) return std::nullopt;
      return Int8Weights{*std::move(low), *std::move(high)};
    };
    // Runs `made` with `weights` on the input from byte `x_offset`, writing
    // `sums`, on stream `on`.
    const auto run = [&](const ConvPrimitive& made, const Int8Weights& weights, int64_t x_offset,
                         int32_t* sums, dnnl::stream& on) {
      const auto run_part = [&](const dnnl::memory& part, int32_t* out) {
        // oneDNN takes non-const handles; it only reads sources and weights.
        dnnl::memory xmem(made.pd.src_desc(), eng, const_cast<uint8_t*>(xbytes + x_offset));
        dnnl::memory omem(made.pd.dst_desc(), eng, out);
        const dnnl::memory::desc pad_desc = made.pd.scratchpad_desc();
        dnnl::memory pmem(pad_desc, eng, ThreadScratchpad(pad_desc.get_size()));
        made.prim.execute(on, {{DNNL_ARG_SRC, xmem},
                               {DNNL_ARG_WEIGHTS, part},
                               {DNNL_ARG_DST, omem},
                               {DNNL_ARG_SCRATCHPAD, pmem},
                               {DNNL_ARG_ATTR_ZERO_POINTS | DNNL_ARG_SRC, zmem}});
        on.wait();
      };
      run_part(weights.first, sums);
      if (!weights.second) return;
      // The second half's sums, added: the sum of both is the whole
      // filter's, and stays inside int32 (checked above).
      const size_t n = made.pd.dst_desc().get_size() / sizeof(int32_t);
      thread_local std::vector<int32_t> other;
      if (other.size() < n) other.resize(n);
      run_part(*weights.second, other.data());
      for (size_t i = 0; i < n; ++i) sums[i] += other[i];
    };
    const std::vector<double> bias = ReadReals(c.In(2));
    std::vector<double> scale(cout);
    for (int64_t k = 0; k < cout; ++k) {
      scale[k] = static_cast<double>(xt.stepsize) * (*wstep)[k];
    }
    // The output: one with a single quantized encoding is quantized chunk
    // by chunk (the floats never leave the cache); any other goes through
    // FloatsOut (a Float32 one written in place).
    const TensorType& ot = c.outputs[0];
    const bool quantize_chunks = IsQuantized(ot.dtype) && !ot.per_axis;
    std::optional<Tensor> quantized;
    std::optional<FloatsOut> floats;
    if (quantize_chunks) {
      quantized.emplace(Tensor::Uninitialized(ot));  // every row is stored below
    } else {
      floats.emplace(ot);
    }
    float* const fout = floats ? floats->data() : nullptr;
    uint8_t* const qout = quantized ? quantized->mutable_bytes().data() : nullptr;
    const int64_t esize = ElementSize(ot.dtype);
    const double* const sc = scale.data();
    const double* const b = bias.data();
    const int64_t rows_per_chunk = std::max<int64_t>(1, 4096 / cout);
    const std::optional<Int8Requantizer> fused =
        qout != nullptr ? Int8Requantizer::Make(cout, sc, b, clamp ? &*clamp : nullptr, ot)
                        : std::nullopt;
    // Stores output rows [first_row, first_row + rows) (a row: one pixel's
    // cout channels) from their sums.
    const auto store_rows = [&](const int32_t* sum, int64_t first_row, int64_t first,
                                int64_t last) {
      const int64_t out_first = first_row + first;
      if (fused) {
        fused->Run(sum + first * cout, last - first, qout + out_first * cout);
        return;
      }
      std::vector<float> chunk(fout == nullptr ? rows_per_chunk * cout : 0);
      for (int64_t r0 = first; r0 < last; r0 += rows_per_chunk) {
        const int64_t r1 = std::min(last, r0 + rows_per_chunk);
        const int64_t out_r0 = first_row + r0;
        float* const o = fout != nullptr ? fout + out_r0 * cout : chunk.data();
        const int32_t* const s0 = sum + r0 * cout;
        const int64_t nr = r1 - r0;
        WithWidestVectors([=]() __attribute__((always_inline)) {
          for (int64_t r = 0; r < nr; ++r) {
            const int32_t* __restrict sr = s0 + r * cout;
            float* __restrict orow = o + r * cout;
            for (int64_t k = 0; k < cout; ++k) {
              orow[k] = static_cast<float>(sc[k] * sr[k] + b[k]);
            }
          }
        });
        if (clamp) ClampFloats(absl::MakeSpan(o, nr * cout), clamp->lo, clamp->hi);
        if (qout != nullptr) {
          QuantizeFloatsInto(o, nr * cout, ot, qout + out_r0 * cout * esize);
        }
      }
    };
    const auto store = [&](const int32_t* sum, int64_t first_row, int64_t rows) {
      // A quarter of the usual grain: at about 0.2 ns an element
      // (Int8Requantizer), 8192 elements are worth waking a thread for.
      ParallelFor(rows, std::max<int64_t>(rows_per_chunk, kElementwiseGrain / 4 / cout),
                  [&](int64_t first, int64_t last) { store_rows(sum, first_row, first, last); });
    };
    // A quantized output of many sums is computed in bands of output rows,
    // each band's sums stored while they are in cache: written to memory and
    // read back, the int32 sums of MobileNet's largest layer (1.5 MB) cost
    // more than its convolution. With several threads, any but a small
    // output is split into at least one band per thread: each thread then
    // runs its bands whole, instead of a parallel region for oneDNN and
    // another for the stores, both short for MobileNet's small layers.
    const int64_t ih = xd[1], iw = xd[2], oh = od[1], ow = od[2];
    const int64_t row_sums = ow * cout;
    const int64_t threads = KernelThreads();
    const bool split = threads > 1 && oh >= threads && oh * row_sums >= kParallelBandSums;
    int64_t band = std::max<int64_t>(1, kBandSums / row_sums);
    if (split) band = std::min(band, (oh + threads - 1) / threads);
    if (!quantize_chunks || (!split && oh * row_sums <= 2 * kBandSums)) {
      const ConvPrimitive made = primitive(od[0], ih, oh, p.pad_top, pad_bottom);
      const std::optional<Int8Weights> weights = filter(made);
      if (!weights) return std::nullopt;
      // Every sum is written by the primitive: no zero fill.
      const std::unique_ptr<int32_t[]> sums(
          new int32_t[c.outputs[0].num_elements() + kSumsSlackPixels * cout]);
      run(made, *weights, 0, sums.get(), s);
      store(sums.get(), 0, od[0] * oh * ow);
    } else {
      // The bands, with their primitives and filters (the caches are not
      // for concurrent use): the first and last band of an image differ in
      // padding from the others, so a few primitives serve them all.
      struct Band {
        int64_t x_offset, first_row, rows;
        bool padding_only;  // every tap in the padding: every sum is 0
        ConvPrimitive made;
        Int8Weights weights;
      };
      std::vector<Band> bands;
      for (int64_t image = 0; image < od[0]; ++image) {
        for (int64_t r0 = 0; r0 < oh; r0 += band) {
          const int64_t r1 = std::min(oh, r0 + band);
          // Input rows lo..hi (inclusive, padding included) feed output
          // rows r0..r1-1; the band reads those inside the image and pads
          // the rest.
          const int64_t lo = r0 * p.sh - p.pad_top;
          const int64_t hi = (r1 - 1) * p.sh - p.pad_top + (fh - 1) * p.dh;
          const int64_t in_lo = std::max<int64_t>(lo, 0), in_hi = std::min(hi, ih - 1);
          const int64_t first_row = (image * oh + r0) * ow, rows = (r1 - r0) * ow;
          if (in_hi < in_lo) {
            bands.push_back({0, first_row, rows, true, {}, {}});
            continue;
          }
          ConvPrimitive made = primitive(1, in_hi - in_lo + 1, r1 - r0, in_lo - lo, hi - in_hi);
          std::optional<Int8Weights> weights = filter(made);
          if (!weights) return std::nullopt;
          bands.push_back({(image * ih + in_lo) * iw * cin, first_row, rows, false, std::move(made),
                           *std::move(weights)});
        }
      }
      // Each thread runs whole bands, convolution and store: oneDNN, called
      // inside the team's parallel region, runs on the calling thread
      // alone, and the band's sums never leave that core's cache.
      // Nothing may be thrown out of the region: a oneDNN error is reported
      // after it.
      std::atomic<bool> failed = false;
      ParallelFor(static_cast<int64_t>(bands.size()), 1, [&](int64_t first, int64_t last) {
        try {
          dnnl::stream on(eng);
          const std::unique_ptr<int32_t[]> sums(
              new int32_t[band * row_sums + kSumsSlackPixels * cout]);
          for (int64_t i = first; i < last; ++i) {
            const Band& part = bands[static_cast<size_t>(i)];
            if (part.padding_only) {
              std::fill_n(sums.get(), part.rows * cout, 0);
            } else {
              run(part.made, part.weights, part.x_offset, sums.get(), on);
            }
            store_rows(sums.get(), part.first_row, 0, part.rows);
          }
        } catch (const std::exception&) {
          failed = true;
        }
      });
      if (failed) return std::nullopt;
    }
    if (quantized) return *std::move(quantized);
    return floats->Finish();
  } catch (const dnnl::error&) {
    return std::nullopt;
  }
}

}  // namespace egret::backend_internal::conv
