// A compact, generic extraction problem: e-classes, the e-nodes of each class
// (an op, a cost and child classes) and the root classes. It is what every
// extractor reads; it is filled from egraph-serialize JSON
// (egret/extract/egraph_serialize.h) or from an in-memory e-graph.
#ifndef EGRET_EXTRACT_PROBLEM_H_
#define EGRET_EXTRACT_PROBLEM_H_

#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"

namespace egret::extract {

// Dense indices. A node's index is its position in the problem (nodes of a
// class are contiguous, in the order they were added). ENodeId is an
// e-node of the extraction problem, not a graph node (egret::NodeId).
using ClassId = uint32_t;
using ENodeId = uint32_t;
inline constexpr ENodeId kNoENode = std::numeric_limits<ENodeId>::max();

// Immutable after ExtractionProblemBuilder::Build(). Node indices are grouped
// by class: class c owns nodes [class_begin(c), class_end(c)). Ties between
// equally good choices are broken by the smaller node index everywhere.
class ExtractionProblem {
 public:
  size_t num_classes() const { return class_nodes_.empty() ? 0 : class_nodes_.size() - 1; }
  size_t num_nodes() const { return node_class_.size(); }

  // The user's name of a class / node (e.g. the JSON ids), kept for output.
  // A node added without a name is "<class name>.<k>" for the k-th node of
  // its class, made when asked (names are only read for output and errors,
  // so they are kept in pools rather than a string per class and node).
  std::string class_name(ClassId c) const { return std::string(ClassNameView(c)); }
  std::string node_name(ENodeId n) const;

  ENodeId class_begin(ClassId c) const { return class_nodes_[c]; }
  ENodeId class_end(ClassId c) const { return class_nodes_[c + 1]; }
  size_t class_size(ClassId c) const { return class_end(c) - class_begin(c); }

  ClassId node_class(ENodeId n) const { return node_class_[n]; }
  // The op's name, from a table of the distinct ops (the op names repeat).
  const std::string& op(ENodeId n) const { return op_names_[op_of_[n]]; }
  double cost(ENodeId n) const { return costs_[n]; }
  // Raises node n's cost to `cost` (finite, at least the old cost): for a
  // caller whose pricing of n was optimistic and who has learnt better
  // (extract_egraph/realized_extract.h). Ties and orders stay as built.
  void RaiseCost(ENodeId n, double cost);
  // Child classes of n, in argument order (a class may repeat).
  std::span<const ClassId> children(ENodeId n) const {
    return {children_.data() + child_begin_[n], children_.data() + child_begin_[n + 1]};
  }
  // The nodes that have c among their children, once per occurrence, in node order.
  std::span<const ENodeId> parents(ClassId c) const {
    return {parents_.data() + parent_begin_[c], parents_.data() + parent_begin_[c + 1]};
  }

  const std::vector<ClassId>& roots() const { return roots_; }
  bool has_negative_costs() const { return has_negative_costs_; }

  // Class index by name, or -1.
  int64_t FindClass(std::string_view name) const;

 private:
  friend class ExtractionProblemBuilder;
  std::string_view ClassNameView(ClassId c) const {
    return std::string_view(class_names_)
        .substr(class_name_begin_[c], class_name_begin_[c + 1] - class_name_begin_[c]);
  }
  // Class c's name is class_names_[class_name_begin_[c], class_name_begin_[c + 1]).
  std::string class_names_;
  std::vector<uint64_t> class_name_begin_;  // size num_classes + 1
  std::vector<ENodeId> class_nodes_;        // size num_classes + 1
  // Node n's explicit name is node_names_[name_begin_[n], name_begin_[n + 1]);
  // empty: the default name. name_begin_ is empty when no node has one (an
  // e-graph's problem: 8 bytes a node of a multi-million-node problem).
  std::string node_names_;
  std::vector<uint64_t> name_begin_;   // size num_nodes + 1, or empty
  std::vector<std::string> op_names_;  // distinct ops, in order of first use
  std::vector<uint32_t> op_of_;        // per node: index in op_names_
  std::vector<double> costs_;
  std::vector<ClassId> node_class_;
  std::vector<uint32_t> child_begin_;  // size num_nodes + 1
  std::vector<ClassId> children_;
  std::vector<uint32_t> parent_begin_;  // size num_classes + 1
  std::vector<ENodeId> parents_;
  std::vector<ClassId> roots_;
  bool has_negative_costs_ = false;
};

// Collects classes, nodes and roots in any order, then builds the problem.
//
//   ExtractionProblemBuilder b;
//   ClassId x = b.AddClass("x");
//   ClassId y = b.AddClass("y");
//   b.AddNode(x, "a", 1.0, {});
//   b.AddNode(y, "f", 2.0, {x, x});
//   b.AddRoot(y);
//   absl::StatusOr<ExtractionProblem> p = std::move(b).Build();
class ExtractionProblemBuilder {
 public:
  // Adds a class named `name` (names need not be unique, but FindClass and
  // output use them) and returns its index (0, 1, 2, ... in call order).
  ClassId AddClass(std::string_view name);
  // Adds a node to class c. `name` defaults to "<class name>.<k>" for the
  // k-th node of the class. Children are class indices (may be added later).
  void AddNode(ClassId c, std::string_view op, double cost, std::span<const ClassId> children,
               std::string_view name = "");
  void AddRoot(ClassId c);
  // Room for this many classes, nodes and child entries in all, so that a
  // caller that knows them fills the arrays without regrowing them (on
  // millions of nodes each regrowth copies and first-touches them again).
  void Reserve(size_t classes, size_t nodes, size_t children);
  size_t num_classes() const { return class_name_begin_.size(); }

  // Fails (kInvalidArgument) on a child or root index that names no class, a
  // cost that is not finite, a root class without nodes, or no roots.
  absl::StatusOr<ExtractionProblem> Build() &&;

 private:
  // The nodes as they were added, in the problem's own layout (20 bytes a
  // node, 28 once a node has an explicit name: the op is an index in
  // op_names_, the name a range of names_, the children a range of
  // children_). Nodes added class by class (the usual
  // case) are already grouped by class: Build() then moves these arrays into
  // the problem instead of copying them, so a large problem is never held
  // twice.
  std::string_view PendingName(size_t n) const {
    if (!named_) return {};
    const uint64_t end = n + 1 < name_begin_.size() ? name_begin_[n + 1] : names_.size();
    return std::string_view(names_).substr(name_begin_[n], end - name_begin_[n]);
  }
  std::string_view PendingClassName(size_t c) const {
    const uint64_t end =
        c + 1 < class_name_begin_.size() ? class_name_begin_[c + 1] : class_names_.size();
    return std::string_view(class_names_).substr(class_name_begin_[c], end - class_name_begin_[c]);
  }
  // The class names back to back (a string per class was 32 bytes of a
  // million-class problem's each), and where each begins.
  std::string class_names_;
  std::vector<uint64_t> class_name_begin_;
  std::vector<std::string> op_names_;
  absl::flat_hash_map<std::string, uint32_t> op_index_;  // op name -> index in op_names_
  std::vector<uint32_t> class_node_count_;
  std::vector<ClassId> node_class_;
  std::vector<uint32_t> op_of_;
  std::vector<double> costs_;
  std::vector<uint32_t> child_begin_;  // per node (its end: the next node's begin)
  std::vector<ClassId> children_;
  // Per node, likewise, once a node has an explicit name (named_); empty
  // while every node added has the default name.
  bool named_ = false;
  std::vector<uint64_t> name_begin_;
  std::string names_;  // the explicit node names, back to back
  std::vector<ClassId> roots_;
};

}  // namespace egret::extract

#endif  // EGRET_EXTRACT_PROBLEM_H_
