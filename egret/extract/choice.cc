#include "egret/extract/choice.h"

namespace egret::extract {

std::vector<ClassId> ReachableClasses(const ExtractionProblem& p, const Choice& choice) {
  std::vector<char> seen(p.num_classes(), 0);
  std::vector<ClassId> out;
  std::vector<ClassId> stack;
  for (auto it = p.roots().rbegin(); it != p.roots().rend(); ++it) stack.push_back(*it);
  while (!stack.empty()) {
    ClassId c = stack.back();
    stack.pop_back();
    if (seen[c]) continue;
    seen[c] = 1;
    out.push_back(c);
    ENodeId n = choice.node[c];
    if (n == kNoENode) continue;
    auto kids = p.children(n);
    for (auto it = kids.rbegin(); it != kids.rend(); ++it) {
      if (!seen[*it]) stack.push_back(*it);
    }
  }
  return out;
}

double DagCost(const ExtractionProblem& p, const Choice& choice) {
  double total = 0;
  for (ClassId c : ReachableClasses(p, choice)) {
    if (choice.node[c] != kNoENode) total += p.cost(choice.node[c]);
  }
  return total;
}

double TreeCost(const ExtractionProblem& p, const Choice& choice) {
  // Post-order memoised evaluation (iterative: e-graphs can be deep).
  std::vector<double> memo(p.num_classes(), 0);
  std::vector<char> state(p.num_classes(), 0);  // 0 new, 1 open, 2 done
  std::vector<ClassId> stack;
  double total = 0;
  for (ClassId r : p.roots()) {
    stack.push_back(r);
    while (!stack.empty()) {
      ClassId c = stack.back();
      ENodeId n = choice.node[c];
      if (state[c] == 2 || n == kNoENode) {
        stack.pop_back();
        continue;
      }
      if (state[c] == 0) {
        state[c] = 1;
        for (ClassId ch : p.children(n)) {
          if (state[ch] == 0) stack.push_back(ch);
        }
        continue;
      }
      double sum = p.cost(n);
      for (ClassId ch : p.children(n)) sum += memo[ch];  // a cycle would read a partial 0
      memo[c] = sum;
      state[c] = 2;
      stack.pop_back();
    }
    total += memo[r];
  }
  return total;
}

Choice RestrictToReachable(const ExtractionProblem& p, const Choice& choice) {
  Choice out(p.num_classes());
  for (ClassId c : ReachableClasses(p, choice)) out.node[c] = choice.node[c];
  return out;
}

}  // namespace egret::extract
