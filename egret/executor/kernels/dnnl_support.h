// Private to the backend: what the oneDNN-backed reference kernels share.
//
// oneDNN computes in float32: operands are read as float (Float16 widened
// exactly, quantized storage dequantized as stepsize * (q - zero_offset)
// rounded once to float), the primitive accumulates in float32, and the
// result is stored once in the output type (see FloatsToTensor). A kernel
// tries its oneDNN form first and falls back to its plain double loop when
// oneDNN rejects the shape (e.g. a negative implicit padding), so every case
// the loops covered still runs.
//
// Threads: oneDNN (Debian's libdnnl) runs on GNU OpenMP. ThreadScope sets the
// OpenMP thread count of the calling thread for the duration of one
// Execute(); primitives read it when they are created and run. oneDNN's
// forward primitives are deterministic for a given thread count.
#ifndef EGRET_EXECUTOR_KERNELS_DNNL_SUPPORT_H_
#define EGRET_EXECUTOR_KERNELS_DNNL_SUPPORT_H_

#include <memory>
#include <optional>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/functional/function_ref.h"
#include "absl/types/span.h"
#include "egret/graph/tensor.h"
#include "oneapi/dnnl/dnnl.hpp"

namespace egret::backend_internal {

// Whether a value of `type` may be computed in float32: Float32, Float16 or
// a quantized dtype. Integer (Int32, Int64) and Bool values stay on the
// double loops, which are exact for integers up to 2^53 (constant folding
// relies on that).
bool FloatComputable(const TensorType& type);

// The trailing (bottom or right) padding to give oneDNN for a window sliding
// with `stride`, where `exact` is the padding that makes the last window end
// exactly at the padded edge: `exact` itself when it is not negative; 0 when
// it is negative by less than the stride (the last -exact input rows are
// never read, and oneDNN's floor division gives the same output size with no
// padding, as in a 1x1 stride-2 convolution over an even size); nullopt
// otherwise (a shape oneDNN cannot express).
std::optional<int64_t> DnnlTrailingPad(int64_t exact, int64_t stride);

// The process's CPU engine (created on first use).
const dnnl::engine& CpuEngine();

// The largest |q - zero| of an int8 filter value that oneDNN's int8
// convolutions sum exactly on this CPU. With VNNI (AVX512-VNNI, AVX-VNNI)
// each u8 * s8 product is added to an int32 sum: 128, every int8 value.
// Without it, oneDNN's AVX2 and AVX-512 kernels add pairs of products in a
// saturating int16 (vpmaddubsw) before widening, which is exact only while
// 2 * 255 * |w| <= 32767: 64. (oneDNN documents this: without VNNI, int8
// weights are meant to be scaled to 7 bits.) A filter with larger values
// is given to oneDNN as two filters of values within the limit, whose sums
// add up to its own (conv_quantized.cc's Int8FilterValues).
int DnnlInt8WeightLimit();

// Clamps every value into [lo, hi], compared in double (as the loop
// kernels' ApplyActivationClamp).
void ClampFloats(absl::Span<float> v, double lo, double hi);

// A plain row-major float32 memory descriptor of `dims` in oneDNN's axis
// order with explicit element `strides`.
dnnl::memory::desc StridedDesc(const dnnl::memory::dims& dims, const dnnl::memory::dims& strides);

// Values derived from graph constants that later runs reuse: a convolution
// filter reordered into its primitive's layout (for int8, with oneDNN's
// zero-point compensation), which otherwise costs as much per run as the
// convolution itself. Each entry is keyed by the constant's address and the
// layout, and holds shared ownership of the constant, so the address cannot
// be reused by another tensor while the entry exists. The derivation from a
// constant is determined by the layout's data type and a `part`: s8 is
// q - zero of 8-bit quantized storage, whole (part 0) or one of the two
// halves it is split into when the CPU's int8 kernels need 7-bit values
// (parts 1 and 2, conv_quantized.cc's Int8FilterValues); f32 the real value rounded to
// float.
class ConstantCache {
 public:
  // The memory derived from `constant` in layout `desc` as `part`: the cached
  // one, or make()'s result, cached unless it is nullopt (not derivable).
  std::optional<dnnl::memory> Get(const std::shared_ptr<const Tensor>& constant,
                                  const dnnl::memory::desc& desc, int part,
                                  absl::FunctionRef<std::optional<dnnl::memory>()> make);
  int64_t bytes() const { return bytes_; }

 private:
  struct Entry {
    std::shared_ptr<const Tensor> constant;
    dnnl::memory::desc desc;
    int part;
    dnnl::memory memory;
  };
  absl::flat_hash_map<const Tensor*, std::vector<Entry>> entries_;
  int64_t bytes_ = 0;
};

// oneDNN primitives (with their descriptors) that later runs reuse. Making a
// descriptor walks oneDNN's implementation list and a primitive looks up
// oneDNN's own cache: tens of microseconds a node, a tenth of a small
// network's run. The key is every value the making reads (a tag naming the
// kind and value type first, then shapes, strides, paddings, data types and
// the thread count), so an entry is reused only for an identical primitive.
class PrimitiveCache {
 public:
  // The value for `key`: the cached one, or make()'s result, cached (a
  // make() that throws caches nothing). T is a copyable handle type.
  template <typename T>
  T Get(std::vector<int64_t> key, absl::FunctionRef<T()> make) {
    auto it = entries_.find(key);
    if (it != entries_.end()) return *static_cast<const T*>(it->second.get());
    auto made = std::make_shared<T>(make());
    T copy = *made;
    entries_.emplace(std::move(key), std::move(made));
    return copy;
  }

 private:
  absl::flat_hash_map<std::vector<int64_t>, std::shared_ptr<const void>> entries_;
};

// Through `cache` when there is one, else make() itself.
template <typename T>
T CachedPrimitive(PrimitiveCache* cache, std::vector<int64_t> key, absl::FunctionRef<T()> make) {
  return cache != nullptr ? cache->Get<T>(std::move(key), make) : make();
}

// Sets the number of threads oneDNN (and the loop kernels that use threads)
// may use on this thread until destroyed, then restores the previous count.
// `threads` <= 0 means every core.
class ThreadScope {
 public:
  explicit ThreadScope(int threads);
  ~ThreadScope();
  ThreadScope(const ThreadScope&) = delete;
  ThreadScope& operator=(const ThreadScope&) = delete;

 private:
  int previous_;      // this thread's previous KernelThreads() setting
  int omp_previous_;  // and its previous OpenMP thread count
};

// The thread count set by the innermost ThreadScope of this thread (every
// core when there is none).
int KernelThreads();

}  // namespace egret::backend_internal

#endif  // EGRET_EXECUTOR_KERNELS_DNNL_SUPPORT_H_
