#include "egret/egraph/egraph.h"

#include <algorithm>
#include <utility>

#include "absl/base/internal/raw_logging.h"
#include "absl/container/flat_hash_set.h"
#include "absl/container/inlined_vector.h"
#include "absl/status/status.h"
#include "absl/strings/str_format.h"
#include "egret/egraph/id_sort.h"
#include "egret/egraph/pair_table.h"

namespace egret {
namespace {

inline uint64_t Fmix64(uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdULL;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ULL;
  x ^= x >> 33;
  return x;
}

inline size_t HashContent(Symbol op, Payload payload, const Id* children, size_t n) {
  constexpr uint64_t kMul = 0x9E3779B97F4A7C15ULL;
  uint64_t h = ((uint64_t{op.id()} << 32) | payload) * kMul + n;
  for (size_t i = 0; i < n; ++i) h = (h ^ children[i]) * kMul;
  return static_cast<size_t>(Fmix64(h));
}

}  // namespace

// The hash-cons. Binary nodes (most of them) go to PairTables keyed by their
// two operands, one per (op, payload): a hit reads one slot and no node. Other
// nodes go to one set of node indices hashed and compared by node content,
// with heterogeneous lookup by a (op, payload, children) key. Each entry also
// holds the class the node was added to, so that a hit needs no node_class_
// read.
struct EGraph::Hashcons {
  struct Slot {
    NodeIdx node;
    Id cls;  // node_class_[node] (not necessarily canonical)
  };
  struct Key {
    Symbol op;
    Payload payload;
    absl::Span<const Id> children;
  };
  struct Hash {
    using is_transparent = void;
    const Store* s;
    size_t operator()(const Slot& slot) const {
      const NodeRec& r = s->nodes[slot.node];
      return HashContent(r.Op(), r.payload, s->Children(r), r.Arity());
    }
    size_t operator()(const Key& k) const {
      return HashContent(k.op, k.payload, k.children.data(), k.children.size());
    }
  };
  struct Eq {
    using is_transparent = void;
    const Store* s;
    bool Same(NodeIdx n, Symbol op, Payload payload, const Id* ch, size_t arity) const {
      const NodeRec& r = s->nodes[n];
      if (r.Op() != op || r.payload != payload || r.Arity() != arity) return false;
      const Id* mine = s->Children(r);
      for (size_t i = 0; i < arity; ++i) {
        if (mine[i] != ch[i]) return false;
      }
      return true;
    }
    bool operator()(const Slot& a, const Slot& b) const {
      const NodeRec& r = s->nodes[b.node];
      return Same(a.node, r.Op(), r.payload, s->Children(r), r.Arity());
    }
    bool operator()(const Slot& a, const Key& k) const {
      return Same(a.node, k.op, k.payload, k.children.data(), k.children.size());
    }
    bool operator()(const Key& k, const Slot& a) const { return (*this)(a, k); }
  };
  explicit Hashcons(const Store* s) : set(0, Hash{s}, Eq{s}) {}

  // The table of binary nodes with this op and payload (null when there is
  // none and `create` is false). The last one found is cached: rules tend to
  // look up many nodes of one op in a row.
  PairTable* Pairs(Symbol op, Payload payload, bool create) {
    const uint64_t key = PairKey(op, payload);
    if (key == last_key) return &pairs[last];
    return PairsSlow(key, create);
  }
  // The same table without reading or moving the cache (null when none).
  const PairTable* FindPairs(Symbol op, Payload payload) const {
    auto it = pair_index.find(PairKey(op, payload));
    return it == pair_index.end() ? nullptr : &pairs[it->second];
  }
  static uint64_t PairKey(Symbol op, Payload payload) {
    return (uint64_t{op.id()} << 32) | payload;
  }
  PairTable* PairsSlow(uint64_t key, bool create) {
    auto it = pair_index.find(key);
    if (it == pair_index.end()) {
      if (!create) return nullptr;
      it = pair_index.emplace(key, static_cast<uint32_t>(pairs.size())).first;
      pairs.emplace_back();
    }
    last_key = key;
    last = it->second;
    return &pairs[last];
  }
  // The class an equal node was added to, or kNoId.
  Id Find(Symbol op, Payload payload, absl::Span<const Id> ch) {
    if (ch.size() == 2) {
      const PairTable* t = Pairs(op, payload, false);
      return t == nullptr ? kNoId : t->Find(ch[0], ch[1]);
    }
    auto it = set.find(Key{op, payload, ch});
    return it == set.end() ? kNoId : it->cls;
  }
  // Enters node n (content op, payload, ch; added to class cls) unless an
  // equal node is present: then returns the class that one was added to,
  // else kNoId.
  Id Insert(NodeIdx n, Symbol op, Payload payload, absl::Span<const Id> ch, Id cls) {
    if (ch.size() == 2) {
      PairTable* t = Pairs(op, payload, true);
      const size_t before = t->ApproxBytes();
      const Id found = t->Insert(ch[0], ch[1], cls);
      pair_bytes += t->ApproxBytes() - before;
      pair_entries += found == kNoId;
      return found;
    }
    auto [it, inserted] = set.insert(Slot{n, cls});
    return inserted ? kNoId : it->cls;
  }
  // Removes node n, whose content is (op, payload, ch).
  void Erase(NodeIdx n, Symbol op, Payload payload, absl::Span<const Id> ch) {
    if (ch.size() == 2) {
      pair_entries -= Pairs(op, payload, true)->Erase(ch[0], ch[1]);
      return;
    }
    set.erase(Slot{n, kNoId});
  }
  size_t size() const { return set.size() + pair_entries; }
  size_t ApproxBytes() const {
    return set.capacity() * (sizeof(Slot) + 1) + pair_bytes + pairs.capacity() * sizeof(PairTable) +
           pair_index.capacity() * 16;
  }

  // Nodes of arity other than 2.
  absl::flat_hash_set<Slot, Hash, Eq> set;
  // Binary nodes, one table per (op, payload): pairs[pair_index[op << 32 | payload]].
  absl::flat_hash_map<uint64_t, uint32_t> pair_index;
  std::vector<PairTable> pairs;
  uint64_t last_key = ~uint64_t{0};
  uint32_t last = 0;
  size_t pair_entries = 0;
  size_t pair_bytes = 0;
};

std::string MergeConflict::ToString() const {
  std::string who = rule.empty() ? std::string("congruence") : absl::StrFormat("rule '%s'", rule);
  if (b == kNoId) {
    return absl::StrFormat(
        "%s: refused to add a node of type %s equal to a node of class %d (%s): types differ", who,
        type_b.ToString(), a, type_a.ToString());
  }
  return absl::StrFormat("%s: refused to merge class %d (%s) with class %d (%s): %s", who, a,
                         type_a.ToString(), b, type_b.ToString(),
                         constants_differ ? "constants differ" : "types differ");
}

EGraph::EGraph(OpTable ops)
    : ops_(std::move(ops)),
      store_(std::make_unique<Store>()),
      hashcons_(std::make_unique<Hashcons>(store_.get())),
      const_op_(Symbol::Intern(kConstOp)),
      shape_op_(Symbol::Intern(kShapeOp)),
      out_op_(Symbol::Intern(kOutOp)),
      cast_op_(Symbol::Intern("Cast")),
      qnn_cast_op_(Symbol::Intern("QNN_Cast")),
      quantize_op_(Symbol::Intern("Quantize")),
      dequantize_op_(Symbol::Intern("Dequantize")) {}
EGraph::~EGraph() = default;
EGraph::EGraph(EGraph&&) noexcept = default;
EGraph& EGraph::operator=(EGraph&&) noexcept = default;

bool EGraph::ClassifyOp(Symbol op) {
  if (op.id() >= unhashed_op_.size()) unhashed_op_.resize(op.id() + 64, 0);
  uint8_t& v = unhashed_op_[op.id()];
  if (v == 0) {
    const OpTraits* t = ops_.Find(op);
    v = (op.is_volatile() || (t != nullptr && t->side_effecting)) ? 2 : 1;
  }
  return v == 2;
}

bool EGraph::LogChange(Id c) {
  const uint32_t e = static_cast<uint32_t>(epoch_);
  if (logged_epoch_[c] == e) return false;
  logged_epoch_[c] = e;
  change_log_.push_back(c);
  return true;
}

template <typename F>
void EGraph::ForEachOp(Id c, F f) const {
  // The summary describes the list as of its last sort (or creation), which
  // is all an update of the index has seen of it. (The run table is not
  // read: a rebuild may have appended to the list since.)
  const NodeList& nodes = class_nodes_[c];
  if (!(nodes.ops() & kMixed)) {
    f(Symbol::FromId(nodes.ops()));
    return;
  }
  Symbol last;
  bool first = true;
  for (NodeIdx n : nodes) {
    const Symbol s = store_->nodes[n].Op();
    if (first || s != last) f(s);
    first = false;
    last = s;
  }
}

absl::Status EGraph::Conflict(Id a, Id b, TypeId type_b, bool constants) {
  ++num_conflicts_;
  MergeConflict m;
  m.rule = std::string(rule_context_);
  m.a = a;
  m.b = b;
  m.type_a = TypeOf(a);
  m.type_b = Type(type_b);
  m.constants_differ = constants;
  absl::Status s = absl::FailedPreconditionError(m.ToString());
  if (conflicts_.size() < 1000) conflicts_.push_back(std::move(m));
  return s;
}

absl::Status EGraph::CheckArity(const ENodeView& node) {
  if (node.children.size() <= 0xFFFF) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrFormat("e-node %s has %d operands (at most 65535)",
                                                    node.op.str(), node.children.size()));
}

NodeIdx EGraph::StoreNode(const ENodeView& node, absl::Span<const Id> ch, bool unhashed, Id cls) {
  Store& st = *store_;
  // A dead node's record when one is free (and no derivation can name it),
  // else a new one.
  const bool reuse = free_head_ != kNoFree && !derivations_.enabled();
  NodeIdx n = reuse ? free_head_ : static_cast<NodeIdx>(st.nodes.size());
  ABSL_RAW_CHECK(node.op.id() <= kOpMask, "more than 2^28 op symbols");
  const uint32_t code = ch.size() <= 2 ? static_cast<uint32_t>(ch.size()) : 3;
  NodeRec rec{node.op.id() | ((unhashed ? uint32_t{kUnhashed} : 0u) << kOpBits) | (code << 30),
              node.payload,
              static_cast<uint32_t>(epoch_),
              static_cast<uint32_t>(epoch_),
              {0, 0}};
  if (code == 3) {
    rec.ch[0] = static_cast<Id>(st.more.size());
    rec.ch[1] = static_cast<Id>(ch.size());
    st.more.insert(st.more.end(), ch.begin(), ch.end());
  } else {
    for (size_t i = 0; i < ch.size(); ++i) rec.ch[i] = ch[i];
  }
  if (reuse) {
    free_head_ = st.nodes[n].content_stamp;
    st.nodes[n] = rec;
    node_class_[n] = cls;
    dead_bits_[n >> 6] &= ~(uint64_t{1} << (n & 63));
  } else {
    st.nodes.push_back(rec);
    node_class_.push_back(cls);
    if ((n & 63) == 0) dead_bits_.push_back(0);
    derivations_.OnNodeStored();
  }
  for (size_t i = 0; i < ch.size(); ++i) {
    if (std::find(ch.begin(), ch.begin() + i, ch[i]) != ch.begin() + i) continue;
    class_parents_[ch[i]].push_back(n);
    ++list_entries_;
  }
  if (!unhashed) hashcons_->Insert(n, node.op, node.payload, ch, cls);
  ++live_nodes_;
  ++list_entries_;
  ++version_;
  return n;
}

Payload EGraph::PayloadFor(const ENodeView& node, TypeId type) const {
  if ((node.payload != kNoPayload && (node.payload & kTypePayloadBit) == 0) ||
      node.op == const_op_ || node.op == shape_op_) {
    return node.payload;
  }
  if (node.op == cast_op_ || node.op == qnn_cast_op_ || node.op == quantize_op_ ||
      node.op == dequantize_op_ || TypeIsQuantized(type)) {
    return kTypePayloadBit | type;
  }
  return kNoPayload;
}

bool EGraph::TypeIsQuantized(TypeId type) const {
  if (type >= type_quantized_.size()) type_quantized_.resize(types_.size(), 0);
  uint8_t& v = type_quantized_[type];
  if (v == 0) v = IsQuantized(types_.Get(type).dtype) ? 2 : 1;
  return v == 2;
}

absl::StatusOr<Id> EGraph::Add(const ENodeView& in, TypeId type) {
  const ENodeView node{in.op, PayloadFor(in, type), in.children};
  if (node.children.size() == 2) {
    const Id ch[2] = {Find(node.children[0]), Find(node.children[1])};
    return AddCanonical(node, ch, type);
  }
  if (absl::Status s = CheckArity(node); !s.ok()) return s;
  absl::InlinedVector<Id, 8> ch(node.children.begin(), node.children.end());
  for (Id& c : ch) c = Find(c);
  return AddCanonical(node, ch, type);
}

absl::StatusOr<Id> EGraph::AddCanonical(const ENodeView& node, absl::Span<const Id> ch,
                                        TypeId type) {
  const bool unhashed = IsUnhashedOp(node.op);
  if (!unhashed) {
    const Id hit = hashcons_->Find(node.op, node.payload, ch);
    if (hit != kNoId) return Existing(hit, type);
  }
  return NewClass(node, ch, unhashed, type);
}

absl::StatusOr<Id> EGraph::Existing(Id hit, TypeId type) {
  const Id c = Find(hit);
  if (class_type_[hit] != type) return Conflict(c, kNoId, type, false);
  return c;
}

void EGraph::Reserve(size_t nodes, size_t non_binary) {
  const size_t stored = store_->nodes.size() + nodes;
  store_->nodes.reserve(stored);
  node_class_.reserve(stored);
  dead_bits_.reserve(stored / 64 + 1);
  ReserveClassIds(class_nodes_.size() + nodes);
  hashcons_->set.reserve(hashcons_->set.size() + non_binary);
}

void EGraph::ReserveClassIds(size_t n) {
  class_nodes_.reserve(n);
  class_parents_.reserve(n);
  class_type_.reserve(n);
  class_constant_.reserve(n);
  logged_epoch_.reserve(n);
  uf_.Reserve(n);
}

Id EGraph::NewClass(const ENodeView& node, absl::Span<const Id> ch, bool unhashed, TypeId type) {
  if (class_nodes_.size() == class_nodes_.capacity()) {
    // Half again as many (a doubling would leave up to half of these arrays,
    // 52 bytes per class id, unused).
    ReserveClassIds(class_nodes_.size() + class_nodes_.size() / 2 + 16);
  }
  Id c = uf_.MakeSet();
  class_nodes_.emplace_back();
  class_parents_.emplace_back();
  class_type_.push_back(type);
  class_constant_.push_back(node.op == const_op_ ? node.payload : kNoPayload);
  logged_epoch_.push_back(~uint32_t{0});
  NodeList& nodes = class_nodes_.back();
  nodes.push_back(StoreNode(node, ch, unhashed, c));
  nodes.SetSingleOp(node.op.id());  // below kMixed (StoreNode checks)
  ++live_classes_;
  LogChange(c);
  return c;
}

absl::StatusOr<Id> EGraph::AddToClass(const ENodeView& in, Id cls) {
  cls = Find(cls);
  const TypeId type = class_type_[cls];
  const ENodeView node{in.op, PayloadFor(in, type), in.children};
  // Volatile nodes get a class of their own; a "$Const" sets class data.
  if (IsUnhashedOp(node.op) || node.op == const_op_) return Add(node, type);
  if (node.children.size() == 2) {
    const Id ch[2] = {Find(node.children[0]), Find(node.children[1])};
    return AddCanonicalToClass(node, ch, cls, type);
  }
  if (absl::Status s = CheckArity(node); !s.ok()) return s;
  absl::InlinedVector<Id, 8> ch(node.children.begin(), node.children.end());
  for (Id& c : ch) c = Find(c);
  return AddCanonicalToClass(node, ch, cls, type);
}

absl::StatusOr<Id> EGraph::AddCanonicalToClass(const ENodeView& node, absl::Span<const Id> ch,
                                               Id cls, TypeId type) {
  const Id hit = hashcons_->Find(node.op, node.payload, ch);
  if (hit != kNoId) return Existing(hit, type);
  pending_members_.push_back(StoreNode(node, ch, false, cls));
  return cls;
}

Id EGraph::FindPair(Symbol op, Payload payload, const Id (&ch)[2]) {
  const PairTable* t = hashcons_->Pairs(op, payload, false);
  return t == nullptr ? kNoId : t->Find(ch[0], ch[1]);
}

void EGraph::PrefetchPair(Symbol op, Payload payload, Id a, Id b) {
  if (const PairTable* t = hashcons_->Pairs(op, payload, false)) t->Prefetch(Find(a), Find(b));
}

void EGraph::PrefetchAdd(const ENodeView& in, TypeId type) {
  if (IsUnhashedOp(in.op)) return;
  const Payload payload = PayloadFor(in, type);
  if (in.children.size() == 2) {
    // Not through Pairs(): its one-entry cache serves the adds in between.
    const PairTable* t = hashcons_->FindPairs(in.op, payload);
    if (t != nullptr) t->Prefetch(in.children[0], in.children[1]);
    return;
  }
  PrefetchLookup(hashcons_->set, Hashcons::Key{in.op, payload, in.children});
}

absl::StatusOr<Id> EGraph::AddPair(Symbol op, Payload payload, Id a, Id b, TypeId type) {
  const Id ch[2] = {Find(a), Find(b)};
  const ENodeView node{op, payload, ch};
  const bool unhashed = IsUnhashedOp(op);
  if (!unhashed) {
    const Id hit = FindPair(op, payload, ch);
    if (hit != kNoId) return Existing(hit, type);
  }
  return NewClass(node, ch, unhashed, type);
}

absl::StatusOr<Id> EGraph::AddPairToClass(Symbol op, Payload payload, Id a, Id b, Id cls) {
  if (IsUnhashedOp(op) || op == const_op_) {
    const Id ch[2] = {a, b};
    return AddToClass(ENodeView{op, payload, ch}, cls);
  }
  cls = Find(cls);
  const Id ch[2] = {Find(a), Find(b)};
  const Id hit = FindPair(op, payload, ch);
  if (hit != kNoId) return Existing(hit, class_type_[cls]);
  pending_members_.push_back(StoreNode(ENodeView{op, payload, ch}, ch, false, cls));
  return cls;
}

Id EGraph::AddConstant(ConstTensorPtr value) {
  return AddInternedConstant(constants_.Intern(std::move(value)));
}

Id EGraph::AddInternedConstant(Payload p) {
  const TypeId type = InternType(constants_.Get(p)->type());
  // Equal payloads mean equal data, hence equal types: this cannot conflict.
  return *Add(ENodeView{const_op_, p, {}}, type);
}

Id EGraph::AddShape(const Dims& dims) {
  TypeId type = InternType(ShapeType(dims));
  return *Add(ENodeView{shape_op_, type, {}}, type);
}

absl::StatusOr<Id> EGraph::AddOut(Id multi, int num_outputs, int index, const TensorType& type) {
  Id shape = AddShape(OutIndexType(num_outputs, index).dims);
  Id ch[2] = {multi, shape};
  return Add(ENodeView{out_op_, kNoPayload, ch}, type);
}

std::optional<Id> EGraph::Lookup(const ENodeView& node) const {
  absl::InlinedVector<Id, 8> ch(node.children.begin(), node.children.end());
  for (Id& c : ch) c = Find(c);
  const Id hit = hashcons_->Find(node.op, node.payload, ch);
  if (hit == kNoId) return std::nullopt;
  return Find(hit);
}

absl::StatusOr<bool> EGraph::Union(Id a, Id b) {
  const Id given_a = a, given_b = b;
  a = Find(a);
  b = Find(b);
  if (a == b) return false;
  if (class_type_[a] != class_type_[b]) return Conflict(a, b, class_type_[b], false);
  const Payload ka = class_constant_[a];
  const Payload kb = class_constant_[b];
  if (ka != kNoPayload && kb != kNoPayload && ka != kb) return Conflict(a, b, class_type_[b], true);
  // The class with more to repair stays the root.
  if (class_nodes_[a].size() + class_parents_[a].size() <
      class_nodes_[b].size() + class_parents_[b].size()) {
    std::swap(a, b);
  }
  uf_.Link(b, a);
  derivations_.OnUnion(given_a, given_b, rule_context_);
  if (class_constant_[a] == kNoPayload) class_constant_[a] = class_constant_[b];
  pending_.push_back(b);
  --live_classes_;
  ++version_;
  return true;
}

bool EGraph::NodeLess(NodeIdx a, NodeIdx b) const {
  const NodeRec& x = store_->nodes[a];
  const NodeRec& y = store_->nodes[b];
  if (x.Op() != y.Op()) return x.Op() < y.Op();
  if (x.payload != y.payload) return x.payload < y.payload;
  const uint32_t arity = x.Arity();
  if (arity != y.Arity()) return arity < y.Arity();
  const Id* cx = store_->Children(x);
  const Id* cy = store_->Children(y);
  for (uint32_t i = 0; i < arity; ++i) {
    if (cx[i] != cy[i]) return cx[i] < cy[i];
  }
  return a < b;
}

void EGraph::Repair(NodeIdx p, std::vector<Id>& touched) {
  Store& st = *store_;
  NodeRec& rec = st.nodes[p];
  if (!IsLive(p)) return;
  Id* ch = st.Children(rec);
  const uint32_t arity = rec.Arity();
  bool stale = false;
  for (uint32_t k = 0; k < arity; ++k) stale |= !uf_.IsRoot(ch[k]);
  if (!stale) return;  // already repaired (a parent of several merged classes)
  const bool hashed = !(rec.Flags() & kUnhashed);
  const absl::Span<const Id> content(ch, arity);
  if (hashed) hashcons_->Erase(p, rec.Op(), rec.payload, content);
  for (uint32_t k = 0; k < arity; ++k) ch[k] = Find(ch[k]);
  rec.stamp = rec.content_stamp = static_cast<uint32_t>(epoch_);
  Id pc = Find(node_class_[p]);
  if (LogChange(pc)) touched.push_back(pc);
  if (!hashed) return;
  const Id found = hashcons_->Insert(p, rec.Op(), rec.payload, content, node_class_[p]);
  if (found == kNoId) return;
  Id qc = Find(found);
  if (qc == pc || Union(pc, qc).ok()) {
    dead_bits_[p >> 6] |= uint64_t{1} << (p & 63);
    --live_nodes_;
    if (!derivations_.enabled()) Kill(p);
  } else {
    // A refused congruence (recorded): keep p, outside the hash-cons.
    rec.SetFlag(kUnhashed);
  }
}

void EGraph::SortByContent(absl::Span<NodeIdx> nodes) const {
  if (nodes.size() < 2) return;
  const NodeRec* recs = store_->nodes.data();
  const NodeRec& first = recs[nodes.front()];
  bool uniform = true;
  for (NodeIdx n : nodes) {
    const NodeRec& r = recs[n];
    if (r.Op() != first.Op() || r.payload != first.payload || r.Arity() != 2) {
      uniform = false;
      break;
    }
  }
  if (!uniform) {
    std::sort(nodes.begin(), nodes.end(), [&](NodeIdx a, NodeIdx b) { return NodeLess(a, b); });
    return;
  }
  // NodeLess then orders by the two operands and the index: sort (operands,
  // index) keys, without reading records inside the sort.
  std::vector<std::pair<uint64_t, NodeIdx>> keyed;
  keyed.reserve(nodes.size());
  for (NodeIdx n : nodes) {
    const Id* ch = store_->Children(recs[n]);
    keyed.emplace_back((uint64_t{ch[0]} << 32) | ch[1], n);
  }
  std::sort(keyed.begin(), keyed.end());
  for (size_t i = 0; i < nodes.size(); ++i) nodes[i] = keyed[i].second;
}

void EGraph::CleanClass(Id c, bool with_parents) {
  const NodeRec* recs = store_->nodes.data();
  auto dead = [&](NodeIdx n) { return !IsLive(n); };
  NodeList& nodes = class_nodes_[c];
  nodes.Truncate(std::remove_if(nodes.begin(), nodes.end(), dead));
  SortByContent(nodes.mutable_span());
  nodes.Index([&](NodeIdx n) { return recs[n].Op().id(); });
  if (!with_parents) return;
  DropDeadParents(c);
  IdList& parents = class_parents_[c];
  std::sort(parents.begin(), parents.end());
  parents.Truncate(std::unique(parents.begin(), parents.end()));
}

void EGraph::DropDeadParents(Id c) {
  IdList& parents = class_parents_[c];
  parents.Truncate(
      std::remove_if(parents.begin(), parents.end(), [&](NodeIdx p) { return !IsLive(p); }));
}

size_t EGraph::Rebuild() {
  const size_t classes_before = live_classes_;
  // Merges found here are congruence, whatever rule context is set.
  const std::string_view context = rule_context_;
  rule_context_ = "";
  // A new epoch, so that classes logged before (e.g. when created) are logged
  // again when they change here.
  ++epoch_;
  // Classes whose node lists changed, once each (every class is logged at
  // most once per epoch, and only a rebuild logs in this one).
  std::vector<Id> touched;
  std::vector<Id> merged;  // classes that received another class's lists
  // The parents to repair: the range [begin, end) of class r's parent list
  // that a merge appended (indices stay valid when the list grows; no list
  // changes while they are repaired).
  struct Appended {
    Id r;
    uint32_t begin;
    uint32_t end;
  };
  std::vector<Appended> repair;
  // Nodes added to existing classes join their lists now.
  for (NodeIdx n : pending_members_) {
    Id r = Find(node_class_[n]);
    class_nodes_[r].push_back(n);
    store_->nodes[n].stamp = static_cast<uint32_t>(epoch_);
    if (LogChange(r)) touched.push_back(r);
  }
  pending_members_.clear();
  while (!pending_.empty()) {
    std::vector<Id> losers;
    losers.swap(pending_);
    repair.clear();
    for (Id l : losers) {
      Id r = Find(l);
      NodeList& ln = class_nodes_[l];
      NodeList& rn = class_nodes_[r];
      IdList& lp = class_parents_[l];
      IdList& rp = class_parents_[r];
      // The loser's nodes join r (new matches through r) and its parents now
      // hold a non-canonical operand: only they need repair, as in egg; the
      // parents of r are unaffected by this merge.
      if (op_index_built_) ForEachOp(l, [&](Symbol s) { op_index_.NoteRemoved(s, l); });
      for (NodeIdx n : ln) store_->nodes[n].stamp = static_cast<uint32_t>(epoch_);
      rn.Append(ln.span());
      const uint32_t begin = static_cast<uint32_t>(rp.size());
      rp.Append(lp.span());
      repair.push_back(Appended{r, begin, static_cast<uint32_t>(rp.size())});
      ln.Release();
      lp.Release();
      if (LogChange(r)) touched.push_back(r);
      merged.push_back(r);
    }
    for (const Appended& a : repair) {
      for (uint32_t i = a.begin; i < a.end; ++i) Repair(class_parents_[a.r][i], touched);
    }
  }
  for (std::vector<Id>* list : {&touched, &merged}) {
    for (Id& c : *list) c = Find(c);
    SortUniqueIds(*list, class_nodes_.size(), sort_bits_);
  }
  for (Id c : touched) {
    CleanClass(c, std::binary_search(merged.begin(), merged.end(), c));
  }
  FilterKilledParents(touched, merged);
  rule_context_ = context;
  ++epoch_;
  return classes_before - live_classes_;
}

void EGraph::Kill(NodeIdx p) {
  NodeRec& rec = store_->nodes[p];
  const Id* ch = store_->Children(rec);
  const size_t words = (class_nodes_.size() + 63) / 64;
  if (unfiltered_.size() < words) unfiltered_.resize(words, 0);
  for (uint32_t k = 0; k < rec.Arity(); ++k) unfiltered_[ch[k] >> 6] |= uint64_t{1} << (ch[k] & 63);
  // Nothing reads or writes a dead node's content stamp (unlike its stamp,
  // which Rebuild() writes for every node of a merged list, dead or not): it
  // links the free records.
  rec.content_stamp = free_head_;
  free_head_ = p;
}

void EGraph::FilterKilledParents(const std::vector<Id>& touched, const std::vector<Id>& merged) {
  for (size_t w = 0; w < unfiltered_.size(); ++w) {
    for (uint64_t bits = unfiltered_[w]; bits != 0; bits &= bits - 1) {
      const Id c = Find(static_cast<Id>(w * 64 + __builtin_ctzll(bits)));
      if (std::binary_search(touched.begin(), touched.end(), c) &&
          std::binary_search(merged.begin(), merged.end(), c)) {
        continue;  // CleanClass filtered its parents
      }
      DropDeadParents(c);
    }
    unfiltered_[w] = 0;
  }
}

std::vector<Id> EGraph::Classes() const {
  std::vector<Id> out;
  out.reserve(live_classes_);
  for (Id c = 0; c < class_nodes_.size(); ++c) {
    if (uf_.IsRoot(c)) out.push_back(c);
  }
  return out;
}

void EGraph::UpdateOpIndex() const {
  op_index_epoch_ = epoch_;
  if (!op_index_built_) {
    // The first call: every class, by the loop in ClassesWithOp.
    op_index_built_ = true;
    op_index_log_ = change_log_.size();
    return;
  }
  // Classes merged away by unions not rebuilt yet (Rebuild() noted the
  // others): their lists are intact.
  for (Id l : pending_) ForEachOp(l, [&](Symbol s) { op_index_.NoteRemoved(s, l); });
  // Classes whose lists grew since the last update are in the change log;
  // those created since are appended by ClassesWithOp.
  std::vector<Id> grown;
  for (Id c : change_log(op_index_log_)) {
    const Id r = Find(c);
    if (r < op_index_ids_) grown.push_back(r);
  }
  op_index_log_ = change_log_.size();
  SortUniqueIds(grown, op_index_ids_, sort_bits_);
  for (Id r : grown) ForEachOp(r, [&](Symbol s) { op_index_.NoteAdded(s, r); });
  op_index_.Update();
}

absl::Span<const Id> EGraph::ClassesWithOp(Symbol op) const {
  if (op_index_epoch_ != epoch_) UpdateOpIndex();
  // Classes created since the last call are appended (their ids exceed every
  // listed one).
  for (Id c = static_cast<Id>(op_index_ids_); c < class_nodes_.size(); ++c) {
    if (uf_.IsRoot(c)) ForEachOp(c, [&](Symbol s) { op_index_.Append(s, c); });
  }
  op_index_ids_ = class_nodes_.size();
  return op_index_.Get(op);
}

const ConstTensorPtr& EGraph::ConstantOf(Id c) const {
  static const ConstTensorPtr kNone;
  const Payload p = class_constant_[c];
  return p == kNoPayload ? kNone : constants_.Get(p);
}

size_t EGraph::hashcons_size() const { return hashcons_->size(); }

size_t EGraph::ApproxMemoryBytes() const {
  size_t bytes =
      sizeof(*this) + store_->nodes.capacity() * sizeof(NodeRec) +
      store_->more.capacity() * sizeof(Id) + node_class_.capacity() * sizeof(Id) +
      dead_bits_.capacity() * sizeof(uint64_t) + hashcons_->ApproxBytes() +
      class_nodes_.capacity() * (sizeof(NodeList) + sizeof(IdList)) +
      class_type_.capacity() * (sizeof(TypeId) + sizeof(Payload) + 2 * sizeof(uint32_t)) +
      list_entries_ * sizeof(NodeIdx) + uf_.ApproxBytes() + change_log_.capacity() * sizeof(Id) +
      pending_members_.capacity() * sizeof(NodeIdx) + unfiltered_.capacity() * sizeof(uint64_t) +
      sort_bits_.capacity() * sizeof(uint64_t) + types_.ApproxBytes() + unhashed_op_.capacity() +
      type_quantized_.capacity() + derivations_.ApproxBytes();
  return bytes;
}

}  // namespace egret
