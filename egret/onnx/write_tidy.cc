// The writer's last pass over the ONNX graph it wrote (writer_internal.h,
// TidyGraph; write_tidy_internal.h says what it does): the driver, Identity
// and dead nodes, and the records of what it removed.
#include <algorithm>
#include <numeric>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/hash/hash.h"
#include "absl/strings/str_cat.h"
#include "egret/onnx/egret_record_internal.h"
#include "egret/onnx/onnx_tensor_internal.h"
#include "egret/onnx/write_tidy_internal.h"
#include "egret/onnx/writer_internal.h"

namespace egret::onnx_export {
namespace tidy {

void Tidier::RemoveIdentities() {
  absl::flat_hash_set<std::string> inputs, outputs;
  for (const auto& i : gp_->input()) inputs.insert(i.name());
  for (const auto& o : gp_->output()) outputs.insert(o.name());
  absl::flat_hash_set<std::string> produced;
  for (const auto& n : out_) {
    for (const auto& o : n.output()) produced.insert(o);
  }
  absl::flat_hash_map<std::string, std::string> rename;
  std::vector<bool> drop(out_.size(), false);
  for (size_t i = 0; i < out_.size(); ++i) {
    const onnx::NodeProto& n = out_[i];
    if (n.op_type() != "Identity" || !n.domain().empty() || n.input_size() != 1 ||
        n.output_size() != 1 || !outputs.contains(n.output(0))) {
      continue;
    }
    const std::string& x = n.input(0);
    if (!produced.contains(x) || inputs.contains(x) || pinned_.contains(x) || rename.contains(x)) {
      continue;
    }
    rename[x] = n.output(0);
    drop[i] = true;
  }
  if (rename.empty()) return;
  std::vector<onnx::NodeProto> kept;
  for (size_t i = 0; i < out_.size(); ++i) {
    if (drop[i]) continue;
    onnx::NodeProto& n = out_[i];
    for (int k = 0; k < n.input_size(); ++k) {
      if (auto r = rename.find(n.input(k)); r != rename.end()) n.set_input(k, r->second);
    }
    for (int k = 0; k < n.output_size(); ++k) {
      if (auto r = rename.find(n.output(k)); r != rename.end()) n.set_output(k, r->second);
    }
    kept.push_back(std::move(n));
  }
  out_ = std::move(kept);
}

namespace {

// Ops whose every run draws anew: two of them are two draws, never one.
bool Draws(const onnx::NodeProto& n) {
  for (std::string_view op : {"RandomNormal", "RandomUniform", "RandomNormalLike",
                              "RandomUniformLike", "Multinomial", "Bernoulli", "Dropout"}) {
    if (n.op_type() == op) return true;
  }
  return false;
}

// An initializer's contents but its raw data (type, dims, typed data, data
// location), serialized: small, where the raw data may be gigabytes.
std::string ContentsButRawData(const onnx::TensorProto& t) {
  onnx::TensorProto bare;
  bare.set_data_type(t.data_type());
  *bare.mutable_dims() = t.dims();
  *bare.mutable_float_data() = t.float_data();
  *bare.mutable_int32_data() = t.int32_data();
  *bare.mutable_int64_data() = t.int64_data();
  *bare.mutable_double_data() = t.double_data();
  *bare.mutable_uint64_data() = t.uint64_data();
  *bare.mutable_string_data() = t.string_data();
  *bare.mutable_external_data() = t.external_data();
  bare.set_data_location(t.data_location());
  return bare.SerializeAsString();
}

}  // namespace

void Tidier::MergeDuplicates() {
  // An initializer's key names the first initializer with the same contents
  // (type, dims and data, not name or doc string), found by a hash of them
  // and compared exactly, once per initializer; its raw data is not copied.
  struct Seen {
    std::string rest;  // ContentsButRawData
    const onnx::TensorProto* init;
  };
  absl::flat_hash_map<size_t, std::vector<Seen>> by_hash;
  absl::flat_hash_map<std::string, std::string> content_key;
  auto input_key = [&](const std::string& name) -> std::string {
    const onnx::TensorProto* init = Init(name);
    if (init == nullptr) return absl::StrCat("t:", name);
    auto it = content_key.find(name);
    if (it != content_key.end()) return it->second;
    std::string rest = ContentsButRawData(*init);
    const std::string_view raw = init->raw_data();
    std::vector<Seen>& same_hash = by_hash[absl::HashOf(rest, raw)];
    std::string key;
    for (const Seen& s : same_hash) {
      if (s.rest == rest && s.init->raw_data() == raw) key = absl::StrCat("c:", s.init->name());
    }
    if (key.empty()) {
      key = absl::StrCat("c:", name);
      same_hash.push_back({std::move(rest), init});
    }
    return content_key.emplace(name, std::move(key)).first->second;
  };
  absl::flat_hash_map<std::string, std::string> rename;  // output -> the first node's
  absl::flat_hash_map<std::string, int> first;           // node key -> index in out_
  std::vector<bool> drop(out_.size(), false);
  for (size_t i = 0; i < out_.size(); ++i) {
    onnx::NodeProto& n = out_[i];
    for (int k = 0; k < n.input_size(); ++k) {
      if (auto r = rename.find(n.input(k)); r != rename.end()) n.set_input(k, r->second);
    }
    if (n.output_size() == 0 || HasSubgraph(n) || Draws(n)) continue;
    bool pinned = false;
    for (const auto& o : n.output()) pinned = pinned || pinned_.contains(o);
    if (pinned) continue;
    std::string key = absl::StrCat(n.domain(), "|", n.op_type(), "|", n.output_size());
    for (const auto& in : n.input()) absl::StrAppend(&key, "|", input_key(in));
    for (const auto& a : n.attribute()) absl::StrAppend(&key, "|", a.SerializeAsString());
    auto [it, fresh] = first.emplace(std::move(key), static_cast<int>(i));
    if (fresh) continue;
    const onnx::NodeProto& kept = out_[it->second];
    for (int k = 0; k < n.output_size(); ++k) rename[n.output(k)] = kept.output(k);
    drop[i] = true;
  }
  if (rename.empty()) return;
  std::vector<onnx::NodeProto> kept;
  for (size_t i = 0; i < out_.size(); ++i) {
    if (!drop[i]) kept.push_back(std::move(out_[i]));
  }
  out_ = std::move(kept);
}

void Tidier::DropDead() {
  absl::flat_hash_set<std::string> used = pinned_;
  std::vector<bool> live(out_.size(), false);
  for (size_t i = out_.size(); i-- > 0;) {
    const onnx::NodeProto& n = out_[i];
    bool any = n.output_size() == 0;
    for (const auto& o : n.output()) any = any || used.contains(o);
    if (!any) continue;
    live[i] = true;
    for (const auto& in : n.input()) used.insert(in);
  }
  std::vector<onnx::NodeProto> kept;
  for (size_t i = 0; i < out_.size(); ++i) {
    if (live[i]) kept.push_back(std::move(out_[i]));
  }
  out_ = std::move(kept);
}

// A node that carried its egret node's record (the first of its group) and
// is gone hands the record on: to the first node of its group still there,
// else (every node of the group gone) as a "before" record to the next node
// still there, or to the graph's doc string when none follows
// (egret_record_internal.h, kBeforeTag).
void Tidier::KeepRecords(const std::vector<onnx::NodeProto>& before) {
  absl::flat_hash_map<std::string, int> index;  // node name -> position in out_
  for (size_t i = 0; i < out_.size(); ++i) index[out_[i].name()] = static_cast<int>(i);
  absl::flat_hash_map<std::string, int> first_of_group;
  for (size_t i = 0; i < out_.size(); ++i) {
    if (auto g = onnx_record::DocLine(out_[i].doc_string(), onnx_record::kGroupTag)) {
      first_of_group.emplace(std::string(*g), static_cast<int>(i));
    }
  }
  std::string pending;  // before-records waiting for the next node still there
  for (const onnx::NodeProto& n : before) {
    if (auto it = index.find(n.name()); it != index.end()) {
      if (!pending.empty()) {
        onnx::NodeProto& next = out_[it->second];
        next.set_doc_string(absl::StrCat(pending, next.doc_string()));
        pending.clear();
      }
      continue;
    }
    std::optional<std::string_view> rec =
        onnx_record::DocLine(n.doc_string(), onnx_record::kRecordTag);
    if (!rec) continue;
    std::optional<std::string_view> g =
        onnx_record::DocLine(n.doc_string(), onnx_record::kGroupTag);
    if (g) {
      if (auto f = first_of_group.find(std::string(*g)); f != first_of_group.end()) {
        onnx::NodeProto& first = out_[f->second];
        if (!onnx_record::DocLine(first.doc_string(), onnx_record::kRecordTag)) {
          first.set_doc_string(n.doc_string());
        }
        continue;
      }
    }
    absl::StrAppend(&pending, onnx_record::kBeforeTag, std::string(*rec), "\n");
  }
  if (!pending.empty()) gp_->set_doc_string(absl::StrCat(gp_->doc_string(), pending));
}

namespace {

// Names read inside the subgraphs of `g`'s nodes.
void CollectSubgraphReads(const onnx::GraphProto& g, absl::flat_hash_set<std::string>* read) {
  for (const auto& n : g.node()) {
    for (const auto& a : n.attribute()) {
      auto all = [&](const onnx::GraphProto& sub) {
        for (const auto& m : sub.node()) {
          for (const auto& in : m.input()) read->insert(in);
        }
        CollectSubgraphReads(sub, read);
      };
      if (a.has_g()) all(a.g());
      for (const auto& sub : a.graphs()) all(sub);
    }
  }
}

int CountOp(const std::vector<onnx::NodeProto>& nodes, std::string_view op) {
  int c = 0;
  for (const auto& n : nodes) c += n.op_type() == op;
  return c;
}

}  // namespace

void Tidier::IndexProducers() {
  producer_.clear();
  for (size_t i = 0; i < out_.size(); ++i) {
    for (const auto& o : out_[i].output()) {
      if (!o.empty()) producer_[o] = static_cast<int>(i);
    }
  }
}

int Tidier::NumTransposes() const { return CountOp(out_, "Transpose"); }

bool Tidier::Compute() {
  for (const auto& o : gp_->output()) pinned_.insert(o.name());
  CollectSubgraphReads(*gp_, &pinned_);
  for (const auto& i : gp_->input()) names_.insert(i.name());
  for (const auto& t : gp_->initializer()) {
    names_.insert(t.name());
    inits_[t.name()] = &t;
  }
  for (const auto& vi : gp_->value_info()) names_.insert(vi.name());
  for (const auto& n : gp_->node()) {
    node_names_.insert(n.name());
    for (const auto& o : n.output()) names_.insert(o);
  }
  before_.assign(gp_->node().begin(), gp_->node().end());
  const std::vector<onnx::NodeProto>& before = before_;
  for (const onnx::NodeProto& n : before) {
    absl::flat_hash_set<std::string> read(n.input().begin(), n.input().end());
    for (const std::string& in : read) ++readers_[in];
  }
  for (onnx::NodeProto n : before) {
    for (int k = 0; k < n.input_size(); ++k) n.set_input(k, Resolve(n.input(k)));
    if (n.op_type() == "Transpose" && n.domain().empty()) {
      FoldTranspose(n);
      if (n.op_type() == "Transpose" && (HoistAboveReshape(n) || FoldIntoDequantizedConstant(n))) {
        continue;
      }
    }
    if (SinkThroughReshape(n)) continue;
    if (n.op_type() == "Identity" && n.domain().empty() && n.input_size() == 1 &&
        n.output_size() == 1 && !pinned_.contains(n.output(0))) {
      alias_[n.output(0)] = n.input(0);
      continue;
    }
    if (!Sink(n)) Emit(std::move(n));
  }
  RemoveIdentities();
  DropDead();
  if (!records_) {
    IndexProducers();
    DropZeroBiases();
    FuseIntegerProducts();
  }
  TransposesToReshapes();
  MergeReshapes();
  MergeDuplicates();
  DropDead();
  // Only ever better: no more nodes and no more Transposes than before.
  return out_.size() <= before.size() && NumTransposes() <= CountOp(before, "Transpose");
}

void Tidier::Commit() {
  KeepRecords(before_);
  gp_->clear_node();
  for (auto& n : out_) *gp_->add_node() = std::move(n);
  for (auto& t : new_inits_) *gp_->add_initializer() = std::move(t);
}

}  // namespace tidy

void TidyGraph(onnx::GraphProto* gp, const std::function<const Dims*(const std::string&)>& dims_of,
               bool records) {
  tidy::Tidier sunk(gp, dims_of, records);
  const bool sunk_ok = sunk.Compute();
  // A Transpose read by several Slices (attention's q, k and v taken from
  // one tensor) moved below them is one Transpose per Slice: better when
  // those cancel further down, worse when they stop at a MatMul. Both are
  // tried; the fewer Transposes (then nodes) win.
  if (sunk.shared_slice_sinks() > 0) {
    tidy::Tidier kept(gp, dims_of, records, /*sink_shared_into_slices=*/false);
    if (kept.Compute() &&
        (!sunk_ok || kept.NumTransposes() < sunk.NumTransposes() ||
         (kept.NumTransposes() == sunk.NumTransposes() && kept.NumNodes() < sunk.NumNodes()))) {
      kept.Commit();
      return;
    }
  }
  if (sunk_ok) sunk.Commit();
}

}  // namespace egret::onnx_export
