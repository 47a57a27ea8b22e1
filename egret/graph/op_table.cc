// The op table's lookups (op_table.h): the rows assembled from their
// families, found by op name (FindOpDef, IsKnownOp, BaseOpName), and what a
// row says about its operands (OpDef's member functions). The rows
// themselves, and the shape functions they name, are written one file per
// op family (ops_<family>.cc, op_rows_internal.h).
#include "egret/graph/op_table.h"

#include <iterator>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "egret/graph/op_rows_internal.h"

namespace egret {
namespace {

using namespace shape_internal;  // NOLINT: the families' row functions

// The rows, in the order of docs/ops.md: family by family, each family's rows
// in the order its file writes them. Every op name of egret is written once,
// in its family's file; other stages refer to the row by name.
std::vector<OpDef> MakeRows() {
  std::vector<OpDef> rows;
  for (std::vector<OpDef> (*family)() :
       {ConvolutionRows, ElementwiseRows, NormalizationRows, DataMovementRows, PoolingRows,
        TypesRows, LogicRows, IndexingRows, SpecialRows}) {
    std::vector<OpDef> family_rows = family();
    rows.insert(rows.end(), std::make_move_iterator(family_rows.begin()),
                std::make_move_iterator(family_rows.end()));
  }
  return rows;
}

const std::vector<OpDef>& Rows() {
  static const std::vector<OpDef>* const kRows = new std::vector<OpDef>(MakeRows());
  return *kRows;
}

}  // namespace

int OpDef::min_inputs() const {
  int n = 0;
  for (const OperandDef& o : operands) n += o.optional ? 0 : 1;
  return n;
}

int OpDef::max_inputs() const {
  if (!operands.empty() && operands.back().variadic) return kVariadic;
  return static_cast<int>(operands.size());
}

std::string OpDef::InputCountText() const {
  const int lo = min_inputs(), hi = max_inputs();
  if (hi == kVariadic) return absl::StrCat(lo, " or more");
  return lo == hi ? absl::StrCat(lo) : absl::StrCat(lo, " to ", hi);
}

bool OpDef::IsParam(int input) const {
  if (input < 0 || operands.empty()) return false;
  if (input < static_cast<int>(operands.size())) return operands[input].param;
  return operands.back().variadic && operands.back().param;
}

ParamForm OpDef::FormOf(int input) const {
  if (!IsParam(input)) return ParamForm::kScalar;
  return input < static_cast<int>(operands.size()) ? operands[input].form : operands.back().form;
}

std::string_view OpDef::InputName(int input) const {
  if (input < 0 || operands.empty()) return {};
  if (input < static_cast<int>(operands.size())) return operands[input].name;
  return operands.back().variadic ? operands.back().name : std::string_view();
}

std::string OpDef::InputNames() const {
  return absl::StrJoin(operands, " ", [](std::string* out, const OperandDef& o) {
    out->append(o.name.data(), o.name.size());
  });
}

std::vector<std::string_view> OpDef::OnnxOps() const {
  std::vector<std::string_view> out;
  if (onnx == "none") return out;
  for (absl::string_view w :
       absl::StrSplit(absl::string_view(onnx.data(), onnx.size()), ' ', absl::SkipEmpty())) {
    out.emplace_back(w.data(), w.size());
  }
  return out;
}

std::string_view BaseOpName(std::string_view op) {
  if (op.empty() || op.front() == '$' || op.front() == '*') return op;
  size_t dot = op.find('.');
  return dot == std::string_view::npos ? op : op.substr(0, dot);
}

const OpDef* FindOpDef(std::string_view op) {
  static const auto* const kByName = [] {
    auto* m = new absl::flat_hash_map<std::string_view, const OpDef*>();
    for (const OpDef& d : Rows()) m->emplace(d.name, &d);
    return m;
  }();
  auto it = kByName->find(BaseOpName(op));
  return it == kByName->end() ? nullptr : it->second;
}

bool IsKnownOp(std::string_view op) { return FindOpDef(op) != nullptr; }

absl::Span<const OpDef> AllOpDefs() { return Rows(); }

}  // namespace egret
