#include "egret/executor/kernels/dnnl_support.h"

#include <algorithm>
#include <cstring>
#include <thread>

#include "egret/executor/kernels/kernels_internal.h"

// The OpenMP runtime's thread-count calls (OpenMP API 5.0, section 3.2),
// declared here rather than through <omp.h>, which only an -fopenmp
// compiler provides: egret's own sources are not OpenMP code, they only set
// the count that libdnnl's OpenMP regions use (libgomp is linked).
extern "C" {
int omp_get_max_threads(void);
void omp_set_num_threads(int num_threads);
}

namespace egret::backend_internal {
namespace {

thread_local int current_threads = 0;  // 0: no ThreadScope

// Asked once per process: glibc's hardware_concurrency() opens and reads
// /sys/devices/system/cpu/online on every call, and every Execute() asks
// (constant folding runs one Execute() per folded node: at 87k folds on a
// 1M-node network those system calls were half of the folding's time).
int AllCores() {
  static const int cores = [] {
    const unsigned n = std::thread::hardware_concurrency();
    return n == 0 ? 1 : static_cast<int>(n);
  }();
  return cores;
}

}  // namespace

bool FloatComputable(const TensorType& type) {
  return type.dtype == DType::kFloat32 || type.dtype == DType::kFloat16 || IsQuantized(type.dtype);
}

std::optional<int64_t> DnnlTrailingPad(int64_t exact, int64_t stride) {
  if (exact >= 0) return exact;
  if (exact > -stride) return 0;
  return std::nullopt;
}

const dnnl::engine& CpuEngine() {
  static const dnnl::engine* const kEngine = new dnnl::engine(dnnl::engine::kind::cpu, 0);
  return *kEngine;
}

int DnnlInt8WeightLimit() {
  static const int kLimit = [] {
    const auto isa = static_cast<unsigned>(dnnl::get_effective_cpu_isa());
    // The ISA values are bit sets: AVX512-VNNI (and every ISA above it)
    // has 0x40, AVX-VNNI 0x400.
    const unsigned vnni = static_cast<unsigned>(dnnl_cpu_isa_avx512_core_vnni) &
                          ~static_cast<unsigned>(dnnl_cpu_isa_avx512_core);
    const unsigned avx_vnni =
        static_cast<unsigned>(dnnl_cpu_isa_avx2_vnni) & ~static_cast<unsigned>(dnnl_cpu_isa_avx2);
    return (isa & (vnni | avx_vnni)) != 0 ? 128 : 64;
  }();
  return kLimit;
}

void ClampFloats(absl::Span<float> v, double lo, double hi) {
  for (float& x : v) {
    const double d = std::min(std::max(static_cast<double>(x), lo), hi);
    x = static_cast<float>(d);
  }
}

dnnl::memory::desc StridedDesc(const dnnl::memory::dims& dims, const dnnl::memory::dims& strides) {
  return dnnl::memory::desc(dims, dnnl::memory::data_type::f32, strides);
}

std::optional<dnnl::memory> ConstantCache::Get(
    const std::shared_ptr<const Tensor>& constant, const dnnl::memory::desc& desc, int part,
    absl::FunctionRef<std::optional<dnnl::memory>()> make) {
  auto it = entries_.find(constant.get());
  if (it != entries_.end()) {
    for (const Entry& e : it->second) {
      if (e.desc == desc && e.part == part) return e.memory;
    }
  }
  std::optional<dnnl::memory> m = make();
  if (m) {
    bytes_ += static_cast<int64_t>(desc.get_size());
    entries_[constant.get()].push_back({constant, desc, part, *m});
  }
  return m;
}

ThreadScope::ThreadScope(int threads)
    : previous_(current_threads), omp_previous_(omp_get_max_threads()) {
  current_threads = threads > 0 ? threads : AllCores();
  omp_set_num_threads(current_threads);
}

ThreadScope::~ThreadScope() {
  current_threads = previous_;
  omp_set_num_threads(omp_previous_);
}

int KernelThreads() { return current_threads > 0 ? current_threads : AllCores(); }

}  // namespace egret::backend_internal
