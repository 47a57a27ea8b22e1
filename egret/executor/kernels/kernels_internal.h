// Private to the backend: the kernel interface, the per-family registration
// functions and the helpers the reference kernels share.
//
// Every reference kernel computes on real values: inputs are read as real
// numbers (quantized storage dequantized with stepsize * (q - zero_offset),
// Float16 widened), the op is computed, and the result is stored once in the
// output type (quantized outputs as QuantizeReal: the value rounded to float,
// divided by the stepsize in float, halves to even, plus the zero offset,
// saturated). This is the "dequantize -> float op -> quantize" rule.
//
// Precision: the convolutions, FullyConnected, MatMul and the 2-D pools run
// on oneDNN in float32 (operands rounded to float once, float32
// accumulation; dnnl_support.h), falling back to a double loop for a shape
// oneDNN rejects; every other kernel is defined as reading doubles
// (ReadReals) and computing in double. A kernel may take a faster path that
// gives the same bits: float arithmetic where AllFloats says it is exact,
// reading floats (FloatsIn) where its double arithmetic starts from values
// that are floats, copying stored bytes where it only moves elements
// (CopiesBytes), typed quantize/dequantize loops (QuantizeFloats).
//
// Float64 is read and computed exactly in double. Int64 and UInt64 values
// beyond 2^53 in magnitude are not doubles: kernels that move elements copy
// their stored bytes, and the comparisons, Max/Min, integer Cast, Mod and
// BitShift compute on 128-bit integers (ReadIntegers), so those stay exact;
// other arithmetic on them rounds through double. BFloat16 is widened to
// float exactly and stored rounded to nearest even (Tensor::SetValue).
//
// Speed: a kernel writes its output in place (FloatsOut, Tensor::
// mutable_bytes), may take over an input's storage at its last use
// (KernelContext::reusable), and splits streaming loops over the threads
// (ParallelFor, parallel.h).
#ifndef EGRET_EXECUTOR_KERNELS_KERNELS_INTERNAL_H_
#define EGRET_EXECUTOR_KERNELS_KERNELS_INTERNAL_H_

#include <algorithm>
#include <cstdint>
#include <memory>
#include <optional>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "egret/executor/kernels/parallel.h"
#include "egret/executor/kernels/simd.h"
#include "egret/graph/graph.h"
#include "egret/graph/shape_inference.h"
#include "egret/graph/tensor.h"

namespace egret::backend_internal {

class ConstantCache;   // dnnl_support.h
class PrimitiveCache;  // dnnl_support.h

// What a kernel sees. Every data input has a value; a parameter input has a
// value or is a "$Shape" (read parameters with ReadIntParam and friends). The
// output types were computed by the op's shape function and checked against
// the node.
struct KernelContext {
  std::string_view op;  // base op name; the full name of an op egret does not know
  absl::Span<const OperandInfo> inputs;
  absl::Span<const TensorType> outputs;
  // The node's attributes (the ONNX attributes of an opaque "onnx.<Op>" node).
  const Attributes* attrs = nullptr;
  // Per input (or empty), the value itself when the kernel may take its
  // storage (move it into an output, or overwrite it in place): the
  // executor's own value at its last use, read once by this node, not a
  // graph input, constant or output. nullptr otherwise. Its bytes are the
  // same as In(i)'s; a kernel that reuses them must finish reading the input
  // first or read each element before writing it.
  absl::Span<Tensor* const> reusable;
  // Per input (or empty), the graph constant it is (shared ownership), else
  // null; and the run's cache of values derived from constants (or null).
  // Filled only when the run has a cache (ExecuteOptions::cache).
  absl::Span<const std::shared_ptr<const Tensor>> constants;
  ConstantCache* cache = nullptr;
  // The run's cache of oneDNN primitives (ExecuteOptions::cache), or null.
  PrimitiveCache* primitives = nullptr;
  // Bit i: input i is a quantized value read through the Dequantize to
  // Float32 the node reads (executor.cc, ReadsThroughDequantize). The kernel
  // must compute as if it read that Dequantize's floats (FloatsIn reads
  // them).
  uint8_t through = 0;
  // The node's Float32 output is stored in outputs[0], the type of the
  // Quantize that alone reads it: the kernel stores what that Quantize
  // would store from its float result (FloatsOut does).
  bool stored_through = false;

  bool Has(int i) const { return i < static_cast<int>(inputs.size()); }
  // The graph constant input i is when the run caches derived values, else null.
  const std::shared_ptr<const Tensor>* Constant(int i) const {
    return cache != nullptr && i < static_cast<int>(constants.size()) && constants[i] != nullptr
               ? &constants[i]
               : nullptr;
  }
  Tensor* Reusable(int i) const {
    return i < static_cast<int>(reusable.size()) ? reusable[i] : nullptr;
  }
  const Tensor& In(int i) const { return *inputs[i].value; }
  const Dims& InDims(int i) const { return inputs[i].type->dims; }
};

using KernelFn = absl::StatusOr<std::vector<Tensor>> (*)(const KernelContext&);
using KernelTable = absl::flat_hash_map<std::string_view, KernelFn>;

void RegisterElementwiseKernels(KernelTable& t);  // ElementWise*
void RegisterActivationKernels(KernelTable& t);   // Relu..Abs
void RegisterConvKernels(KernelTable& t);         // Conv2d, DepthWiseConv2d, TransposeConv2d
void RegisterMatMulKernels(KernelTable& t);       // FullyConnected, MatMul
void RegisterNormKernels(KernelTable& t);         // Softmax, LayerNorm, Batchnorm
void RegisterReduceKernels(KernelTable& t);       // Reduce*
void RegisterShapeKernels(KernelTable& t);        // Reshape .. Pad
void RegisterPoolKernels(KernelTable& t);         // PoolMax2d, PoolAvg2d
void RegisterResizeKernels(KernelTable& t);       // Resize*
void RegisterConvertKernels(KernelTable& t);      // Cast, QNN_Cast, Quantize, Dequantize
void RegisterLogicKernels(KernelTable& t);        // ElementWiseEqual .. ElementWiseSelect
void RegisterIndexKernels(KernelTable& t);        // Tile, Gather, Argmax .. CumulativeSum

// The table of every reference kernel, keyed by base op name.
const KernelTable& Kernels();

// The real values of every element of t.
std::vector<double> ReadReals(const Tensor& t);
// The elements of a plain integer tensor (Int32, Int64, UInt32, UInt64),
// exactly: every one fits a 128-bit integer (a double merges Int64 and UInt64
// values above 2^53). Kernels that compare or select integers read these.
std::vector<__int128> ReadIntegers(const Tensor& t);
// A tensor of plain integer `type` holding v, each value saturated to the
// dtype's range (UInt64 up to 2^64 - 1).
Tensor MakeIntegerTensor(const TensorType& type, absl::Span<const __int128> v);
// The same values as Out (double or float: instantiated for both), each
// computed in double and rounded once; ReadReals is ReadRealsAs<double>.
template <typename Out>
std::vector<Out> ReadRealsAs(const Tensor& t);
extern template std::vector<double> ReadRealsAs<double>(const Tensor& t);
extern template std::vector<float> ReadRealsAs<float>(const Tensor& t);
// The same, into out[0, t.num_elements()).
template <typename Out>
void ReadRealsInto(const Tensor& t, Out* out);
extern template void ReadRealsInto<float>(const Tensor& t, float* out);
// HalfToFloat and FloatToHalf (egret/graph/tensor.h), bit for bit, faster:
// a table for widening, the CPU's F16C conversion (round to nearest even)
// for narrowing finite and infinite values when the CPU has it.
float WidenHalf(uint16_t h);
uint16_t NarrowToHalf(float f);
// The same over n values, eight at a time where the CPU has F16C.
void WidenHalves(const uint16_t* in, size_t n, float* out);
void NarrowToHalves(const float* in, size_t n, uint16_t* out);
// Stores x (at least out's element count) into `out`, whose dtype is
// quantized, as Tensor::SetReal stores each value (per-tensor or per-axis
// encoding, saturated); false, and nothing stored, for another dtype.
bool QuantizeFloats(absl::Span<const float> x, Tensor& out);
// The same for n floats into the storage of consecutive elements starting at
// `bytes`, for a quantized `type` with one encoding (not per-axis); false,
// and nothing stored, otherwise. Lets a kernel quantize its result chunk by
// chunk while the chunk is in cache.
bool QuantizeFloatsInto(const float* x, int64_t n, const TensorType& type, uint8_t* bytes);

// The least and greatest of x and 0 (NaN skipped, so -0 never replaces the
// initial +0), and whether x holds a NaN.
struct FloatRange {
  float lo = 0.0f, hi = 0.0f;
  bool has_nan = false;
};
FloatRange RangeWithZero(absl::Span<const float> x);
// A tensor of `type` holding the given real values (quantized as above).
Tensor MakeTensor(const TensorType& type, absl::Span<const double> reals);
// A tensor of `type` holding `values`: Float32 copied, every other dtype
// stored as Tensor::SetReal stores the value (Float16 rounded to nearest
// even, quantized rounded and saturated).
Tensor FloatsToTensor(const TensorType& type, absl::Span<const float> values);

// Elements [first, first + n) of a tensor of type `type` stored at `bytes`,
// as FloatsIn reads them: a pointer into a Float32 tensor's bytes, or those
// of a quantized tensor with one encoding dequantized into `scratch` (n
// floats) and `scratch` returned. Null for any other dtype (nothing
// written).
const float* FloatsAt(const TensorType& type, const uint8_t* bytes, int64_t first, int64_t n,
                      float* scratch);

// The Float32 elements of a tensor: a view of its own bytes when it is
// stored as Float32, else its real values converted once (ReadRealsAs).
class FloatsIn {
 public:
  explicit FloatsIn(const Tensor& t);
  FloatsIn(const FloatsIn&) = delete;
  FloatsIn& operator=(const FloatsIn&) = delete;

  const float* data() const { return data_; }
  size_t size() const { return size_; }
  absl::Span<const float> span() const { return {data_, size_}; }

 private:
  std::vector<float> converted_;
  const float* data_ = nullptr;
  size_t size_ = 0;
};

// Where a kernel computing in float writes its result. A Float32 output is
// written in place: into the storage of `reuse` (an input the executor lets
// the kernel take, KernelContext::reusable) when it has the output's byte
// size, else into a fresh tensor. Any other output goes to scratch floats
// that Finish() stores in the output type (FloatsToTensor).
class FloatsOut {
 public:
  explicit FloatsOut(const TensorType& type, Tensor* reuse = nullptr);
  FloatsOut(const FloatsOut&) = delete;
  FloatsOut& operator=(const FloatsOut&) = delete;

  float* data() { return data_; }
  size_t size() const { return size_; }
  absl::Span<float> span() { return {data_, size_}; }
  // The output tensor; call once, after the last write.
  Tensor Finish();

 private:
  TensorType type_;
  Tensor tensor_;                     // the Float32 output written in place
  std::unique_ptr<float[]> scratch_;  // any other output's floats
  float* data_ = nullptr;
  size_t size_ = 0;
};

// Whether every input given and every output of the node is Float32 or
// Float16: then a kernel whose operation is one correctly rounded IEEE
// operation (+ - * /, sqrt) or a selection (max, min, clamp, negation,
// absolute value) may compute in float directly. The result is the same bits
// as computing in double and rounding once: double's 53-bit significand is
// wide enough (53 >= 2 * 24 + 2) that the double result rounds to the float
// one, and rounding is monotone, so it commutes with max/min. (Every Float16
// value is a float, and a Float16 output is stored from the float either way:
// the double paths round to float, then to half, as Tensor::SetValue does.)
bool AllFloats(const KernelContext& c);
// Row-major strides of dims (in elements).
std::vector<int64_t> RowMajorStrides(const Dims& dims);

// dst[i] = f(src[i]) for i < n, where dst is src (in place) or does not
// overlap it. Both cases are loops the compiler vectorizes: one pointer, or
// two it may assume apart (a loop over possibly overlapping pointers falls
// back to scalar code exactly when they are equal), with the widest vectors
// (WithWidestVectors: use it only from files built with -ffp-contract=off,
// backend/CMakeLists.txt).
template <typename F>
void MapFloats(const float* src, float* dst, size_t n, F f) {
  ParallelFor(static_cast<int64_t>(n), kElementwiseGrain, [&](int64_t begin, int64_t end) {
    WithWidestVectors([&]() __attribute__((always_inline)) {
      if (src == dst) {
        float* p = dst + begin;
        for (int64_t i = 0; i < end - begin; ++i) p[i] = f(p[i]);
        return;
      }
      const float* __restrict in = src + begin;
      float* __restrict out = dst + begin;
      for (int64_t i = 0; i < end - begin; ++i) out[i] = f(in[i]);
    });
  });
}

// The common shape of a unary kernel: out[i] = f(in[i]), f computed in
// double. Float32 to Float32 streams (each element widened, mapped and
// rounded once, in place when the executor gives the input up).
template <typename F>
std::vector<Tensor> MapUnary(const KernelContext& c, F f) {
  std::vector<Tensor> out;
  if (AllFloats(c)) {
    const FloatsIn in(c.In(0));
    FloatsOut o(c.outputs[0], c.Reusable(0));
    MapFloats(in.data(), o.data(), o.size(),
              [&f](float x) { return static_cast<float>(f(static_cast<double>(x))); });
    out.push_back(o.Finish());
    return out;
  }
  std::vector<double> v = ReadReals(c.In(0));
  for (double& x : v) x = f(x);
  out.push_back(MakeTensor(c.outputs[0], v));
  return out;
}

// MapUnary for an f that is exact in float (see AllFloats): f is called
// with floats when the input and output are Float32 or Float16, with doubles
// otherwise.
template <typename F>
std::vector<Tensor> MapUnaryExactInFloat(const KernelContext& c, F f) {
  if (!AllFloats(c)) return MapUnary(c, f);
  const FloatsIn in(c.In(0));
  FloatsOut o(c.outputs[0], c.Reusable(0));
  MapFloats(in.data(), o.data(), o.size(), f);
  std::vector<Tensor> out;
  out.push_back(o.Finish());
  return out;
}

// Per axis of `out`, the stride of a tensor of dims `in` broadcast to `out`
// by numpy's rules (axes aligned at the right; 0 where `in` has 1 or lacks
// the axis). `in` must broadcast to `out`.
std::vector<int64_t> BroadcastStrides(const Dims& in, const Dims& out);

// out[i] = f(a[ia], b[ib]) over the elements of `out_dims`, with `a` (dims
// a_dims) and `b` (dims b_dims) broadcast to it by numpy's rules. Both must
// broadcast to out_dims (see BroadcastDims). T is double or float. The
// innermost axis is one tight loop (vectorizable when both operands run
// along it or one is constant along it, as a per-channel operand in NHWC).
// `out` may be `a` or `b` when that operand has out_dims (each element is
// read before it is written). Rows are split over the threads (ParallelFor),
// each with the widest vectors (WithWidestVectors: use it only from files
// built with -ffp-contract=off, backend/CMakeLists.txt).
template <typename T, typename F>
void BroadcastBinaryInto(const T* a, const Dims& a_dims, const T* b, const Dims& b_dims,
                         const Dims& out_dims, T* out, F f) {
  int64_t n = 1;
  for (int64_t d : out_dims) n *= d;
  if (n == 0) return;
  if (out_dims.empty()) {
    out[0] = f(a[0], b[0]);
    return;
  }
  // Axes merged where both operands run on across them (contiguous, or
  // broadcast along both), size-1 axes dropped: a scalar or same-shape
  // operand makes one long row, a per-channel one rows of the channels.
  const std::vector<int64_t> full_sa = BroadcastStrides(a_dims, out_dims);
  const std::vector<int64_t> full_sb = BroadcastStrides(b_dims, out_dims);
  std::vector<int64_t> dims, sa, sb;
  for (size_t d = 0; d < out_dims.size(); ++d) {
    if (out_dims[d] == 1) continue;
    if (!dims.empty() && sa.back() == full_sa[d] * out_dims[d] &&
        sb.back() == full_sb[d] * out_dims[d]) {
      dims.back() *= out_dims[d];
      sa.back() = full_sa[d];
      sb.back() = full_sb[d];
      continue;
    }
    dims.push_back(out_dims[d]);
    sa.push_back(full_sa[d]);
    sb.push_back(full_sb[d]);
  }
  if (dims.empty()) {
    out[0] = f(a[0], b[0]);
    return;
  }
  const int rank = static_cast<int>(dims.size());
  const int64_t inner = dims[rank - 1];
  const int64_t sa_in = sa[rank - 1], sb_in = sb[rank - 1];
  // m elements along the innermost axis: one tight loop per stride case.
  auto run = [&](T* dst, const T* pa, const T* pb, int64_t m) {
    WithWidestVectors([&]() __attribute__((always_inline)) {
      if (sa_in == 1 && sb_in == 1) {
        for (int64_t j = 0; j < m; ++j) dst[j] = f(pa[j], pb[j]);
      } else if (sa_in == 1 && sb_in == 0) {
        const T y = *pb;
        for (int64_t j = 0; j < m; ++j) dst[j] = f(pa[j], y);
      } else if (sa_in == 0 && sb_in == 1) {
        const T x = *pa;
        for (int64_t j = 0; j < m; ++j) dst[j] = f(x, pb[j]);
      } else {
        for (int64_t j = 0; j < m; ++j) dst[j] = f(pa[j * sa_in], pb[j * sb_in]);
      }
    });
  };
  if (rank == 1) {  // one row: split the row itself over the threads
    ParallelFor(inner, kElementwiseGrain, [&](int64_t begin, int64_t end) {
      run(out + begin, a + begin * sa_in, b + begin * sb_in, end - begin);
    });
    return;
  }
  // Rows of `inner` output elements, split over the threads.
  auto rows = [&](int64_t first, int64_t last) {
    std::vector<int64_t> idx(rank, 0);
    int64_t ia = 0, ib = 0;
    for (int64_t r = first, d = rank - 2; d >= 0; --d) {  // the indices of row `first`
      idx[d] = r % dims[d];
      r /= dims[d];
      ia += idx[d] * sa[d];
      ib += idx[d] * sb[d];
    }
    for (int64_t row = first; row < last; ++row) {
      run(out + row * inner, a + ia, b + ib, inner);
      for (int d = rank - 2; d >= 0; --d) {
        ++idx[d];
        ia += sa[d];
        ib += sb[d];
        if (idx[d] < dims[d]) break;
        ia -= sa[d] * dims[d];
        ib -= sb[d] * dims[d];
        idx[d] = 0;
      }
    }
  };
  ParallelFor(n / inner, std::max<int64_t>(1, kElementwiseGrain / inner), rows);
}

// BroadcastBinaryInto a new vector.
template <typename T, typename F>
std::vector<T> BroadcastBinaryAs(absl::Span<const T> a, const Dims& a_dims, absl::Span<const T> b,
                                 const Dims& b_dims, const Dims& out_dims, F f) {
  int64_t n = 1;
  for (int64_t d : out_dims) n *= d;
  std::vector<T> out(static_cast<size_t>(n));
  BroadcastBinaryInto<T>(a.data(), a_dims, b.data(), b_dims, out_dims, out.data(), f);
  return out;
}

// BroadcastBinaryAs in double.
template <typename F>
std::vector<double> BroadcastBinary(absl::Span<const double> a, const Dims& a_dims,
                                    absl::Span<const double> b, const Dims& b_dims,
                                    const Dims& out_dims, F f) {
  return BroadcastBinaryAs<double>(a, a_dims, b, b_dims, out_dims, f);
}

// out[i] = in[sum_d map[d][i_d] * stride_d] for an output of dims
// (map[d].size(), ...); an index of -1 yields `fill`. Slices, pads, splits
// and nearest-neighbour resizing are all this. T is any element type
// (double for real values, an unsigned type of the element's size for
// stored bytes, see WithStorageType); `out` holds the output's elements.
template <typename T>
void GatherAxesInto(const T* in, const Dims& in_dims, const std::vector<std::vector<int64_t>>& map,
                    T fill, T* out) {
  const int rank = static_cast<int>(map.size());
  int64_t n = 1;
  for (const auto& m : map) n *= static_cast<int64_t>(m.size());
  if (n == 0) return;
  if (rank == 0) {
    out[0] = in[0];
    return;
  }
  const std::vector<int64_t> stride = RowMajorStrides(in_dims);
  const std::vector<int64_t>& last = map[rank - 1];
  const int64_t inner = static_cast<int64_t>(last.size());
  const int64_t last_stride = stride[rank - 1];
  std::vector<int64_t> idx(rank, 0);  // idx[rank - 1] stays 0
  for (int64_t o = 0; o < n; o += inner) {
    int64_t base = 0;
    bool valid = true;
    for (int d = 0; d + 1 < rank; ++d) {
      const int64_t j = map[d][idx[d]];
      if (j < 0) {
        valid = false;
        break;
      }
      base += j * stride[d];
    }
    T* dst = out + o;
    if (!valid) {
      std::fill(dst, dst + inner, fill);
    } else {
      for (int64_t k = 0; k < inner; ++k) {
        dst[k] = last[k] < 0 ? fill : in[base + last[k] * last_stride];
      }
    }
    for (int d = rank - 2; d >= 0; --d) {
      if (++idx[d] < static_cast<int64_t>(map[d].size())) break;
      idx[d] = 0;
    }
  }
}

// GatherAxesInto a new vector of doubles.
std::vector<double> GatherAxes(absl::Span<const double> in, const Dims& in_dims,
                               const std::vector<std::vector<int64_t>>& map, double fill);

// Whether a kernel that only moves elements (reshape, transpose, slice,
// concat...) may copy their stored bytes from a value of type `in` to one of
// type `out`: the same dtype and encoding, one encoding for all elements.
bool CopiesBytes(const TensorType& in, const TensorType& out);

// The elements of `in` gathered by `map` (GatherAxesInto, fill 0) into a
// tensor of `type`: stored bytes moved when CopiesBytes, else real values
// converted.
Tensor GatherTensor(const Tensor& in, const TensorType& type,
                    const std::vector<std::vector<int64_t>>& map);

// Calls f(T{}) with T the unsigned integer type of `size` bytes (1, 2, 4 or
// 8): the storage of any dtype's elements, for kernels that copy bytes.
// False, and f not called, for another size.
template <typename F>
bool WithStorageType(int size, F f) {
  switch (size) {
    case 1:
      f(uint8_t{});
      return true;
    case 2:
      f(uint16_t{});
      return true;
    case 4:
      f(uint32_t{});
      return true;
    case 8:
      f(uint64_t{});
      return true;
    default:
      return false;
  }
}

// For a kernel that only moves elements: when CopiesBytes(in.type(), type),
// a tensor of `type` whose stored elements f(const T* in, T* out) writes, T
// the unsigned type of the element's size (WithStorageType); nullopt
// otherwise, and the kernel converts real values instead.
template <typename F>
std::optional<Tensor> MoveStoredElements(const Tensor& in, const TensorType& type, F f) {
  if (!CopiesBytes(in.type(), type)) return std::nullopt;
  Tensor out = Tensor::Uninitialized(type);  // f writes every element
  const bool moved = WithStorageType(ElementSize(type.dtype), [&](auto zero) {
    using T = decltype(zero);
    f(reinterpret_cast<const T*>(in.bytes().data()),  // operator new: aligned
      reinterpret_cast<T*>(out.mutable_bytes().data()));
  });
  if (!moved) return std::nullopt;
  return out;
}

// For each element of an output of dims `out`, the flat index of the element
// of an input of dims `in` that numpy broadcasting reads (logic.cc).
std::vector<int64_t> BroadcastSources(const Dims& in, const Dims& out);

// A tensor of `type` whose element i is element src[i] of `in`: the bytes are
// copied when `type` has in's dtype and encoding (exact for any dtype), else
// the real values are converted (index.cc).
Tensor TakeElements(const Tensor& in, const TensorType& type, absl::Span<const int64_t> src);

// The optional fused activation of Conv2d, DepthWiseConv2d and
// FullyConnected: inputs `first` (act_min) and `first + 1` (act_max), when
// given, bound the result (compared in double; ClampFloats for floats).
struct ActivationClamp {
  double lo, hi;
};
absl::StatusOr<std::optional<ActivationClamp>> ReadActivationClamp(const KernelContext& c,
                                                                   int first);
// Clamps every value of `out` into the fused activation's bounds, if any.
absl::Status ApplyActivationClamp(const KernelContext& c, int first, std::vector<double>& out);

// One-line error naming the op.
absl::Status KernelError(const KernelContext& c, std::string_view message);

}  // namespace egret::backend_internal

#endif  // EGRET_EXECUTOR_KERNELS_KERNELS_INTERNAL_H_
