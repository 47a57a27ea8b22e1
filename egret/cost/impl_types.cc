#include "egret/cost/impl_types.h"

#include <algorithm>
#include <cctype>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"

namespace egret::cost {
namespace {

struct KnownType {
  std::string_view name;  // without "5D"/"6D" and "_TCM"
  DType dtype;
  TensorLayout layout;
};

constexpr TensorLayout kPlain = TensorLayout::kPlain;
constexpr TensorLayout kBlocked = TensorLayout::kBlocked;

// The HTP tensor types egret knows (the naming scheme is in the header).
constexpr KnownType kKnownTypes[] = {
    // Plain (flat) layouts.
    {"PlainFloatTensor", DType::kFloat32, kPlain},
    {"PlainFloatContiguousTensor", DType::kFloat32, kPlain},
    {"PlainFloat16Tensor", DType::kFloat16, kPlain},
    {"F16WeightsTensor", DType::kFloat16, kPlain},
    {"QuantUint8Tensor", DType::kQUInt8, kPlain},
    {"QuantInt8Tensor", DType::kQInt8, kPlain},
    {"QuantUint16Tensor", DType::kQUInt16, kPlain},
    {"QuantInt16Tensor", DType::kQInt16, kPlain},
    {"QuantInt32Tensor", DType::kQInt32, kPlain},
    // 4-bit weights (egret's names: the SDK's headers name no such tensor
    // type; its int4 guideline lists the ops that take int4 weights).
    {"QuantUint4Tensor", DType::kQUInt4, kPlain},
    {"QuantInt4Tensor", DType::kQInt4, kPlain},
    {"Int32Tensor", DType::kInt32, kPlain},
    {"Int64Tensor", DType::kInt64, kPlain},
    // Blocked layouts: croutons (and their wide and 4x1/2x2 variants) and
    // depth-32 blocks, all of a rank-4 NHWC tensor.
    {"FloatCroutonTensor", DType::kFloat32, kBlocked},
    {"D32FloatTensor", DType::kFloat32, kBlocked},
    {"D32PaddedFloatTensor", DType::kFloat32, kBlocked},
    {"F16CroutonTensor", DType::kFloat16, kBlocked},
    {"QUint8CroutonTensor", DType::kQUInt8, kBlocked},
    {"QUint8Crouton4x1Tensor", DType::kQUInt8, kBlocked},
    {"QUint8Crouton2x2Tensor", DType::kQUInt8, kBlocked},
    {"QUint8WideCroutonTensor", DType::kQUInt8, kBlocked},
    {"QUint8WideCrouton2x2Tensor", DType::kQUInt8, kBlocked},
    {"QInt8CroutonTensor", DType::kQInt8, kBlocked},
    {"QUint16CroutonTensor", DType::kQUInt16, kBlocked},
    {"QInt16CroutonTensor", DType::kQInt16, kBlocked},
    {"QInt32CroutonTensor", DType::kQInt32, kBlocked},
    {"QInt32WideCroutonTensor", DType::kQInt32, kBlocked},
    {"Int32CroutonTensor", DType::kInt32, kBlocked},
};

bool IsIdentStart(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool IsIdentChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// Removes `suffix` from the end of *s; whether it was there.
bool DropSuffix(std::string_view* s, std::string_view suffix) {
  if (!s->ends_with(suffix)) return false;
  s->remove_suffix(suffix.size());
  return true;
}

// `name` without a trailing "_TCM" and then "5D"/"6D".
std::string_view StripVariant(std::string_view name) {
  DropSuffix(&name, "_TCM");
  if (!DropSuffix(&name, "5D")) DropSuffix(&name, "6D");
  return name;
}

// A tensor type name: "...Tensor" with an optional "5D"/"6D" and "_TCM".
bool IsTensorTypeName(std::string_view name) { return StripVariant(name).ends_with("Tensor"); }

std::string DescribeDTypes(const std::vector<DType>& dtypes) {
  return absl::StrJoin(dtypes, "/", [](std::string* out, DType d) { out->append(DTypeName(d)); });
}

bool Contains(absl::Span<const DType> v, DType d) {
  return std::find(v.begin(), v.end(), d) != v.end();
}

// The dtype check of IsEligible: o in D and D within {o} and the operands'.
bool DTypesFit(const ImplTypes& impl, const NodeTypes& node) {
  if (!Contains(impl.dtypes, node.output)) return false;
  for (DType d : impl.dtypes) {
    if (d != node.output && !Contains(node.data, d)) return false;
  }
  return true;
}

}  // namespace

HtpTensorType HtpTensorTypeOf(std::string_view name) {
  if (size_t colon = name.rfind("::"); colon != std::string_view::npos) {
    name.remove_prefix(colon + 2);
  }
  HtpTensorType t;
  if (name == "Tensor") {
    t.known = true;
    return t;
  }
  const std::string_view base = StripVariant(name);
  for (const KnownType& k : kKnownTypes) {
    if (k.name == base) {
      t.dtype = k.dtype;
      t.layout = k.layout;
      t.known = true;
      break;
    }
  }
  return t;
}

std::vector<std::string> TemplateArgumentNames(std::string_view impl) {
  std::vector<std::string> names;
  int depth = 0;
  size_t i = 0;
  while (i < impl.size()) {
    const char c = impl[i];
    if (c == '<') {
      ++depth;
      ++i;
    } else if (c == '>') {
      if (depth > 0) --depth;
      ++i;
    } else if (IsIdentStart(c)) {
      size_t j = i;
      while (j < impl.size() && IsIdentChar(impl[j])) ++j;
      std::string_view ident = impl.substr(i, j - i);
      // Skip blanks to see whether a "::" qualifies what follows.
      size_t k = j;
      while (k < impl.size() && std::isspace(static_cast<unsigned char>(impl[k]))) ++k;
      const bool qualifier = impl.substr(k, 2) == "::";
      if (depth > 0 && !qualifier) names.emplace_back(ident);
      i = qualifier ? k + 2 : j;
    } else if (std::isdigit(static_cast<unsigned char>(c))) {
      // A number (and its suffix: 3u, 1.5f, 0x10) is not an identifier.
      while (i < impl.size() && (IsIdentChar(impl[i]) || impl[i] == '.')) ++i;
    } else {
      ++i;
    }
  }
  return names;
}

std::string ImplTypes::Describe() const {
  if (dtypes.empty()) return "any dtype";
  return absl::StrCat(DescribeDTypes(dtypes), blocked ? " crouton" : "");
}

ImplTypes ImplTypesOf(std::string_view impl) {
  ImplTypes out;
  for (const std::string& name : TemplateArgumentNames(impl)) {
    if (!IsTensorTypeName(name)) continue;
    const HtpTensorType t = HtpTensorTypeOf(name);
    if (!t.known) {
      if (std::find(out.unknown.begin(), out.unknown.end(), name) == out.unknown.end()) {
        out.unknown.push_back(name);
      }
      continue;
    }
    if (t.dtype && !Contains(out.dtypes, *t.dtype)) out.dtypes.push_back(*t.dtype);
    out.blocked |= t.layout == TensorLayout::kBlocked;
  }
  return out;
}

bool HtpHasDType(DType d) {
  return d != DType::kFloat64 && d != DType::kUInt32 && d != DType::kUInt64 &&
         d != DType::kBFloat16;
}

std::optional<DType> NonHtpDType(const NodeTypes& node) {
  if (!HtpHasDType(node.output)) return node.output;
  for (DType d : node.data) {
    if (!HtpHasDType(d)) return d;
  }
  return std::nullopt;
}

bool IsEligible(const ImplTypes& impl, const NodeTypes& node) {
  if (impl.generic() || !IsConcrete(node.output)) return true;
  if (!DTypesFit(impl, node)) return false;
  return !impl.blocked || node.max_rank <= kMaxBlockedRank;
}

std::string IneligibleReason(std::string_view op, absl::Span<const ImplTypes* const> registered,
                             const NodeTypes& node) {
  std::vector<std::string> kinds;
  bool declares_output = false, types_fit = false;
  for (const ImplTypes* t : registered) {
    std::string d = t->Describe();
    if (std::find(kinds.begin(), kinds.end(), d) == kinds.end()) kinds.push_back(std::move(d));
    declares_output |= t->generic() || Contains(t->dtypes, node.output);
    types_fit |= t->generic() || DTypesFit(*t, node);
  }
  const std::string list = absl::StrJoin(kinds, ", ");
  const std::string_view out = DTypeName(node.output);
  if (!declares_output) {
    return absl::StrFormat("no %s implementation of %s (registered: %s)", out, op, list);
  }
  if (!types_fit) {
    std::vector<DType> operands;
    for (DType d : node.data) {
      if (!Contains(operands, d)) operands.push_back(d);
    }
    return absl::StrFormat("no implementation of %s for %s from %s (registered: %s)", op, out,
                           operands.empty() ? "no operands" : DescribeDTypes(operands), list);
  }
  return absl::StrFormat(
      "no implementation of %s for rank-%d %s tensors (registered: %s; crouton implementations "
      "take rank <= %d)",
      op, node.max_rank, out, list, kMaxBlockedRank);
}

}  // namespace egret::cost
