#include "egret/extract/validate.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"

namespace egret::extract {

absl::Status ValidateChoice(const ExtractionProblem& p, const Choice& choice) {
  if (choice.node.size() != p.num_classes()) {
    return absl::FailedPreconditionError(absl::StrCat(
        "choice has ", choice.node.size(), " entries for ", p.num_classes(), " classes"));
  }
  for (ClassId c = 0; c < p.num_classes(); ++c) {
    ENodeId n = choice.node[c];
    if (n != kNoENode && (n >= p.num_nodes() || p.node_class(n) != c)) {
      return absl::FailedPreconditionError(
          absl::StrCat("class '", p.class_name(c), "' chooses a node of another class"));
    }
  }
  // Iterative DFS with colours: 1 on the current path, 2 finished.
  std::vector<char> colour(p.num_classes(), 0);
  std::vector<std::pair<ClassId, uint32_t>> stack;  // class, next child position
  for (ClassId r : p.roots()) {
    if (choice.node[r] == kNoENode) {
      return absl::FailedPreconditionError(
          absl::StrCat("root class '", p.class_name(r), "' has no choice"));
    }
    if (colour[r] != 0) continue;
    colour[r] = 1;
    stack.push_back({r, 0});
    while (!stack.empty()) {
      auto& [c, k] = stack.back();
      auto kids = p.children(choice.node[c]);
      if (k == kids.size()) {
        colour[c] = 2;
        stack.pop_back();
        continue;
      }
      ClassId ch = kids[k++];
      if (colour[ch] == 1) {
        return absl::FailedPreconditionError(
            absl::StrCat("the choice has a cycle through class '", p.class_name(ch), "'"));
      }
      if (colour[ch] == 2) continue;
      if (choice.node[ch] == kNoENode) {
        return absl::FailedPreconditionError(
            absl::StrCat("class '", p.class_name(ch), "' is used by node '",
                         p.node_name(choice.node[c]), "' but has no choice"));
      }
      colour[ch] = 1;
      stack.push_back({ch, 0});
    }
  }
  return absl::OkStatus();
}

}  // namespace egret::extract
