// The paths of a compiled pattern from each of its places up to its root,
// and the walk that follows them from a set of classes upwards: where an
// incremental search looks for the matches a change can make.
//
// A match binds each op node of the pattern to an e-node and each variable
// to a class; a node bound below the root is an operand, at a fixed index, of
// the node bound to its parent in the pattern. So when a class X changes,
// the roots of the matches that bind X at a place of the pattern (an op node
// whose e-node is in X, or a variable bound to X) are among the classes
// reached from X by walking up that place's path: from X to each parent
// e-node that has the path step's op and X at the step's operand index, to
// that e-node's class, and so on up to the root. That is usually far fewer
// classes than all those within the pattern's depth of X (any parent, any
// operand, any op), which is what a search without the paths must visit.
//
// The walk reads the classes' parent lists and the parents' records as of
// the last rebuild (EGraph::ClassParents, EGraph::Node); it reaches a
// superset of those roots (a repeated variable or a payload is not
// checked against the match), each once per walk.
#ifndef EGRET_EGRAPH_PATTERN_PATHS_H_
#define EGRET_EGRAPH_PATTERN_PATHS_H_

#include <cstdint>
#include <vector>

#include "absl/types/span.h"
#include "egret/egraph/egraph.h"
#include "egret/egraph/pattern.h"

namespace egret {

// One step up: to a parent e-node of op `op` whose operand `operand` is the
// class stepped from (for a variadic op, one of its first operands).
struct PathStep {
  Symbol op;
  uint16_t operand = 0;
};

// The path from one place of a pattern to its root.
struct PatternPath {
  // The place: an op node (`var` false; a class holds it when it has a
  // node of `op`) or a variable's occurrence (`var` true: any class).
  bool var = false;
  Symbol op;
  // From the place's parent up to the root: empty for the root itself.
  std::vector<PathStep> up;
};

// A path for each op node of `pattern` (pre-order, the root's first) and
// each occurrence of a variable, without repeats (two places with the same
// kind, op and steps share one path). Empty for a pattern whose root is a
// variable (every class is a root).
std::vector<PatternPath> PatternPaths(const CompiledPattern& pattern);

// Walks paths up from sets of classes and collects the roots reached.
class PathWalker {
 public:
  // Begins a set of roots (none yet) for an e-graph of `num_ids` class ids.
  void Begin(size_t num_ids);
  // Adds the roots reached from the canonical classes `from` along `path`,
  // each root once per Begin. For an op place, `from` holds only classes
  // with a node of path.op (not checked).
  void Walk(const EGraph& g, const PatternPath& path, absl::Span<const Id> from);
  // The roots added since Begin, in the order first reached.
  const std::vector<Id>& roots() const { return roots_; }
  // Whether class c is one of them.
  bool Reached(Id c) const {
    return (c >> 6) < root_bits_.size() && ((root_bits_[c >> 6] >> (c & 63)) & 1) != 0;
  }
  // Bytes held (for the runner's memory accounting).
  size_t MemoryBytes() const {
    return (marks_.capacity() + roots_.capacity() + level_.capacity() + next_.capacity()) *
               sizeof(uint32_t) +
           root_bits_.capacity() * sizeof(uint64_t);
  }

 private:
  // By class id: the stamp of the walk level that reached it; and a bit
  // set when it is among roots_ (cleared by Begin).
  std::vector<uint32_t> marks_;
  std::vector<uint64_t> root_bits_;
  uint32_t stamp_ = 0;
  std::vector<Id> roots_, level_, next_;
  // A fresh stamp for marks_ (clearing the marks when it wraps around).
  uint32_t NextStamp();
};

}  // namespace egret

#endif  // EGRET_EGRAPH_PATTERN_PATHS_H_
