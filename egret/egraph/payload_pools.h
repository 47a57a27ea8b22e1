// Pools behind e-node payloads: constant tensors (for "$Const") and attribute
// maps (for opaque ops). Both intern by content, so two "$Const" nodes with
// equal data, or two opaque nodes with equal attributes, get the same payload
// and therefore hash-cons to one e-node, while different content never does.
#ifndef EGRET_EGRAPH_PAYLOAD_POOLS_H_
#define EGRET_EGRAPH_PAYLOAD_POOLS_H_

#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/types/span.h"
#include "egret/egraph/enode.h"
#include "egret/graph/graph.h"
#include "egret/graph/tensor.h"

namespace egret {

class ConstantPool {
 public:
  // The content hash: the type and every byte of the data.
  static size_t ContentHash(const Tensor& t);
  using HashFn = size_t (*)(const Tensor&);

  ConstantPool() = default;
  // With another hash (tests: one that makes distinct constants collide).
  explicit ConstantPool(HashFn hash) : hash_(hash) {}

  // A payload >= 1 for `value` (not null); equal content gives equal payloads.
  Payload Intern(ConstTensorPtr value);
  // Intern(values[i]) for each i in order, with the same payloads, but with
  // every content hash computed first and each map probe issued some values
  // ahead of its use. For a caller with many constants at once (graph import:
  // at a million nodes each probe is a cache miss, one after the other).
  std::vector<Payload> InternAll(absl::Span<const ConstTensorPtr> values);
  // The constant of a payload returned by Intern.
  const ConstTensorPtr& Get(Payload p) const { return values_[p - 1]; }
  size_t size() const { return values_.size(); }

 private:
  // Intern, given value's content hash h.
  Payload InternHashed(ConstTensorPtr value, size_t h);

  HashFn hash_ = &ContentHash;
  std::vector<ConstTensorPtr> values_;
  // Content hash -> the first payload with that hash; next_[p - 1] is the
  // next payload with the same hash as p (0: none). Distinct constants
  // nearly always hash apart, so a constant costs one map slot and no list
  // of its own (a million-node network has a weight per layer).
  absl::flat_hash_map<size_t, Payload> first_;
  std::vector<Payload> next_;
};

class AttributePool {
 public:
  // kNoPayload for empty attributes, otherwise a payload >= 1; equal
  // attributes give equal payloads.
  Payload Intern(const Attributes& attrs);
  // The attributes of a payload (empty for kNoPayload and type payloads).
  const Attributes& Get(Payload p) const;

 private:
  std::vector<Attributes> values_;
  absl::flat_hash_map<std::string, Payload> ids_;  // canonical text -> payload
};

}  // namespace egret

#endif  // EGRET_EGRAPH_PAYLOAD_POOLS_H_
