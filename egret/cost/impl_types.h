// The tensor types an HTP implementation declares, read from its
// implementation expression as written in a DEF_PACKAGE_OP* registration
// ("(conv2dImpl<QUint8CroutonTensor>)"), and whether an implementation may
// compute a node of given types. The HVX cost model (cost/hvx_cost_model.h)
// prices a node only with the implementations eligible for it
// (docs/cost-model.md, "Which implementations price a node").
//
// Tensor type names. The HTP names its tensor types
//   <element><layout>Tensor[5D|6D][_TCM]
// where <element> is the dtype ("PlainFloat" Float32, "PlainFloat16"/"F16"
// Float16, "QuantUint8"/"QUint8" QUInt8, "QuantInt8"/"QInt8" QInt8, the 16-
// and 32-bit quantized types likewise, "Int32", "Int64"), <layout> is empty
// for the plain (flat) layout or names a blocked one ("Crouton", "Crouton4x1",
// "Crouton2x2", "WideCrouton", "WideCrouton2x2": the NHWC crouton blocks; the
// depth-32 "D32Float"/"D32PaddedFloat" are blocked likewise), "5D"/"6D" mark
// a plain tensor of that rank, and "_TCM" the same tensor kept in TCM (the
// memory class does not change dtype or layout). Generic `Tensor` is any
// dtype and layout. egret's table (impl_types.cc) lists the names it knows;
// any other name ending in "Tensor" (a vendor's own type, QFloat types, hash
// tables, ...) is treated like `Tensor`: any dtype, any layout.
#ifndef EGRET_COST_IMPL_TYPES_H_
#define EGRET_COST_IMPL_TYPES_H_

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/types/span.h"
#include "egret/graph/dtype.h"

namespace egret::cost {

// The memory layout of an HTP tensor type.
enum class TensorLayout : uint8_t {
  kAny,      // generic `Tensor`, or a name egret does not know
  kPlain,    // flat: any rank
  kBlocked,  // crouton or depth-32 blocks of an NHWC tensor: rank <= 4
};

// The largest rank a blocked (crouton) layout holds.
inline constexpr int kMaxBlockedRank = 4;

// What one HTP tensor type name means.
struct HtpTensorType {
  std::optional<DType> dtype;  // nullopt: any dtype
  TensorLayout layout = TensorLayout::kAny;
  bool known = false;  // listed in egret's table (or generic `Tensor`)
};

// The meaning of the tensor type `name` ("QUint8CroutonTensor_TCM",
// "hnnx::PlainFloatTensor"; a namespace qualification is ignored). Generic
// "Tensor" and names egret does not know are any dtype and layout; `known`
// tells them apart.
HtpTensorType HtpTensorTypeOf(std::string_view name);

// The identifiers inside the template argument lists of `impl`, at any
// nesting depth, in the order written, without their namespace qualifiers:
// "(conv2dImpl<QUint8CroutonTensor>)" -> {"QUint8CroutonTensor"},
// "ns::f<hnnx::A, std::vector<B const*>, 3>" -> {"A", "vector", "B",
// "const"}. Empty for an expression without '<'. An unclosed list ends where
// the text ends; a stray '>' outside any list is ignored.
std::vector<std::string> TemplateArgumentNames(std::string_view impl);

// The tensor types an implementation declares.
struct ImplTypes {
  // The dtypes of its template arguments that name a dtype, distinct, in the
  // order written. Empty: a generic implementation (only `Tensor`, unknown
  // types, or no template), which computes every dtype.
  std::vector<DType> dtypes;
  // Some template argument is a blocked (crouton) layout: the implementation
  // computes tensors of rank <= kMaxBlockedRank only.
  bool blocked = false;
  // Template argument names ending in "Tensor" that egret does not know
  // (counted as any dtype), for a warning.
  std::vector<std::string> unknown;

  bool generic() const { return dtypes.empty(); }
  // "Float32", "QUInt8 crouton", "QUInt8/Float32", "any dtype".
  std::string Describe() const;
};

// The declared tensor types of the implementation expression `impl`: the
// tensor types among TemplateArgumentNames(impl) (names ending in "Tensor",
// optionally followed by "5D"/"6D" and "_TCM"); other template arguments
// (layouts, numbers, scalar types) are not tensor types and are ignored.
ImplTypes ImplTypesOf(std::string_view impl);

// The types of a node, as implementation eligibility sees them.
struct NodeTypes {
  // The output's dtype (of a node with one output); not concrete (Multi,
  // Unknown, None) when unknown, and then every implementation is eligible.
  DType output = DType::kUnknown;
  // The dtypes of the data operands (not parameters: op_table.h's
  // OperandDef::param), with repeats; a view of the caller's.
  absl::Span<const DType> data;
  // The largest rank of the outputs and data operands.
  int max_rank = 0;
};

// Whether the HTP has tensors of dtype d: false for Float64, UInt32, UInt64
// and BFloat16, which no HTP implementation computes (not even a generic
// <Tensor> one); a node with such an output or data operand runs off the HTP.
bool HtpHasDType(DType d);
// The first dtype of `node` (output, then data operands) the HTP lacks, or
// nullopt.
std::optional<DType> NonHtpDType(const NodeTypes& node);

// Whether an implementation declaring `impl` may compute a node of types
// `node`. A generic implementation is eligible for every node. A typed one
// with declared dtypes D is eligible when the output's dtype o is in D and
// every dtype of D is o or a data operand's dtype (so an implementation
// <QUint8CroutonTensor> computes a QUInt8 convolution whatever its Int32
// bias, and <QuantUint8Tensor, PlainFloatTensor> a QUInt8 output from a
// Float32 operand). A blocked (crouton) implementation additionally needs
// node.max_rank <= kMaxBlockedRank; a plain one takes any rank.
bool IsEligible(const ImplTypes& impl, const NodeTypes& node);

// Why none of `registered` is eligible for `node` of `op` (every one is
// not), for messages and reports: "no Float32 implementation of Conv2d
// (registered: QUInt8 crouton, Float16 crouton)", "no implementation of
// Quantize for QUInt8 from Int32 (registered: QUInt8/Float32)" (some declare
// the output's dtype, but not with these operands), "no implementation of
// MatMul for rank-5 QUInt8 tensors (registered: QUInt8 crouton; crouton
// implementations take rank <= 4)".
std::string IneligibleReason(std::string_view op, absl::Span<const ImplTypes* const> registered,
                             const NodeTypes& node);

}  // namespace egret::cost

#endif  // EGRET_COST_IMPL_TYPES_H_
