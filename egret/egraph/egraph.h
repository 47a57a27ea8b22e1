// The e-graph: hash-consed e-nodes grouped into e-classes, with union-find,
// deferred rebuilding (as in egg) and a tensor analysis.
//
// Layout. E-nodes live in one store of 24-byte records (op, payload, stamps and
// up to two operands; the operands of larger nodes go to one shared array), so
// adding a node allocates nothing per node. The hash-cons keeps binary nodes
// in one PairTable per (op, payload), keyed by the two operand ids held in the
// slot (pair_table.h), and other nodes in a flat hash set of node indices
// hashed by node content. A class lists its nodes (sorted by
// content after each rebuild, so that the nodes with one op are a contiguous
// range) and its parents (the nodes that use it). The node list keeps a
// summary of its ops and, when it has several, a table of each op's range
// (node_list.h), so that ClassNodesWithOp reads one 16-byte class record and
// the list, and no node record.
//
// Deferred rebuilding. Union() only links the two classes in the union-find
// and records the merge; class contents are merged and congruence is restored
// by Rebuild(), which processes the classes merged away (the losers): every
// parent of a loser is re-canonicalized and re-inserted into the hash-cons
// (the winner's parents still hold canonical operands and are left alone), and
// a parent found equal to an existing node is merged with it (its class, and
// so on upwards). After Rebuild() the hash-cons is canonical, congruence is
// closed and every class lists canonical nodes. Between rebuilds, the classes'
// node lists do not change except for new singleton classes, so e-matching can
// run (and rules can be applied) against a stable snapshot.
//
// Dead records. A node that a rebuild finds congruent to another dies (it
// stays in the store, marked dead: IsLive). While derivations are off, its record is
// reused by a later add once the rebuild has dropped it from the parent
// lists that named it: so with derivations off, a NodeIdx of a node that a
// Rebuild() killed may name another node after the next add. With
// derivations on (the default) records are never reused: the log numbers
// nodes by their store position and names matched nodes that may die.
//
// Analysis. Every class has the TensorType of the value it computes (given by
// whoever adds its first node) and, when it holds a "$Const", the constant.
// Union() refuses to merge classes whose types differ (or that hold different
// constants); Add() refuses a node whose hash-cons hit has another type. Both
// return an error naming the rule (see set_rule_context), both classes and
// both types, and record it in conflicts().
//
// Purity. Volatile ops (op string starting with '*') and ops the op table
// marks side-effecting are never hash-consed: each Add makes a fresh class.
//
// Not thread-safe.
#ifndef EGRET_EGRAPH_EGRAPH_H_
#define EGRET_EGRAPH_EGRAPH_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "egret/egraph/derivation_log.h"
#include "egret/egraph/enode.h"
#include "egret/egraph/id.h"
#include "egret/egraph/id_list.h"
#include "egret/egraph/node_list.h"
#include "egret/egraph/op_index.h"
#include "egret/egraph/op_traits.h"
#include "egret/egraph/payload_pools.h"
#include "egret/egraph/prefetch.h"
#include "egret/egraph/symbol.h"
#include "egret/egraph/type_table.h"
#include "egret/egraph/union_find.h"
#include "egret/graph/graph.h"

namespace egret {

// A refused merge: two classes a rule (or congruence) tried to make equal
// although they compute values of different types or hold different constants.
struct MergeConflict {
  std::string rule;  // empty when not known
  Id a = kNoId;
  Id b = kNoId;
  TensorType type_a;
  TensorType type_b;
  bool constants_differ = false;  // same type but different "$Const" data

  // E.g. "rule 'fold': refused to merge class 3 (Float32[2]) with class 7
  // (Int32[2]): types differ".
  std::string ToString() const;
};

class EGraph {
 public:
  explicit EGraph(OpTable ops = OpTable::Default());
  ~EGraph();
  EGraph(EGraph&&) noexcept;
  EGraph& operator=(EGraph&&) noexcept;
  EGraph(const EGraph&) = delete;
  EGraph& operator=(const EGraph&) = delete;

  // --- Types and payloads -------------------------------------------------
  TypeId InternType(const TensorType& type) { return types_.Intern(type); }
  const TensorType& Type(TypeId id) const { return types_.Get(id); }
  Payload InternAttributes(const Attributes& attrs) { return attributes_.Intern(attrs); }
  const Attributes& AttributesOf(Payload p) const { return attributes_.Get(p); }
  // The constant of a "$Const" node's payload.
  const ConstTensorPtr& ConstantOfPayload(Payload p) const { return constants_.Get(p); }

  // --- Building -------------------------------------------------------------
  // Makes room for `nodes` more e-nodes in as many new classes, `non_binary`
  // of them with other than two operands (the hash-cons keeps those in a
  // table of its own), so that adding them grows no array and rehashes no
  // table: for a caller that knows its size (AddGraph). A rehash reads every
  // stored node's content again, in hash order; for a million nodes that is
  // most of a seed's growth beyond linear.
  void Reserve(size_t nodes, size_t non_binary);
  // Adds `node` (operands need not be canonical), whose value has type `type`,
  // and returns its canonical class: an existing class when an equal node is
  // already present (hash-cons hit), else a new class. A hit whose class has
  // another type is refused with kFailedPrecondition (and recorded). Volatile
  // and side-effecting ops always get a new class.
  absl::StatusOr<Id> Add(const ENodeView& node, TypeId type);
  absl::StatusOr<Id> Add(const ENodeView& node, const TensorType& type) {
    return Add(node, InternType(type));
  }
  // Adds `node` as a member of class `cls` (the caller asserts that it
  // computes the same value) unless an equal node is present: then returns
  // the equal node's canonical class, which the caller may union with `cls`;
  // else returns Find(cls). This saves the class record and the union that
  // Add() followed by Union() would make. A new node joins cls's node list at
  // the next Rebuild() (node lists stay stable for e-matching); until then it
  // counts in num_nodes() and Lookup finds it. A hit whose class has another
  // type than `cls` is refused as in Add(). Volatile, side-effecting and
  // "$Const" nodes are added as by Add() (a class of their own).
  absl::StatusOr<Id> AddToClass(const ENodeView& node, Id cls);
  // Add() and AddToClass() of the node op(a, b), in fewer steps (the builtin
  // rules' apply path): the same results and effects, provided `payload` is
  // the one the e-graph stores for this node, e.g. the payload of a stored
  // node of op `op` whose class has type `type` (or cls's type).
  absl::StatusOr<Id> AddPair(Symbol op, Payload payload, Id a, Id b, TypeId type);
  absl::StatusOr<Id> AddPairToClass(Symbol op, Payload payload, Id a, Id b, Id cls);
  // A "$Const" node holding `value` (not null); equal data gives one class.
  Id AddConstant(ConstTensorPtr value);
  // AddConstant in two steps, for a caller with many constants (AddGraph):
  // InternConstants gives the payloads AddConstant would give each value in
  // turn (ConstantPool::InternAll), then AddInternedConstant(p) adds each
  // "$Const" node (PrefetchAdd can hint its hash-cons slot ahead). The same
  // classes, in the same order, as AddConstant on each value.
  std::vector<Payload> InternConstants(absl::Span<const ConstTensorPtr> values) {
    return constants_.InternAll(values);
  }
  Id AddInternedConstant(Payload p);
  // A "$Shape" node whose Int32 output type has dims `dims` (its value): of
  // type ShapeType(dims).
  Id AddShape(const Dims& dims);
  static TensorType ShapeType(const Dims& dims) { return TensorType(DType::kInt32, dims); }
  // The type of the "$Shape" index AddOut gives output `index` of
  // `num_outputs` (for a caller that interns types ahead, as AddGraph does).
  static TensorType OutIndexType(int num_outputs, int index) {
    return ShapeType(Dims{0, 0, num_outputs, index});
  }
  // Output `index` of the multi-output node of class `multi` (type Multi):
  // "$Out"(multi, $Shape of OutIndexType(num_outputs, index)), of type `type`.
  absl::StatusOr<Id> AddOut(Id multi, int num_outputs, int index, const TensorType& type);

  // The canonical class of a node equal to `node`, if present (exact only on a
  // clean e-graph). Volatile nodes are never found.
  std::optional<Id> Lookup(const ENodeView& node) const;

  // Makes the classes of a and b equal. Returns true when they were different
  // classes, false when already equal; kFailedPrecondition (also recorded in
  // conflicts()) when their types or constants differ: the classes stay apart.
  // Congruence is restored by the next Rebuild().
  absl::StatusOr<bool> Union(Id a, Id b);

  // Restores the invariants after unions (see the file comment). Cost is
  // proportional to the merged classes and their parents. Returns the number
  // of unions done by congruence.
  size_t Rebuild();
  // True when no union is waiting for Rebuild().
  bool clean() const { return pending_.empty() && pending_members_.empty(); }

  // Names the rule on whose behalf Add/Union run (for conflict reports). The
  // string must outlive its use; "" clears it.
  void set_rule_context(std::string_view rule) { rule_context_ = rule; }

  // --- Derivations (egraph/derivation_log.h) --------------------------------
  // While a match context is open, every node stored (by Add, AddToClass, ...)
  // derives from the `matched` nodes by the current rule context. The runner
  // opens one around each application; `matched` must stay valid until
  // ClearMatchContext().
  void SetMatchContext(absl::Span<const NodeIdx> matched) {
    derivations_.Open(rule_context_, matched);
  }
  void ClearMatchContext() { derivations_.Close(); }
  // Whether derivations and merges are recorded (default true). Off saves
  // their memory (about 60 bytes per e-node under comm+assoc saturation, see
  // docs/history/engine-vs-egg.md) when no provenance is wanted, and lets dead records
  // be reused (see "Dead records" above). Set it before adding nodes.
  void set_record_derivations(bool on) { derivations_.set_enabled(on); }
  // How node n was built: nullopt for nodes stored outside a match context
  // (graph import, constants of a builder run by hand).
  std::optional<Derivation> NodeDerivation(NodeIdx n) const { return derivations_.Of(n); }
  // The class id node n was added to (Find it for its class now); with
  // derivations().MergeRules it tells which rules merged two values.
  Id NodeAddedClass(NodeIdx n) const { return node_class_[n]; }
  const DerivationLog& derivations() const { return derivations_; }

  // --- Reading --------------------------------------------------------------
  Id Find(Id id) const { return uf_.Find(id); }
  bool IsCanonical(Id id) const { return uf_.IsRoot(id); }
  // Live e-nodes (listed in some class) and classes. Before a rebuild these
  // may count duplicates that the rebuild will remove.
  size_t num_nodes() const { return live_nodes_; }
  size_t num_classes() const { return live_classes_; }
  // Number of class ids ever created (ids are < this).
  size_t num_ids() const { return class_nodes_.size(); }
  // Every canonical class id, ascending.
  std::vector<Id> Classes() const;
  // Classes with at least one node of `op`, ascending: those canonical at
  // the first call after the last Rebuild() plus those created since (which
  // may have been merged since). The first call after a rebuild costs the
  // classes changed since the previous one (op_index.h), not all classes.
  absl::Span<const Id> ClassesWithOp(Symbol op) const;

  // Class data; `c` must be canonical.
  TypeId TypeIdOf(Id c) const { return class_type_[c]; }
  const TensorType& TypeOf(Id c) const { return types_.Get(class_type_[c]); }
  // The constant a "$Const" node of the class holds, or null. A reference
  // into the constant pool, valid until the next constant is added: asking
  // copies no shared_ptr (copy it to keep it across AddConstant).
  const ConstTensorPtr& ConstantOf(Id c) const;
  // Whether the class holds a "$Const" node (ConstantOf(c) != nullptr).
  bool HasConstant(Id c) const { return class_constant_[c] != kNoPayload; }
  // The class's nodes, sorted by (op, payload, operands) after a rebuild.
  absl::Span<const NodeIdx> ClassNodes(Id c) const { return class_nodes_[c].span(); }
  // The contiguous range of ClassNodes(c) with op `op`. Reads c's record
  // and, when c has nodes of `op` or of several ops, its node list; never a
  // node's record.
  absl::Span<const NodeIdx> ClassNodesWithOp(Id c, Symbol op) const {
    return class_nodes_[c].WithOp(op.id());
  }
  // Nodes that use the class (may contain stale, dead or repeated entries
  // before a rebuild).
  absl::Span<const NodeIdx> ClassParents(Id c) const { return class_parents_[c].span(); }

  ENodeView Node(NodeIdx n) const {
    const NodeRec& r = store_->nodes[n];
    return ENodeView{r.Op(), r.payload, absl::Span<const Id>(store_->Children(r), r.Arity())};
  }
  Symbol NodeOp(NodeIdx n) const { return store_->nodes[n].Op(); }
  // Hints the processor to load node n's record (op, payload, stamps and, for
  // arity up to 2, operands): both ends, since a record may straddle two
  // cache lines.
  void PrefetchNode(NodeIdx n) const {
    const NodeRec* r = &store_->nodes[n];
    __builtin_prefetch(r);
    __builtin_prefetch(reinterpret_cast<const char*>(r + 1) - 1);
  }
  // Hints the processor to load class c's record (what ClassNodesWithOp
  // reads first), and then, some time later, its node list (which reads the
  // record): for software pipelining over a list of roots (the runner).
  void PrefetchClass(Id c) const { PrefetchForRead(&class_nodes_[c]); }
  void PrefetchClassNodes(Id c) const { PrefetchForRead(class_nodes_[c].data()); }
  // The same two steps for class c's parent list (ClassParents).
  void PrefetchClassParents(Id c) const { PrefetchForRead(&class_parents_[c]); }
  void PrefetchClassParentList(Id c) const { PrefetchForRead(class_parents_[c].data()); }
  // Hints the processor to load what NodeClass(n) reads first: n's class
  // entry (IsLive reads a bitmap of a bit per node, which a walk over
  // parents finds in cache).
  void PrefetchNodeClass(NodeIdx n) const { PrefetchForRead(&node_class_[n]); }
  // Hints the processor to load node n's operands when they are outside its
  // record. Reads n's record: call it some time after PrefetchNode(n).
  void PrefetchOperands(NodeIdx n) const {
    const NodeRec& r = store_->nodes[n];
    if (!r.Inline()) __builtin_prefetch(store_->Children(r));
  }
  // Hints the processor to load the pair-table slot where the binary node
  // op(Find(a), Find(b)) with stored payload `payload` would be found (for
  // software pipelining: builtin_apply.h BuiltinPrefetch). Changes nothing
  // the e-graph holds or returns (Find's path halving aside).
  void PrefetchPair(Symbol op, Payload payload, Id a, Id b);
  // Hints the processor to load the hash-cons slot where Add(node, type)
  // would look `node` up, taking its operands as given (canonical, as Add
  // would make them; an id not made yet is allowed: nothing is read at it).
  // For software pipelining over nodes whose operands' classes are known or
  // predicted ahead (AddGraph). Changes nothing the e-graph holds or returns.
  void PrefetchAdd(const ENodeView& node, TypeId type);
  // The canonical class of node n.
  Id NodeClass(NodeIdx n) const { return Find(node_class_[n]); }
  // False for nodes that became duplicates during a rebuild (and whose
  // records were not reused since: see "Dead records" above).
  bool IsLive(NodeIdx n) const { return !((dead_bits_[n >> 6] >> (n & 63)) & 1); }
  // True for nodes kept out of the hash-cons (volatile, side-effecting, or a
  // congruent node whose merge was refused).
  bool IsUnhashed(NodeIdx n) const { return store_->nodes[n].Flags() & kUnhashed; }
  size_t num_stored_nodes() const { return store_->nodes.size(); }
  // The change epoch: advanced by every Rebuild(). NodeStamp(n) is the epoch
  // in which node n was created, re-canonicalized or moved into another class
  // by a merge: a match whose nodes all have stamps below e was already a
  // match (up to canonical ids) in epoch e (semi-naive matching).
  uint64_t epoch() const { return epoch_; }
  uint64_t NodeStamp(NodeIdx n) const { return store_->nodes[n].stamp; }
  // The epoch in which node n was created or re-canonicalized, not counting
  // moves between classes: enough for the root node of a match, whose
  // matches do not depend on the class it is in.
  uint64_t NodeContentStamp(NodeIdx n) const { return store_->nodes[n].content_stamp; }
  // The epoch of class c's last change (creation, a merge into it, a node
  // of it re-canonicalized or added to it): no node of ClassNodes(c) has a
  // NodeStamp (or NodeContentStamp) above it. For canonical c after a
  // rebuild, unchanged until the next one. Lets semi-naive matching skip a
  // class none of whose nodes can be fresh without reading their records.
  uint64_t ClassChangeEpoch(Id c) const { return logged_epoch_[c]; }
  // Number of entries in the hash-cons.
  size_t hashcons_size() const;

  const OpTable& ops() const { return ops_; }
  // Changes on every new node and every effective union.
  uint64_t version() const { return version_; }
  const std::vector<MergeConflict>& conflicts() const { return conflicts_; }
  // Total number of conflicts (conflicts() keeps the first 1000).
  size_t num_conflicts() const { return num_conflicts_; }

  // Classes that changed (were created, merged, or had a node re-canonicalized),
  // in order, possibly repeated and non-canonical. Incremental e-matching
  // reads the entries past the position it saw last.
  size_t change_log_size() const { return change_log_.size(); }
  absl::Span<const Id> change_log(size_t from) const {
    return absl::Span<const Id>(change_log_).subspan(from);
  }

  // Bytes held by the e-graph's own structures (capacity-based, O(1)).
  size_t ApproxMemoryBytes() const;

 private:
  enum : uint8_t { kUnhashed = 1 };
  // Symbol ids fit 28 bits: the record keeps the flags and the arity beside
  // the op in one word.
  static constexpr uint32_t kOpBits = 28;
  static constexpr uint32_t kOpMask = (uint32_t{1} << kOpBits) - 1;
  // An e-node's record. The operands of a node of arity 0-2 (nearly all of
  // them) live in the record itself, so that e-matching reads one record
  // and no operand array; a node of more operands keeps them in
  // Store::more. The stamps live in the record too, so that the semi-naive
  // filter costs no further cache miss per matched node.
  struct NodeRec {
    // op id | flags << kOpBits | arity code << 30 (0-2: the arity, 3: more).
    uint32_t head;
    Payload payload;
    uint32_t stamp;          // NodeStamp
    uint32_t content_stamp;  // NodeContentStamp
    // Arity 0-2: the operands. More: ch[0] indexes Store::more, ch[1] is the
    // arity.
    Id ch[2];
    Symbol Op() const { return Symbol::FromId(head & kOpMask); }
    uint32_t Flags() const { return (head >> kOpBits) & 3; }
    void SetFlag(uint32_t f) { head |= f << kOpBits; }
    bool Inline() const { return (head >> 30) != 3; }
    uint32_t Arity() const { return Inline() ? head >> 30 : ch[1]; }
  };
  static_assert(sizeof(NodeRec) == 24);
  struct Store {
    std::vector<NodeRec> nodes;
    std::vector<Id> more;  // operands of the nodes of more than two
    const Id* Children(const NodeRec& r) const { return r.Inline() ? r.ch : more.data() + r.ch[0]; }
    Id* Children(NodeRec& r) { return r.Inline() ? r.ch : more.data() + r.ch[0]; }
  };
  struct Hashcons;

  bool IsUnhashedOp(Symbol op) {
    if (op.id() < unhashed_op_.size() && unhashed_op_[op.id()] != 0) {
      return unhashed_op_[op.id()] == 2;
    }
    return ClassifyOp(op);
  }
  // IsUnhashedOp's first answer for `op`, recorded in unhashed_op_.
  bool ClassifyOp(Symbol op);
  static absl::Status CheckArity(const ENodeView& node);
  // Add() and AddToClass() once the operands `ch` are canonical and the
  // payload is the one stored (`type` is cls's type).
  absl::StatusOr<Id> AddCanonical(const ENodeView& node, absl::Span<const Id> ch, TypeId type);
  absl::StatusOr<Id> AddCanonicalToClass(const ENodeView& node, absl::Span<const Id> ch, Id cls,
                                         TypeId type);
  // An add of type `type` that found the stored node's class `hit`: that
  // class (canonical), or the conflict when its type is another.
  absl::StatusOr<Id> Existing(Id hit, TypeId type);
  // Makes room for n class ids in every per-class-id array.
  void ReserveClassIds(size_t n);
  // A new class of type `type` holding only `node` (canonical operands `ch`).
  Id NewClass(const ENodeView& node, absl::Span<const Id> ch, bool unhashed, TypeId type);
  // The class of the stored node op(ch[0], ch[1]) (canonical operands and
  // stored payload), or kNoId: one probe of the op's pair table.
  Id FindPair(Symbol op, Payload payload, const Id (&ch)[2]);
  // Appends node (operands `ch`, canonical) to the store as a member of class
  // `cls` (whose lists the caller maintains), to the parent lists of its
  // operands and, unless `unhashed`, to the hash-cons.
  NodeIdx StoreNode(const ENodeView& node, absl::Span<const Id> ch, bool unhashed, Id cls);
  absl::Status Conflict(Id a, Id b, TypeId type_b, bool constants);
  // Appends c to the change log unless it is there for this epoch; returns
  // whether it appended.
  bool LogChange(Id c);
  // Reuse of dead records, while derivations are off (the derivation log
  // numbers nodes by their store position, and names matched nodes that may
  // die): Repair() Kill()s a node that became a duplicate, which links its
  // record into the free list and marks its operands' classes; at the end of
  // Rebuild(), FilterKilledParents drops dead nodes from the marked classes'
  // parent lists (except those of classes in both `touched` and `merged`,
  // sorted, which CleanClass filtered), so that no list names a record
  // StoreNode reuses.
  void Kill(NodeIdx p);
  void FilterKilledParents(const std::vector<Id>& touched, const std::vector<Id>& merged);
  // Re-canonicalizes node p (a parent of a merged class) unless it is dead
  // or already canonical, re-inserts it into the hash-cons and merges its
  // class with a congruent node's; the class it changed goes to `touched`
  // unless it is logged already in this epoch (so touched lists each class
  // changed by a rebuild once, up to merges).
  void Repair(NodeIdx p, std::vector<Id>& touched);
  // Drops dead nodes from c's node list and sorts it; with `with_parents`
  // also drops dead and repeated entries from its parent list.
  void CleanClass(Id c, bool with_parents);
  // Drops dead nodes from c's parent list, keeping the order of the rest.
  void DropDeadParents(Id c);
  bool NodeLess(NodeIdx a, NodeIdx b) const;
  // Sorts `nodes` by NodeLess.
  void SortByContent(absl::Span<NodeIdx> nodes) const;

  OpTable ops_;
  TypeTable types_;
  ConstantPool constants_;
  AttributePool attributes_;
  std::unique_ptr<Store> store_;
  std::unique_ptr<Hashcons> hashcons_;
  std::vector<Id> node_class_;  // class each node was added to (Find it)
  // A bit per stored node, set while it is dead (IsLive): apart from the
  // 24-byte records, so that a liveness test reads 1/192 of the bytes.
  std::vector<uint64_t> dead_bits_;
  // Per class id: its node list with its op summary (class_nodes_[c].ops():
  // the op of every node when they share one, as of its last rebuild or
  // creation, else kMixed plus a mask of its ops), all that e-matching reads
  // of a class in one 16-byte record, and its parent list. The scalar class
  // data lives in dense arrays (class_type_, class_constant_, logged_epoch_)
  // so that the hot paths (type checks of hash-cons hits) touch 4 bytes.
  std::vector<NodeList> class_nodes_;
  std::vector<IdList> class_parents_;
  // By class id; a class's type never changes (unions of different types are
  // refused), so these need no Find. Constants are valid for roots.
  std::vector<TypeId> class_type_;
  std::vector<Payload> class_constant_;
  static constexpr uint32_t kMixed = NodeList::kMixed;
  std::vector<uint32_t> logged_epoch_;  // epoch of the class's last change-log entry
  UnionFind uf_;
  std::vector<Id> pending_;               // losers of unions not yet merged into their roots
  std::vector<NodeIdx> pending_members_;  // AddToClass nodes not yet in a node list
  // The free records (see Kill), linked through their content stamps, last
  // freed first.
  static constexpr NodeIdx kNoFree = ~NodeIdx{0};
  NodeIdx free_head_ = kNoFree;
  // By class id, one bit: a node killed by the running Rebuild() used it.
  std::vector<uint64_t> unfiltered_;
  // SortUniqueIds's scratch bitmap (all zero between calls), for Rebuild()
  // and UpdateOpIndex().
  mutable std::vector<uint64_t> sort_bits_;
  std::vector<Id> change_log_;
  uint64_t epoch_ = 0;
  uint64_t version_ = 0;
  size_t live_nodes_ = 0;
  size_t live_classes_ = 0;
  size_t list_entries_ = 0;
  std::vector<uint8_t> unhashed_op_;  // by symbol id: 0 unknown, 1 hashed, 2 unhashed
  // By TypeId: 0 unknown, 1 not quantized, 2 quantized (PayloadFor's test).
  mutable std::vector<uint8_t> type_quantized_;
  std::string_view rule_context_;
  DerivationLog derivations_;
  std::vector<MergeConflict> conflicts_;
  size_t num_conflicts_ = 0;
  // ClassesWithOp's index: up to date for the epoch op_index_epoch_, the
  // class ids below op_index_ids_ and the change log below op_index_log_.
  // Once built (at the first call), Rebuild() notes in it the classes it
  // merges away.
  mutable OpIndex op_index_;
  mutable bool op_index_built_ = false;
  mutable uint64_t op_index_epoch_ = ~uint64_t{0};
  mutable size_t op_index_ids_ = 0;
  mutable size_t op_index_log_ = 0;
  // Calls f(op) for each op of class c's nodes (once each when the list is
  // sorted, as it is outside Rebuild()).
  template <typename F>
  void ForEachOp(Id c, F f) const;
  // Brings op_index_ to the current epoch (see ClassesWithOp).
  void UpdateOpIndex() const;
  Symbol const_op_, shape_op_, out_op_;
  Symbol cast_op_, qnn_cast_op_, quantize_op_, dequantize_op_;
  // The payload `node` is stored with: its own, or the type payload
  // (enode.h) when its output type is declared ("$Const" and "$Shape" keep
  // theirs: a constant index and a TypeId).
  Payload PayloadFor(const ENodeView& node, TypeId type) const;
  bool TypeIsQuantized(TypeId type) const;
};

}  // namespace egret

#endif  // EGRET_EGRAPH_EGRAPH_H_
