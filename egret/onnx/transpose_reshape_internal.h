// Private to the onnx stage: when a Transpose and a Reshape commute, for the
// writer's tidy pass (write_tidy.cc). A Reshape splits and merges runs of
// dims ("groups": ReshapeGroups); a Transpose that keeps each group's dims
// together and in order can move to the other side of it, with its perm
// taken group for group. Channel shuffles are the case in point: their
// Reshape -> Transpose -> Reshape, spelled in NHWC between NCHW
// convolutions, is then left with the one Transpose the shuffle needs.
#ifndef EGRET_ONNX_TRANSPOSE_RESHAPE_INTERNAL_H_
#define EGRET_ONNX_TRANSPOSE_RESHAPE_INTERNAL_H_

#include <cstdint>
#include <optional>
#include <vector>

namespace egret::onnx_export {

using DimList = std::vector<int64_t>;
using PermList = std::vector<int>;

// The dims [in_begin, in_end) of a Reshape's input become the dims
// [out_begin, out_end) of its output; either side may be empty only for
// dims of 1 that appear or vanish.
struct ReshapeGroup {
  int in_begin = 0, in_end = 0, out_begin = 0, out_end = 0;
};

// The groups of a Reshape from `in` to `out` (every dim positive, the same
// product), in order and covering both; nullopt when the dims are not that.
std::optional<std::vector<ReshapeGroup>> ReshapeGroups(const DimList& in, const DimList& out);

// Reshape(Transpose(x, p), out), where `in` are the dims of Transpose(x, p),
// as Transpose(Reshape(x, inner), perm); nullopt unless every group of the
// Reshape is, in x, a run of consecutive dims in order.
struct SunkTranspose {
  DimList inner;
  PermList perm;
};
std::optional<SunkTranspose> SinkTransposeThroughReshape(const DimList& in, const DimList& out,
                                                         const PermList& p);

// Transpose(Reshape(y, out), q), where `in` are the dims of y, as
// Reshape(Transpose(y, perm), dims); nullopt unless q takes each group's
// output dims together and in order.
struct HoistedTranspose {
  PermList perm;
  DimList dims;
};
std::optional<HoistedTranspose> HoistTransposeAboveReshape(const DimList& in, const DimList& out,
                                                           const PermList& q);

}  // namespace egret::onnx_export

#endif  // EGRET_ONNX_TRANSPOSE_RESHAPE_INTERNAL_H_
