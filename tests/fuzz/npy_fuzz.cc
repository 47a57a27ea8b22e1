// libFuzzer target for the .npy reader (egret/executor/npy.h). The first bytes
// choose the tensor type the caller expects: byte 0 the dtype (its QNN
// number), byte 1 the rank (mod 4), then one byte per dim (mod 5); the rest is
// the .npy file. A tensor the reader accepts must have that type, and
// encoding it must give a file the reader accepts again.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "egret/executor/npy.h"
#include "egret/graph/dtype.h"
#include "egret/graph/tensor.h"
#include "egret/graph/tensor_type.h"
#include "fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using egret::fuzz::Check;
  if (size < 2) return 0;
  constexpr egret::DType kTypes[] = {
      egret::DType::kQUInt8, egret::DType::kQUInt16, egret::DType::kQInt16, egret::DType::kFloat32,
      egret::DType::kInt32,  egret::DType::kQInt32,  egret::DType::kQInt8,  egret::DType::kFloat16,
      egret::DType::kInt64,  egret::DType::kBool};
  egret::TensorType type;
  type.dtype = kTypes[(data[0] + std::size(kTypes) - 1) % std::size(kTypes)];
  const size_t rank = data[1] % 4;
  if (size < 2 + rank) return 0;
  for (size_t i = 0; i < rank; ++i) type.dims.push_back(data[2 + i] % 5);
  const std::string_view file = egret::fuzz::AsText(data + 2 + rank, size - 2 - rank);
  const std::string path = egret::fuzz::WriteTempFile("t.npy", file);
  absl::StatusOr<egret::Tensor> t = egret::ReadNpy(path, type);
  if (!t.ok()) {
    egret::fuzz::CheckErrorLine(std::string(t.status().message()));
    return 0;
  }
  Check(t->type() == type, "the tensor read has another type");
  const std::string again = egret::fuzz::WriteTempFile("t.npy", egret::EncodeNpy(*t));
  Check(egret::ReadNpy(again, type).ok(), "an encoded tensor cannot be read back");
  return 0;
}
