#include "egret/rules/form_table.h"

#include <array>
#include <cstdio>
#include <cstdlib>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "egret/rules/form_table_internal.h"

namespace egret::rules {
namespace {

struct Registry {
  std::array<const FormRow*, kNumExprKinds> by_kind{};
  absl::flat_hash_map<std::string_view, const FormRow*> by_spelling;
  absl::flat_hash_map<std::string_view, const MacroRow*> macros;
};

const Registry& TheRegistry() {
  static const Registry* const kRegistry = [] {
    auto* r = new Registry;
    for (absl::Span<const FormRow> rows : {ConstraintFormRows(), ReplacementFormRows()}) {
      for (const FormRow& row : rows) {
        const size_t k = static_cast<size_t>(row.kind);
        if (k >= kNumExprKinds || r->by_kind[k] != nullptr) {
          std::fprintf(stderr, "form table: row '%s' has a kind out of range or repeated\n",
                       std::string(row.spelling).c_str());
          std::abort();
        }
        r->by_kind[k] = &row;
        if (row.callable()) r->by_spelling.emplace(row.spelling, &row);
      }
    }
    for (const MacroRow& m : MacroRows()) r->macros.emplace(m.spelling, &m);
    return r;
  }();
  return *kRegistry;
}

std::string OneArity(std::string_view signature) {
  auto [min, max] = SignatureArity(signature);
  if (max < 0) return absl::StrCat("at least ", min);
  return absl::StrCat(min);
}

}  // namespace

const FormRow& FormOf(ExprKind kind) {
  const FormRow* row = TheRegistry().by_kind[static_cast<size_t>(kind)];
  if (row == nullptr) {
    std::fprintf(stderr, "form table: ExprKind %d has no row\n", static_cast<int>(kind));
    std::abort();
  }
  return *row;
}

const FormRow* FindForm(std::string_view spelling) {
  const auto& m = TheRegistry().by_spelling;
  auto it = m.find(spelling);
  return it == m.end() ? nullptr : it->second;
}

absl::Span<const FormRow* const> AllForms() { return TheRegistry().by_kind; }

const MacroRow* FindMacro(std::string_view spelling) {
  const auto& m = TheRegistry().macros;
  auto it = m.find(spelling);
  return it == m.end() ? nullptr : it->second;
}

absl::Span<const MacroRow> AllMacros() { return MacroRows(); }

const char* FormRow::SignatureFor(size_t count) const {
  if (signature != nullptr && SignatureFits(signature, count)) return signature;
  if (alt_signature != nullptr && SignatureFits(alt_signature, count)) return alt_signature;
  return nullptr;
}

std::string SignatureArityText(const char* signature, const char* alt) {
  std::string text = OneArity(signature);
  if (alt != nullptr) absl::StrAppend(&text, " or ", OneArity(alt));
  const bool plural = alt != nullptr || SignatureArity(signature).first != 1;
  return absl::StrCat(text, plural ? " operands" : " operand");
}

bool SignatureFits(std::string_view signature, size_t count) {
  auto [min, max] = SignatureArity(signature);
  return count >= min && (max < 0 || count <= static_cast<size_t>(max));
}

std::pair<size_t, int> SignatureArity(std::string_view signature) {
  size_t min = 0;
  bool star = false;
  for (size_t i = 0; i < signature.size(); ++i) {
    if (signature[i] == '*') continue;
    if (i + 1 < signature.size() && signature[i + 1] == '*') {
      star = true;
    } else {
      ++min;
    }
  }
  return {min, star ? -1 : static_cast<int>(min)};
}

char SignatureLetter(std::string_view signature, size_t i, size_t count) {
  // Letters before the starred one are fixed; the starred letter absorbs the
  // surplus; the letters after it are fixed at the end.
  size_t star = signature.find('*');
  if (star == std::string_view::npos) return signature[i];
  size_t before = star - 1;                    // fixed letters before the starred one
  size_t after = signature.size() - star - 1;  // fixed letters after the star
  if (i < before) return signature[i];
  if (i >= count - after) return signature[star + 1 + (i - (count - after))];
  return signature[star - 1];
}

}  // namespace egret::rules
