// TfIdfVectorizer over integer tokens (pool_int64s; a STRING input, whose
// pool is pool_strings, is not supported).
//
// The pool holds n-grams by length: ngram_counts[i] is where the (i+1)-grams
// start in pool_int64s, and ngram_indexes[k] is the output column of the
// pool's k-th n-gram (1-grams first, in pool order). For each row of X ([C]
// or [N, C]) and each n from min_gram_length to max_gram_length, every
// n-gram X[s], X[s + d], ..., X[s + (n - 1) d] inside the row with skip
// distance d from 1 to max_skip_count + 1 that is in the pool adds one to
// its column; 1-grams are counted once (d = 1 only), as ONNX's reference and
// ONNX Runtime count them. mode TF gives the counts, IDF the weight (1
// without weights) where the count is positive, TFIDF count * weight; the
// weight of a column is weights[k] of the pool n-gram k mapped to it (one
// weight per pool n-gram, as ONNX specifies and ONNX Runtime reads them).
#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/str_format.h"
#include "egret/executor/kernels/onnx/onnx_kernels_internal.h"
#include "egret/support/status_macros.h"

namespace egret::backend_internal {
namespace {

using Result = absl::StatusOr<std::vector<Tensor>>;

Result TfIdfVectorizer(const KernelContext& c) {
  EGRET_RETURN_IF_ERROR(NeedInputs(c, 1));
  const OnnxArgs a(c);
  if (a.HasAttr("pool_strings")) return KernelError(c, "string pools are not supported");
  const int64_t min_n = a.Int("min_gram_length", 1), max_n = a.Int("max_gram_length", 1);
  const int64_t max_skip = a.Int("max_skip_count", 0);
  const std::string mode = a.Str("mode", "TF");
  if (mode != "TF" && mode != "IDF" && mode != "TFIDF") {
    return KernelError(c, absl::StrFormat("unknown mode '%s'", mode));
  }
  if (min_n < 1 || max_n < min_n || max_skip < 0) {
    return KernelError(c, "needs 1 <= min_gram_length <= max_gram_length, max_skip_count >= 0");
  }
  const std::vector<int64_t> pool = a.Ints("pool_int64s").value_or(std::vector<int64_t>{});
  const std::vector<int64_t> counts = a.Ints("ngram_counts").value_or(std::vector<int64_t>{});
  const std::vector<int64_t> indexes = a.Ints("ngram_indexes").value_or(std::vector<int64_t>{});
  const std::vector<double> weights = a.Floats("weights").value_or(std::vector<double>{});
  // Each pool n-gram, with its output column.
  std::map<std::vector<int64_t>, int64_t> column;
  int64_t k = 0, columns = 0;
  for (size_t i = 0; i < counts.size(); ++i) {
    const int64_t n = static_cast<int64_t>(i) + 1;
    const int64_t begin = counts[i];
    const int64_t end = i + 1 < counts.size() ? counts[i + 1] : static_cast<int64_t>(pool.size());
    if (begin < 0 || end < begin || end > static_cast<int64_t>(pool.size()) ||
        (end - begin) % n != 0) {
      return KernelError(c, "ngram_counts does not fit pool_int64s");
    }
    for (int64_t p = begin; p < end; p += n, ++k) {
      if (k >= static_cast<int64_t>(indexes.size()) || indexes[k] < 0) {
        return KernelError(c, "ngram_indexes does not give every pool n-gram a column");
      }
      column[std::vector<int64_t>(pool.begin() + p, pool.begin() + p + n)] = indexes[k];
      columns = std::max(columns, indexes[k] + 1);
    }
  }
  for (int64_t x : indexes) columns = std::max(columns, x + 1);
  const Dims& xd = c.InDims(0);
  if (xd.size() != 1 && xd.size() != 2) return KernelError(c, "input must be [C] or [N, C]");
  const int64_t rows = xd.size() == 2 ? xd[0] : 1, width = xd.back();
  Dims out_dims = xd.size() == 2 ? Dims{rows, columns} : Dims{columns};
  EGRET_RETURN_IF_ERROR(CheckOnnxOutput(c, 0, out_dims));
  if (!weights.empty() && weights.size() != indexes.size()) {
    return KernelError(c, "weights must have one value per pool n-gram");
  }
  const std::vector<int64_t> x = ReadInts(c.In(0));
  std::vector<double> out(static_cast<size_t>(rows * columns), 0.0);
  std::vector<int64_t> gram;
  for (int64_t r = 0; r < rows; ++r) {
    const int64_t* row = x.data() + r * width;
    for (int64_t n = min_n; n <= max_n; ++n) {
      const int64_t skips = n == 1 ? 0 : max_skip;
      for (int64_t d = 1; d <= skips + 1; ++d) {
        for (int64_t s = 0; s + (n - 1) * d < width; ++s) {
          gram.clear();
          for (int64_t j = 0; j < n; ++j) gram.push_back(row[s + j * d]);
          auto it = column.find(gram);
          if (it != column.end()) out[r * columns + it->second] += 1.0;
        }
      }
    }
  }
  if (mode != "TF") {
    // The weight of a column is that of the pool n-gram mapped to it.
    std::vector<double> w(static_cast<size_t>(columns), 1.0);
    if (!weights.empty()) {
      for (size_t k = 0; k < indexes.size(); ++k) w[indexes[k]] = weights[k];
    }
    for (size_t i = 0; i < out.size(); ++i) {
      const double wi = w[i % static_cast<size_t>(columns)];
      out[i] = mode == "IDF" ? (out[i] > 0 ? wi : 0.0) : out[i] * wi;
    }
  }
  std::vector<Tensor> result;
  EGRET_ASSIGN_OR_RETURN(Tensor t, OnnxOutput(c, 0, out_dims, out));
  result.push_back(std::move(t));
  return result;
}

}  // namespace

void RegisterOnnxTextKernels(KernelTable& t) { t.emplace("onnx.TfIdfVectorizer", TfIdfVectorizer); }

}  // namespace egret::backend_internal
