// Comparison and logic ONNX ops: Equal, Less, LessOrEqual, Greater,
// GreaterOrEqual, And, Or, Xor, Not, Where. Each maps onto the egret op of the
// same meaning (ElementWiseEqual .. ElementWiseSelect); constant operands
// (shape arithmetic such as Where(Equal(shape, -1), ...)) fold at import like
// any other node's (import_folding.cc).
#include "egret/onnx/importer_internal.h"

namespace egret::onnx_import {

namespace {

// The egret op of each binary ONNX comparison or logic op.
const absl::flat_hash_map<std::string, std::string>& BinaryOps() {
  static const auto* const kOps = new absl::flat_hash_map<std::string, std::string>{
      {"Equal", "ElementWiseEqual"},
      {"Less", "ElementWiseLess"},
      {"LessOrEqual", "ElementWiseLessEqual"},
      {"Greater", "ElementWiseGreater"},
      {"GreaterOrEqual", "ElementWiseGreaterEqual"},
      {"And", "ElementWiseAnd"},
      {"Or", "ElementWiseOr"},
      {"Xor", "ElementWiseXor"}};
  return *kOps;
}

absl::Status DoCompare(Importer& im) {
  const std::string& op = im.cur_->op_type();
  return im.Binary(BinaryOps().at(op), im.InName(0), im.InName(1), im.Out());
}

absl::Status DoNot(Importer& im) { return im.Unary("ElementWiseNot", im.InName(0), im.Out()); }

absl::Status DoWhere(Importer& im) {
  const Value& c = im.In(0);
  const Value& x = im.In(1);
  const Value& y = im.In(2);
  EGRET_ASSIGN_OR_RETURN(auto xy, BroadcastDims(x.type.dims, y.type.dims));
  EGRET_ASSIGN_OR_RETURN(auto dims, BroadcastDims(c.type.dims, xy));
  std::vector<ValueRef> ins;
  const bool nhwc =
      dims.size() == 4 && (IsNhwcActivation(c) || IsNhwcActivation(x) || IsNhwcActivation(y));
  for (int i = 0; i < 3; ++i) {
    EGRET_ASSIGN_OR_RETURN(auto r,
                           nhwc ? im.BroadcastNhwc(im.InName(i)) : im.Get(im.InName(i), kPlain));
    ins.push_back(r);
  }
  EGRET_ASSIGN_OR_RETURN(auto r, im.Emit("ElementWiseSelect", std::move(ins), im.Out()));
  im.SetValue(im.Out(), r, nhwc ? kNhwc : kPlain);
  return absl::OkStatus();
}

}  // namespace

void RegisterLogicHandlers(HandlerTable& t) {
  for (const auto& [onnx_op, egret_op] : BinaryOps()) t[onnx_op] = DoCompare;
  t["Not"] = DoNot;
  t["Where"] = DoWhere;
}

}  // namespace egret::onnx_import
