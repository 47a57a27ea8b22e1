// Einsum in its common forms, lowered exactly onto ReduceSum, Transpose,
// Reshape and MatMul: one operand (transposes, sums over dims: "ij->ji",
// "ij->i") or two operands without repeated subscripts in one operand
// (matrix and batch products: "ij,jk", "bij,bjk->bik", "bhqd,bhkd->bhqk",
// "...ij,...jk->...ik" with broadcast batch dims, inner and outer products).
// Diagonals ("ii->i") and three or more operands stay opaque.
//
// Two operands: subscripts only one operand has and the output lacks are
// summed first; the rest are batch (both operands and the output),
// contracted (both operands, not the output) or free (one operand and the
// output). Each operand is transposed to [batch, free, contracted] (the
// right one to [batch, contracted, free]), reshaped to [batch, M, K] and
// [batch, K, N], multiplied, and the product reshaped and transposed to the
// output's order.
#include <cctype>

#include "absl/strings/str_split.h"
#include "egret/onnx/importer_internal.h"

namespace egret::onnx_import {
namespace {

// A label per dim: a letter's character code, or kEllipsis + k for the k-th
// ellipsis dim counted from the last one (so that the operands' ellipses
// align at the end, as numpy broadcasting does).
using Labels = std::vector<int>;
constexpr int kEllipsis = 1000;

bool Contains(const Labels& l, int x) { return std::find(l.begin(), l.end(), x) != l.end(); }

// The labels of one term; `rank` is the operand's rank (the ellipsis takes
// the dims the letters leave), or for the output the ellipsis rank to use.
absl::StatusOr<Labels> ParseTerm(std::string_view term, int rank, bool is_output) {
  Labels letters;
  int ellipsis_at = -1;
  for (size_t i = 0; i < term.size(); ++i) {
    const char ch = term[i];
    if (ch == '.') {
      if (ellipsis_at >= 0 || term.substr(i, 3) != "...") {
        return absl::InvalidArgumentError(
            absl::StrCat("bad ellipsis in '", std::string(term), "'"));
      }
      ellipsis_at = static_cast<int>(letters.size());
      i += 2;
    } else if (std::isalpha(static_cast<unsigned char>(ch))) {
      letters.push_back(ch);
    } else {
      return absl::InvalidArgumentError(
          absl::StrCat("bad subscript '", std::string(1, ch), "' in '", std::string(term), "'"));
    }
  }
  const int n = static_cast<int>(letters.size());
  const int e = ellipsis_at < 0 ? 0 : (is_output ? rank : rank - n);
  if (e < 0 || (!is_output && ellipsis_at < 0 && n != rank)) {
    return absl::InvalidArgumentError(
        absl::StrFormat("term '%s' does not fit a rank-%d operand", term, rank));
  }
  Labels out;
  for (int i = 0; i <= n; ++i) {
    if (i == ellipsis_at) {
      for (int k = e - 1; k >= 0; --k) out.push_back(kEllipsis + k);
    }
    if (i < n) out.push_back(letters[i]);
  }
  return out;
}

bool HasRepeats(const Labels& l) {
  for (size_t i = 0; i < l.size(); ++i) {
    if (std::find(l.begin() + i + 1, l.end(), l[i]) != l.end()) return true;
  }
  return false;
}

// One operand while it is being rearranged.
struct Operand {
  ValueRef ref;
  Labels labels;
  Dims dims;
};

class EinsumLowering {
 public:
  explicit EinsumLowering(Importer& im) : im_(im) {}

  absl::Status Run() {
    std::string eq;
    for (char ch : im_.AttrStr("equation", "")) {
      if (ch != ' ') eq.push_back(ch);
    }
    const int n = im_.cur_->input_size();
    if (n < 1 || n > 2) return Unmapped(absl::StrCat("Einsum of ", n, " operands"));
    const size_t arrow = eq.find("->");
    const std::string lhs = eq.substr(0, arrow);
    std::vector<std::string> terms = absl::StrSplit(lhs, ',');
    if (static_cast<int>(terms.size()) != n) {
      return absl::InvalidArgumentError(
          absl::StrFormat("equation '%s' has %d terms for %d inputs", eq, terms.size(), n));
    }
    std::vector<Operand> ops(n);
    int ellipsis_rank = 0;
    for (int i = 0; i < n; ++i) {
      const Value& v = im_.In(i);
      EGRET_ASSIGN_OR_RETURN(ops[i].labels, ParseTerm(terms[i], v.type.rank(), false));
      if (HasRepeats(ops[i].labels)) return Unmapped("a repeated subscript (a diagonal)");
      ops[i].dims = v.type.dims;
      EGRET_ASSIGN_OR_RETURN(ops[i].ref, im_.Get(im_.InName(i), kPlain));
      for (int l : ops[i].labels) ellipsis_rank = std::max(ellipsis_rank, l - kEllipsis + 1);
    }
    Labels out;
    if (arrow == std::string::npos) {
      // Implicit output: the ellipsis, then the letters used once, sorted.
      for (int k = ellipsis_rank - 1; k >= 0; --k) out.push_back(kEllipsis + k);
      Labels once;
      for (int c = 0; c < 128; ++c) {
        int count = 0;
        for (const Operand& o : ops)
          count += static_cast<int>(std::count(o.labels.begin(), o.labels.end(), c));
        if (count == 1) once.push_back(c);
      }
      out.insert(out.end(), once.begin(), once.end());
    } else {
      EGRET_ASSIGN_OR_RETURN(out, ParseTerm(eq.substr(arrow + 2), ellipsis_rank, true));
    }
    if (HasRepeats(out)) return absl::InvalidArgumentError("the output repeats a subscript");
    for (int l : out) {
      bool found = false;
      for (const Operand& o : ops) found = found || Contains(o.labels, l);
      if (!found) return absl::InvalidArgumentError("an output subscript is in no input");
    }
    // Sum what only one operand has and the output lacks.
    for (int i = 0; i < n; ++i) {
      Labels drop;
      for (int l : ops[i].labels) {
        if (!Contains(out, l) && (n == 1 || !Contains(ops[1 - i].labels, l))) drop.push_back(l);
      }
      EGRET_RETURN_IF_ERROR(Sum(ops[i], drop, absl::StrCat("sum", i)));
    }
    Operand result;
    if (n == 1) {
      result = std::move(ops[0]);
    } else {
      EGRET_ASSIGN_OR_RETURN(result, Product(ops[0], ops[1], out));
    }
    EGRET_RETURN_IF_ERROR(Permute(result, out, "out"));
    im_.SetValue(im_.Out(), result.ref, kPlain);
    return absl::OkStatus();
  }

 private:
  std::string Name(std::string_view what) {
    return absl::StrCat(im_.Out(), "/", std::string(what));
  }

  absl::Status Sum(Operand& o, const Labels& drop, std::string_view what) {
    if (drop.empty()) return absl::OkStatus();
    std::vector<int64_t> axes;
    Operand r;
    for (size_t d = 0; d < o.labels.size(); ++d) {
      if (Contains(drop, o.labels[d])) {
        axes.push_back(static_cast<int64_t>(d));
      } else {
        r.labels.push_back(o.labels[d]);
        r.dims.push_back(o.dims[d]);
      }
    }
    EGRET_ASSIGN_OR_RETURN(
        r.ref, im_.Emit("ReduceSum", {o.ref, im_.ShapeParam(axes), im_.IntConst(0)}, Name(what)));
    o = std::move(r);
    return absl::OkStatus();
  }

  // Transposes o so that its labels are `order` (a permutation of them).
  absl::Status Permute(Operand& o, const Labels& order, std::string_view what) {
    if (o.labels == order) return absl::OkStatus();
    std::vector<int64_t> perm;
    Dims dims;
    for (int l : order) {
      const auto at = std::find(o.labels.begin(), o.labels.end(), l) - o.labels.begin();
      perm.push_back(at);
      dims.push_back(o.dims[at]);
    }
    EGRET_ASSIGN_OR_RETURN(o.ref, im_.Emit("Transpose", {o.ref, im_.ShapeParam(perm)}, Name(what)));
    o.labels = order;
    o.dims = std::move(dims);
    return absl::OkStatus();
  }

  absl::StatusOr<ValueRef> Reshape(ValueRef x, const Dims& dims, std::string_view what) {
    if (im_.g_.TypeOf(x).dims == dims) return x;
    return im_.Emit("Reshape", {x, im_.ShapeParam(std::vector<int64_t>(dims.begin(), dims.end()))},
                    Name(what));
  }

  absl::StatusOr<Operand> Product(Operand a, Operand b, const Labels& out) {
    Labels batch, free_a, free_b, contract;
    for (int l : out) {
      const bool in_a = Contains(a.labels, l), in_b = Contains(b.labels, l);
      (in_a && in_b ? batch : in_a ? free_a : free_b).push_back(l);
    }
    for (int l : a.labels) {
      if (Contains(b.labels, l) && !Contains(out, l)) contract.push_back(l);
    }
    auto dim = [](const Operand& o, int l) {
      return o.dims[std::find(o.labels.begin(), o.labels.end(), l) - o.labels.begin()];
    };
    Dims batch_a, batch_b, batch_out, free_dims;
    int64_t m = 1, k = 1, n = 1;
    for (int l : batch) {
      const int64_t da = dim(a, l), db = dim(b, l);
      if (da != db && da != 1 && db != 1) {
        return absl::InvalidArgumentError("a subscript has different sizes in the operands");
      }
      batch_a.push_back(da);
      batch_b.push_back(db);
      batch_out.push_back(std::max(da, db));
    }
    for (int l : contract) {
      if (dim(a, l) != dim(b, l)) return Unmapped("a summed subscript is broadcast");
      k *= dim(a, l);
    }
    for (int l : free_a) m *= dim(a, l), free_dims.push_back(dim(a, l));
    for (int l : free_b) n *= dim(b, l), free_dims.push_back(dim(b, l));
    Labels order_a = batch, order_b = batch;
    order_a.insert(order_a.end(), free_a.begin(), free_a.end());
    order_a.insert(order_a.end(), contract.begin(), contract.end());
    order_b.insert(order_b.end(), contract.begin(), contract.end());
    order_b.insert(order_b.end(), free_b.begin(), free_b.end());
    EGRET_RETURN_IF_ERROR(Permute(a, order_a, "a"));
    EGRET_RETURN_IF_ERROR(Permute(b, order_b, "b"));
    batch_a.insert(batch_a.end(), {m, k});
    batch_b.insert(batch_b.end(), {k, n});
    EGRET_ASSIGN_OR_RETURN(auto ma, Reshape(a.ref, batch_a, "a2"));
    EGRET_ASSIGN_OR_RETURN(auto mb, Reshape(b.ref, batch_b, "b2"));
    EGRET_ASSIGN_OR_RETURN(auto prod, im_.Emit("MatMul", {ma, mb}, Name("matmul")));
    Operand r;
    r.labels = batch;
    r.labels.insert(r.labels.end(), free_a.begin(), free_a.end());
    r.labels.insert(r.labels.end(), free_b.begin(), free_b.end());
    r.dims = batch_out;
    r.dims.insert(r.dims.end(), free_dims.begin(), free_dims.end());
    EGRET_ASSIGN_OR_RETURN(r.ref, Reshape(prod, r.dims, "product"));
    return r;
  }

  Importer& im_;
};

absl::Status DoEinsum(Importer& im) { return EinsumLowering(im).Run(); }

}  // namespace

void RegisterEinsumHandlers(HandlerTable& t) { t["Einsum"] = DoEinsum; }

}  // namespace egret::onnx_import
