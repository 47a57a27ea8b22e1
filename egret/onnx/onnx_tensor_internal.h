// Private to the ONNX reader and its tests: conversions between onnx::TensorProto
// and egret Tensors, and the constant-data manipulations the importer folds
// (transposes, reshapes, integer reads).
#ifndef EGRET_ONNX_ONNX_TENSOR_INTERNAL_H_
#define EGRET_ONNX_ONNX_TENSOR_INTERNAL_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "egret/graph/dtype.h"
#include "egret/graph/tensor.h"
#include "egret/graph/tensor_type.h"
#include "onnx/onnx-data_pb.h"
#include "onnx/onnx_pb.h"

namespace egret::onnx_internal {

// The egret dtype of an ONNX TensorProto::DataType (see ReadOnnxTensor);
// kUnimplemented naming the ONNX type for one egret lacks.
absl::StatusOr<DType> DTypeFromOnnx(int32_t elem_type);
// The ONNX element type of an egret dtype (quantized types map to the ONNX
// integer type of their storage); nullopt for Unknown/None/Multi.
std::optional<int32_t> OnnxFromDType(DType t);
// "FLOAT", "DOUBLE", ... or the number.
std::string OnnxTypeName(int32_t elem_type);
// An egret type with the dtype of DTypeFromOnnx(elem_type) (zero_offset 0,
// stepsize 1).
absl::StatusOr<TensorType> MakeType(int32_t elem_type, Dims dims);

// The egret container type (ValueKind) of an ONNX sequence or optional type:
// sequence(tensor(T)), optional(tensor(T)) or optional(sequence(tensor(T))),
// whose element shapes are dropped (TensorType keeps the dtype only). nullopt
// for a tensor type or an empty TypeProto; kUnimplemented for a container
// egret lacks (a map, a sequence of sequences or of optionals, an element
// type egret lacks).
absl::StatusOr<std::optional<TensorType>> ContainerTypeFromOnnx(const onnx::TypeProto& tp);
// The ONNX type of `t`: a tensor type with static dims, or for a container
// the sequence/optional type with element shapes unknown. False, `tp`
// unspecified, for a dtype ONNX lacks.
bool TypeToOnnx(const TensorType& t, onnx::TypeProto* tp);

// The sequence (SequenceProto of tensors) or optional (OptionalProto of a
// tensor or such a sequence) value a proto holds, as a Tensor of `type`'s
// container kind; kInvalidArgument when the proto does not hold that kind or
// an element's dtype differs from type.dtype.
absl::StatusOr<Tensor> SequenceFromProto(const onnx::SequenceProto& proto, const TensorType& type);
absl::StatusOr<Tensor> OptionalFromProto(const onnx::OptionalProto& proto, const TensorType& type);

// Values `bits` wide (1 to 8) packed little-endian into bytes, the first in
// the low bits (ONNX's INT4/UINT4, MatMulNBits' weights and zero points):
// element i of `bytes`, and element i set to the low `bits` of v in bytes
// that start zeroed.
uint32_t UnpackBits(const uint8_t* bytes, int64_t i, int bits);
void PackBits(uint8_t* bytes, int64_t i, int bits, uint32_t v);

// The tensor a TensorProto holds (raw_data or the typed repeated fields).
// kInvalidArgument when the data do not match the dims; kUnimplemented for
// external data and unsupported element types.
absl::StatusOr<Tensor> TensorFromProto(const onnx::TensorProto& proto);
// The TensorProto of `t` (raw_data, little-endian; string_data for String).
void TensorToProto(const Tensor& t, onnx::TensorProto* proto);

// An opaque node's TENSOR attribute `name` is kept whole, as the base64 of
// its serialized TensorProto, under "onnx.tensor_proto.<name>" (beside a
// summary under `name`), so that the writer gives it back as it was.
inline constexpr std::string_view kTensorProtoAttrPrefix = "onnx.tensor_proto.";

// out.dims[i] = t.dims[perm[i]], elements moved accordingly.
Tensor TransposeTensor(const Tensor& t, absl::Span<const int> perm);
// The same elements with other dims (num_elements must match).
Tensor ReshapeTensor(const Tensor& t, Dims dims);
// A tensor of `type` whose every element is element 0 of `t`.
Tensor SplatTensor(const Tensor& t, TensorType type);
// The elements as integers: exact for Int64 and Int32, rounded otherwise.
std::vector<int64_t> TensorInts(const Tensor& t);

}  // namespace egret::onnx_internal

#endif  // EGRET_ONNX_ONNX_TENSOR_INTERNAL_H_
