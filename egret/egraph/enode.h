// E-nodes: an op symbol, the e-classes of its operands, and a 32-bit payload.
//
// The payload distinguishes nodes that have the same op and operands but
// compute different things. Its meaning depends on the op (see EGraph):
//   "$Const": index of the constant in the e-graph's constant pool;
//   "$Shape": the TypeId of its Int32 output type (the dims are the value);
//   opaque ops: index of their Attributes in the attribute pool (0 = none);
//   any other op: a small integer attribute chosen by the caller, or 0;
//   but a node whose output type is not a function of its operands (Cast,
//   QNN_Cast, Quantize and Dequantize, and any node with a quantized result: its
//   encoding is declared) and that has no attributes gets
//   kTypePayloadBit | its output TypeId from EGraph::Add, so that
//   Quantize[T1](x) and Quantize[T2](x) are two values, not a conflict.
#ifndef EGRET_EGRAPH_ENODE_H_
#define EGRET_EGRAPH_ENODE_H_

#include <cstdint>

#include "absl/container/inlined_vector.h"
#include "absl/types/span.h"
#include "egret/egraph/id.h"
#include "egret/egraph/symbol.h"

namespace egret {

using Payload = uint32_t;
inline constexpr Payload kNoPayload = 0;
inline constexpr Payload kTypePayloadBit = Payload{1} << 31;

// A non-owning view of an e-node (how e-nodes are passed to the e-graph and
// read back from it).
struct ENodeView {
  Symbol op;
  Payload payload = kNoPayload;
  absl::Span<const Id> children;
};

// An owning e-node, for building nodes in caller code.
struct ENode {
  Symbol op;
  Payload payload = kNoPayload;
  absl::InlinedVector<Id, 4> children;

  ENode() = default;
  ENode(Symbol o, absl::Span<const Id> c, Payload p = kNoPayload)
      : op(o), payload(p), children(c.begin(), c.end()) {}
  ENodeView view() const { return ENodeView{op, payload, children}; }
};

}  // namespace egret

#endif  // EGRET_EGRAPH_ENODE_H_
