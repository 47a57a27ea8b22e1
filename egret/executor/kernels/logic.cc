// Comparisons, logic and selection: ElementWiseEqual .. ElementWiseNot, and
// ElementWiseSelect, with numpy broadcasting.
#include <cmath>
#include <cstring>

#include "egret/executor/kernels/kernels_internal.h"

namespace egret::backend_internal {
namespace {

using Result = absl::StatusOr<std::vector<Tensor>>;

// out[i] = f(a[.], b[.]) ? 1 : 0 over the broadcast of a and b, as a Bool
// (or the declared) output. Integer operands compare exactly (a double
// would merge Int64 and UInt64 values above 2^53); others as real values.
template <typename F>
Result Compare(const KernelContext& c, F f) {
  const Dims& od = c.outputs[0].dims;
  const std::vector<int64_t> ia = BroadcastSources(c.InDims(0), od);
  const std::vector<int64_t> ib = BroadcastSources(c.InDims(1), od);
  std::vector<double> out(ia.size());
  if (IsPlainInteger(c.In(0).type().dtype) && IsPlainInteger(c.In(1).type().dtype)) {
    const std::vector<__int128> a = ReadIntegers(c.In(0)), b = ReadIntegers(c.In(1));
    for (size_t i = 0; i < out.size(); ++i) out[i] = f(a[ia[i]], b[ib[i]]) ? 1 : 0;
  } else {
    const std::vector<double> a = ReadReals(c.In(0)), b = ReadReals(c.In(1));
    for (size_t i = 0; i < out.size(); ++i) out[i] = f(a[ia[i]], b[ib[i]]) ? 1 : 0;
  }
  std::vector<Tensor> result;
  result.push_back(MakeTensor(c.outputs[0], out));
  return result;
}

Result Equal(const KernelContext& c) {
  return Compare(c, [](auto x, auto y) { return x == y; });
}
Result NotEqual(const KernelContext& c) {
  return Compare(c, [](auto x, auto y) { return x != y; });
}
Result Less(const KernelContext& c) {
  return Compare(c, [](auto x, auto y) { return x < y; });
}
Result LessEqual(const KernelContext& c) {
  return Compare(c, [](auto x, auto y) { return x <= y; });
}
Result Greater(const KernelContext& c) {
  return Compare(c, [](auto x, auto y) { return x > y; });
}
Result GreaterEqual(const KernelContext& c) {
  return Compare(c, [](auto x, auto y) { return x >= y; });
}
// The logic ops have Bool operands (their shape function checks it); any
// non-zero value counts as true.
Result And(const KernelContext& c) {
  return Compare(c, [](auto x, auto y) { return x != 0 && y != 0; });
}
Result Or(const KernelContext& c) {
  return Compare(c, [](auto x, auto y) { return x != 0 || y != 0; });
}
Result Xor(const KernelContext& c) {
  return Compare(c, [](auto x, auto y) { return (x != 0) != (y != 0); });
}

Result Not(const KernelContext& c) {
  return MapUnary(c, [](double x) { return x != 0 ? 0.0 : 1.0; });
}

// out = condition ? a : b. Both branches are first gathered into the output
// type (bytes copied when the types agree), then merged per element.
Result Select(const KernelContext& c) {
  const TensorType& ot = c.outputs[0];
  const std::vector<int64_t> ic = BroadcastSources(c.InDims(0), ot.dims);
  const Tensor a = TakeElements(c.In(1), ot, BroadcastSources(c.InDims(1), ot.dims));
  const Tensor b = TakeElements(c.In(2), ot, BroadcastSources(c.InDims(2), ot.dims));
  const std::vector<double> cond = ReadReals(c.In(0));
  const size_t es = static_cast<size_t>(ElementSize(ot.dtype));
  Tensor out(ot);
  uint8_t* bytes = out.mutable_bytes().data();
  for (size_t i = 0; i < ic.size(); ++i) {
    const Tensor& src = cond[ic[i]] != 0 ? a : b;
    std::memcpy(bytes + i * es, src.bytes().data() + i * es, es);
  }
  std::vector<Tensor> result;
  result.push_back(std::move(out));
  return result;
}

}  // namespace

std::vector<int64_t> BroadcastSources(const Dims& in, const Dims& out) {
  const size_t rank = out.size();
  const std::vector<int64_t> stride = BroadcastStrides(in, out);
  int64_t n = 1;
  for (int64_t d : out) n *= d;
  std::vector<int64_t> src(static_cast<size_t>(n));
  std::vector<int64_t> idx(rank, 0);
  int64_t off = 0;
  for (int64_t i = 0; i < n; ++i) {
    src[i] = off;
    for (int d = static_cast<int>(rank) - 1; d >= 0; --d) {
      ++idx[d];
      off += stride[d];
      if (idx[d] < out[d]) break;
      off -= stride[d] * out[d];
      idx[d] = 0;
    }
  }
  return src;
}

void RegisterLogicKernels(KernelTable& t) {
  t.emplace("ElementWiseEqual", Equal);
  t.emplace("ElementWiseNotEqual", NotEqual);
  t.emplace("ElementWiseLess", Less);
  t.emplace("ElementWiseLessEqual", LessEqual);
  t.emplace("ElementWiseGreater", Greater);
  t.emplace("ElementWiseGreaterEqual", GreaterEqual);
  t.emplace("ElementWiseAnd", And);
  t.emplace("ElementWiseOr", Or);
  t.emplace("ElementWiseXor", Xor);
  t.emplace("ElementWiseNot", Not);
  t.emplace("ElementWiseSelect", Select);
}

}  // namespace egret::backend_internal
