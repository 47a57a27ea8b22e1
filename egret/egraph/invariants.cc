#include "egret/egraph/invariants.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_format.h"

namespace egret {
namespace {

// The op of a node index, or the op itself (binary search over a node list).
Symbol OpOf(const EGraph& g, NodeIdx n) { return g.NodeOp(n); }
Symbol OpOf(const EGraph&, Symbol op) { return op; }

}  // namespace

absl::Status CheckInvariants(const EGraph& g) {
  auto fail = [](std::string msg) { return absl::InternalError("e-graph invariant: " + msg); };
  if (!g.clean()) return fail("unions pending (call Rebuild first)");
  const Symbol const_op = Symbol::Intern(kConstOp);
  absl::flat_hash_set<std::pair<Id, NodeIdx>> parent_entries;
  for (Id c = 0; c < g.num_ids(); ++c) {
    if (!g.IsCanonical(c)) continue;
    for (NodeIdx p : g.ClassParents(c)) {
      if (!g.IsLive(p)) continue;
      // No false parent (e.g. a dead node's reused record left in the list).
      const absl::Span<const Id> uses = g.Node(p).children;
      if (std::find(uses.begin(), uses.end(), c) == uses.end()) {
        return fail(
            absl::StrFormat("class %d lists node %d (%s) as a parent, which does not use it", c, p,
                            g.NodeOp(p).str()));
      }
      parent_entries.insert({c, p});
    }
  }
  std::vector<Symbol> all_ops;  // every op ever stored, ascending by id
  {
    absl::flat_hash_set<Symbol> seen;
    for (NodeIdx n = 0; n < g.num_stored_nodes(); ++n) {
      if (seen.insert(g.NodeOp(n)).second) all_ops.push_back(g.NodeOp(n));
    }
    std::sort(all_ops.begin(), all_ops.end());
  }
  size_t live = 0, hashed = 0, classes = 0;
  for (Id c = 0; c < g.num_ids(); ++c) {
    if (!g.IsCanonical(c)) {
      if (!g.ClassNodes(c).empty()) return fail(absl::StrFormat("merged id %d lists nodes", c));
      continue;
    }
    ++classes;
    absl::Span<const NodeIdx> nodes = g.ClassNodes(c);
    if (nodes.empty()) return fail(absl::StrFormat("class %d is empty", c));
    bool has_const = false;
    for (size_t i = 0; i < nodes.size(); ++i) {
      NodeIdx n = nodes[i];
      ENodeView v = g.Node(n);
      if (!g.IsLive(n)) return fail(absl::StrFormat("class %d lists dead node %d", c, n));
      if (g.NodeClass(n) != c) {
        return fail(absl::StrFormat("node %d is listed in class %d but belongs to %d", n, c,
                                    g.NodeClass(n)));
      }
      if (i > 0 && v.op < g.NodeOp(nodes[i - 1])) {
        return fail(absl::StrFormat("class %d: nodes not sorted by op", c));
      }
      for (Id k : v.children) {
        if (!g.IsCanonical(k)) {
          return fail(absl::StrFormat("node %d (%s) in class %d has non-canonical operand %d", n,
                                      v.op.str(), c, k));
        }
        if (!parent_entries.contains({k, n})) {
          return fail(absl::StrFormat("node %d (%s) in class %d missing from parents of %d", n,
                                      v.op.str(), c, k));
        }
      }
      if (g.NodeStamp(n) > g.ClassChangeEpoch(c) || g.NodeContentStamp(n) > g.NodeStamp(n)) {
        return fail(absl::StrFormat("node %d in class %d: stamps %d/%d, class changed in %d", n, c,
                                    g.NodeContentStamp(n), g.NodeStamp(n), g.ClassChangeEpoch(c)));
      }
      if (v.op == const_op) has_const = true;
      ++live;
      if (g.IsUnhashed(n)) continue;
      ++hashed;
      std::optional<Id> found = g.Lookup(v);
      if (!found.has_value() || *found != c) {
        return fail(absl::StrFormat("node %d (%s) in class %d: hash-cons gives %s", n, v.op.str(),
                                    c, found ? absl::StrFormat("class %d", *found) : "nothing"));
      }
    }
    // ClassNodesWithOp gives each op's range of the list (from the list's op
    // summary and run table), and nothing for the ops the class lacks
    // (every op is asked of a class of several ops; a class of one op
    // answers other ops from its summary alone).
    for (size_t b = 0, e = 0; b < nodes.size(); b = e) {
      const Symbol op = g.NodeOp(nodes[b]);
      for (e = b + 1; e < nodes.size() && g.NodeOp(nodes[e]) == op;) ++e;
      absl::Span<const NodeIdx> got = g.ClassNodesWithOp(c, op);
      if (got.data() != nodes.data() + b || got.size() != e - b) {
        return fail(absl::StrFormat("class %d: ClassNodesWithOp(%s) gives %d nodes, %d listed", c,
                                    op.str(), got.size(), e - b));
      }
    }
    if (g.NodeOp(nodes.front()) != g.NodeOp(nodes.back())) {
      for (Symbol op : all_ops) {
        const bool listed = std::binary_search(nodes.begin(), nodes.end(), op, [&](auto x, auto y) {
          return OpOf(g, x) < OpOf(g, y);
        });
        if (!listed && !g.ClassNodesWithOp(c, op).empty()) {
          return fail(absl::StrFormat("class %d: ClassNodesWithOp(%s) gives nodes, none listed", c,
                                      op.str()));
        }
      }
    }
    if (has_const && g.ConstantOf(c) == nullptr) {
      return fail(absl::StrFormat("class %d holds a $Const but records no constant", c));
    }
  }
  if (hashed != g.hashcons_size()) {
    return fail(absl::StrFormat("hash-cons holds %d entries for %d hashed live nodes",
                                g.hashcons_size(), hashed));
  }
  if (live != g.num_nodes()) {
    return fail(absl::StrFormat("num_nodes() is %d but classes list %d", g.num_nodes(), live));
  }
  if (classes != g.num_classes()) {
    return fail(
        absl::StrFormat("num_classes() is %d but %d are canonical", g.num_classes(), classes));
  }
  // The op index lists exactly the canonical classes holding each op,
  // ascending (every op ever stored is asked, so stale lists show).
  absl::flat_hash_map<Symbol, std::vector<Id>> by_op;
  for (NodeIdx n = 0; n < g.num_stored_nodes(); ++n) by_op[g.NodeOp(n)];
  for (Id c = 0; c < g.num_ids(); ++c) {
    if (!g.IsCanonical(c)) continue;
    for (NodeIdx n : g.ClassNodes(c)) {
      std::vector<Id>& list = by_op[g.NodeOp(n)];
      if (list.empty() || list.back() != c) list.push_back(c);
    }
  }
  for (const auto& [op, want] : by_op) {
    absl::Span<const Id> got = g.ClassesWithOp(op);
    if (got != absl::Span<const Id>(want)) {
      return fail(absl::StrFormat("ClassesWithOp(%s) lists %d classes, %d hold the op", op.str(),
                                  got.size(), want.size()));
    }
  }
  return absl::OkStatus();
}

}  // namespace egret
