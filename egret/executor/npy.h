// Tensors in NumPy's .npy format (version 1.0, little-endian, C order), the
// file format of `egret run --inputs DIR` and `-o DIR`.
#ifndef EGRET_EXECUTOR_NPY_H_
#define EGRET_EXECUTOR_NPY_H_

#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "egret/graph/tensor.h"

namespace egret {

// The .npy bytes of t. Quantized tensors are written as their storage
// integers (QUInt8 as uint8, QInt32 as int32, ...); the encoding is not kept.
std::string EncodeNpy(const Tensor& t);

// Reads a .npy file holding a tensor of exactly `type`'s dims whose element
// type is `type`'s storage type (Float32 <f4, Float16 <f2, Float64 <f8,
// UInt32 <u4, UInt64 <u8, QUInt8 |u1, ...; BFloat16, which NumPy lacks, as
// two-byte voids |V2 or <V2 holding the bit patterns).
// The result has `type` (so quantized storage gets the caller's encoding).
// Errors name the file: "in/x.npy: error: ...".
absl::StatusOr<Tensor> ReadNpy(const std::string& path, const TensorType& type);
// ReadNpy on the bytes of a .npy file held in memory; `name` stands for the
// file in errors ("input 'x': error: ...").
absl::StatusOr<Tensor> DecodeNpy(std::string_view bytes, const TensorType& type,
                                 std::string_view name);

}  // namespace egret

#endif  // EGRET_EXECUTOR_NPY_H_
