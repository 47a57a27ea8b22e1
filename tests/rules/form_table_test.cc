// Walks the rule language's form registry (egret/rules/form_table.h) and its
// evaluator half (egret/rules_compile/form_evaluators_internal.h): every form has one row with
// a spelling, a well-formed signature and typing, the evaluator or builder its
// category needs, and a place in docs/rule-language.md.
#include "egret/rules/form_table.h"

#include <algorithm>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <utility>

#include "egret/rules_compile/form_evaluators_internal.h"
#include "gtest/gtest.h"

namespace egret::rules {
namespace {

std::string Name(const FormRow& row) { return std::string(row.spelling); }

// The letters of a signature are known, a '*' follows a letter, and at most
// one letter is starred.
bool WellFormed(const char* signature) {
  const std::string s = signature;
  int stars = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '*') {
      if (i == 0 || s[i - 1] == '*') return false;
      ++stars;
      continue;
    }
    if (std::string("egsotni").find(s[i]) == std::string::npos) return false;
  }
  return stars <= 1;
}

size_t ExpressionLetters(const char* signature) {
  size_t n = 0;
  for (const char* c = signature; *c != '\0'; ++c) n += *c == 'e' || *c == 'g';
  return n;
}

TEST(FormTableTest, EveryKindHasItsRow) {
  ASSERT_EQ(AllForms().size(), kNumExprKinds);
  for (size_t k = 0; k < kNumExprKinds; ++k) {
    const FormRow* row = AllForms()[k];
    ASSERT_NE(row, nullptr) << "ExprKind " << k << " has no row in forms_*.cc";
    EXPECT_EQ(static_cast<size_t>(row->kind), k) << Name(*row);
    EXPECT_FALSE(row->spelling.empty()) << "ExprKind " << k;
    EXPECT_EQ(ExprKindName(row->kind), row->spelling);
  }
}

TEST(FormTableTest, SpellingsAreUniqueAndFound) {
  std::set<std::string> seen;
  for (const FormRow* row : AllForms()) {
    EXPECT_TRUE(seen.insert(Name(*row)).second) << "two forms spelled " << Name(*row);
    if (row->callable()) {
      EXPECT_EQ(FindForm(row->spelling), row) << Name(*row);
    } else {
      EXPECT_EQ(FindForm(row->spelling), nullptr) << "literal " << Name(*row) << " is callable";
    }
  }
  for (const MacroRow& m : AllMacros()) {
    const std::string name(m.spelling);
    EXPECT_TRUE(seen.insert(name).second) << "a macro and a form are both spelled " << name;
    EXPECT_EQ(FindMacro(m.spelling), &m) << name;
  }
  EXPECT_EQ(FindForm("NO_SUCH_FORM"), nullptr);
  EXPECT_EQ(FindMacro("DIM_OF"), nullptr);
}

TEST(FormTableTest, SignaturesAndTypingAreComplete) {
  for (const FormRow* row : AllForms()) {
    const FormTyping& t = row->typing;
    SCOPED_TRACE(Name(*row));
    if (row->callable()) {
      EXPECT_TRUE(WellFormed(row->signature)) << row->signature;
      if (row->alt_signature != nullptr) {
        EXPECT_TRUE(WellFormed(row->alt_signature)) << row->alt_signature;
      }
      // Operand rules cover expression operands only.
      size_t most = ExpressionLetters(row->signature);
      if (row->alt_signature != nullptr) {
        most = std::max(most, ExpressionLetters(row->alt_signature));
      }
      EXPECT_LE(t.num_operands, most);
    } else {
      EXPECT_EQ(row->alt_signature, nullptr);
      EXPECT_EQ(t.num_operands, 0);
    }
    // The result type is stated, computed (kPromoted) or left to the custom typing.
    const bool typed =
        t.custom != nullptr || t.result == ResultRule::kPromoted || t.type != Type::kInvalid;
    EXPECT_TRUE(typed) << "no typing";
    if (row->category == FormCategory::kReplacement && t.custom == nullptr) {
      EXPECT_NE(t.type, Type::kInvalid);
      EXPECT_NE(t.result, ResultRule::kPromoted) << "a replacement form is not a number";
    }
  }
  for (const MacroRow& m : AllMacros()) {
    SCOPED_TRACE(std::string(m.spelling));
    EXPECT_TRUE(WellFormed(m.signature)) << m.signature;
    EXPECT_NE(m.expand, nullptr);
  }
}

TEST(FormTableTest, EveryFormHasTheEvaluatorsItsCategoryNeeds) {
  for (const FormRow* row : AllForms()) {
    SCOPED_TRACE(Name(*row));
    const GuardEvaluator* guard = GuardEvaluatorOf(row->kind);
    const bool scalar = guard != nullptr && guard->scalar != nullptr;
    const bool ref = guard != nullptr && guard->ref != nullptr;
    const bool build = BuilderOf(row->kind) != nullptr;
    switch (row->category) {
      case FormCategory::kConstraint:
        EXPECT_TRUE(scalar) << "no guard scalar evaluator (evaluators_constraint.cc)";
        EXPECT_FALSE(build) << "a constraint value is not built";
        break;
      case FormCategory::kReference:
        EXPECT_TRUE(ref) << "no guard reference evaluator (evaluators_constraint.cc)";
        EXPECT_TRUE(build) << "no builder (evaluators_replacement.cc)";
        break;
      case FormCategory::kSelect:
        EXPECT_TRUE(scalar && ref && build) << "SELECT needs all three evaluators";
        break;
      case FormCategory::kReplacement:
        EXPECT_TRUE(build) << "no builder (evaluators_replacement.cc)";
        EXPECT_FALSE(scalar) << "a replacement form is not a constraint value";
        break;
    }
  }
}

TEST(FormTableTest, EvaluatorRowsAreOnePerForm) {
  std::set<ExprKind> guard, build;
  for (const GuardEvaluator& g : AllGuardEvaluators()) {
    EXPECT_TRUE(guard.insert(g.kind).second) << "two guard rows for " << ExprKindName(g.kind);
    EXPECT_TRUE(g.scalar != nullptr || g.ref != nullptr) << ExprKindName(g.kind);
  }
  for (const FormBuilder& b : AllFormBuilders()) {
    EXPECT_TRUE(build.insert(b.kind).second) << "two builder rows for " << ExprKindName(b.kind);
    EXPECT_NE(b.build, nullptr) << ExprKindName(b.kind);
  }
}

// docs/rule-language.md names every callable form and every grammar macro in
// backquotes (its tables of forms and macros).
TEST(FormTableTest, DocsListEverySpelling) {
  std::ifstream in(std::string(EGRET_SOURCE_DIR) + "/docs/rule-language.md");
  ASSERT_TRUE(in) << "cannot read docs/rule-language.md";
  std::stringstream text;
  text << in.rdbuf();
  const std::string doc = text.str();
  for (const FormRow* row : AllForms()) {
    if (!row->callable()) continue;
    EXPECT_NE(doc.find("`" + Name(*row) + "`"), std::string::npos)
        << "docs/rule-language.md does not list form " << Name(*row);
  }
  for (const MacroRow& m : AllMacros()) {
    const std::string name(m.spelling);
    EXPECT_NE(doc.find("`" + name + "`"), std::string::npos)
        << "docs/rule-language.md does not list macro " << name;
  }
}

TEST(FormTableTest, SignatureHelpers) {
  EXPECT_EQ(SignatureArity("ee*"), (std::pair<size_t, int>{1, -1}));
  EXPECT_EQ(SignatureArity("etee"), (std::pair<size_t, int>{4, 4}));
  EXPECT_TRUE(SignatureFits("nge*", 2));
  EXPECT_FALSE(SignatureFits("nge*", 1));
  EXPECT_EQ(SignatureLetter("nge*", 4, 5), 'e');
  EXPECT_EQ(SignatureLetter("eese*", 2, 4), 's');
  EXPECT_EQ(SignatureArityText("ee", "eee"), "2 or 3 operands");
  EXPECT_EQ(SignatureArityText("e", nullptr), "1 operand");
  EXPECT_EQ(SignatureArityText("se*", nullptr), "at least 1 operand");
  const FormRow* constval = FindForm("CONSTVAL_INT");
  ASSERT_NE(constval, nullptr);
  EXPECT_STREQ(constval->SignatureFor(3), "eee");
  EXPECT_EQ(constval->SignatureFor(4), nullptr);
}

}  // namespace
}  // namespace egret::rules
