// ONNX Runtime's block-quantized weight ops, as ONNX Runtime GenAI and its
// MatMul4Bits quantizer write LLMs: com.microsoft MatMulNBits (a matrix
// product with a constant weight quantized in blocks along K) and
// GatherBlockQuantized (an embedding lookup in such a table). The blocked
// DequantizeLinear of opset 21 is import_quantize.cc's.
//
// Each becomes what a blocked DequantizeLinear of its weight followed by the
// standard op would: the weight is unpacked into a QUInt4 (or QUInt8 / QInt4)
// constant whose type carries the blocked encoding (TensorType's
// AxisQuantization with block_size), the graph reads it through Dequantize,
// into a FullyConnected (MatMulNBits) or through the standard Gather
// handler (GatherBlockQuantized); neither weight is ever held in float. The weights stay 4-bit in
// the graph: the cost model prices their stored bytes, and the reference executor dequantizes each
// element as ONNX Runtime does, (q - zero_point) * scale in float.
#include "egret/onnx/importer_internal.h"
#include "egret/onnx/onnx_tensor_internal.h"

namespace egret::onnx_import {
namespace {

// The stored dtype for `bits`-bit unsigned weights.
DType UnsignedStorage(int bits) { return bits == 4 ? DType::kQUInt4 : DType::kQUInt8; }

// A node the importer makes up, named after the current node.
onnx::NodeProto SyntheticNode(Importer& im, std::string op, std::vector<std::string> inputs,
                              std::string output) {
  onnx::NodeProto n;
  n.set_op_type(std::move(op));
  n.set_name(im.cur_->name().empty() ? std::string() : absl::StrCat(im.cur_->name(), "/", op));
  for (std::string& i : inputs) n.add_input(std::move(i));
  n.add_output(std::move(output));
  return n;
}

// Reads the constant float input `i` (scales or float zero points) as doubles.
absl::StatusOr<std::vector<double>> ConstReals(Importer& im, int i, std::string_view what) {
  if (!im.Has(i) || !im.In(i).constant)
    return Unmapped(absl::StrCat(std::string(what), " is not a constant"));
  const Tensor& t = *im.In(i).constant;
  std::vector<double> v(static_cast<size_t>(t.num_elements()));
  for (size_t k = 0; k < v.size(); ++k) v[k] = t.GetReal(static_cast<int64_t>(k));
  return v;
}

// The zero point of each of `cells` blocks from input `i`: packed `bits`-bit
// values in rows of `row_bytes` bytes (one row per `per_row` blocks) when
// uint8, else stored as `float_dtype` (integral values only); `def` when
// absent.
absl::StatusOr<std::vector<int32_t>> ZeroPoints(Importer& im, int i, int64_t cells, int64_t per_row,
                                                int bits, int32_t def) {
  std::vector<int32_t> z(static_cast<size_t>(cells), def);
  if (!im.Has(i)) return z;
  const Value& v = im.In(i);
  if (!v.constant) return Unmapped("the zero points are not a constant");
  const Tensor& t = *v.constant;
  if (t.type().dtype == DType::kQUInt8) {
    const int64_t row_bytes = (per_row * bits + 7) / 8;
    const int64_t rows = cells / per_row;
    if (t.num_elements() != rows * row_bytes) {
      return absl::InvalidArgumentError(absl::StrCat("the zero points hold ", t.num_elements(),
                                                     " bytes, ", rows * row_bytes, " expected"));
    }
    for (int64_t r = 0; r < rows; ++r) {
      for (int64_t b = 0; b < per_row; ++b) {
        z[r * per_row + b] = static_cast<int32_t>(
            onnx_internal::UnpackBits(t.bytes().data() + r * row_bytes, b, bits));
      }
    }
    return z;
  }
  if (!IsFloat(t.type().dtype)) return Unmapped("the zero points are neither uint8 nor float");
  if (t.num_elements() != cells) {
    return absl::InvalidArgumentError(
        absl::StrCat("the zero points hold ", t.num_elements(), " values, ", cells, " expected"));
  }
  for (int64_t k = 0; k < cells; ++k) {
    const double zf = t.GetReal(k);
    if (zf != std::round(zf) || zf < 0 || zf >= (1 << bits)) {
      return Unmapped(absl::StrCat("float zero point ", zf, " is not a ", bits, "-bit integer"));
    }
    z[k] = static_cast<int32_t>(zf);
  }
  return z;
}

// MatMulNBits(A, B, scales[, zero_points, g_idx, bias]): A @ W^T (+ bias),
// W[n, k] = (q[n, k] - zero[n, k / block]) * scale[n, k / block].
absl::Status DoMatMulNBits(Importer& im) {
  const int64_t k = im.AttrInt("K", -1), n = im.AttrInt("N", -1);
  const int64_t block = im.AttrInt("block_size", -1);
  const int bits = static_cast<int>(im.AttrInt("bits", 4));
  if (k <= 0 || n <= 0 || block < 16 || (block & (block - 1)) != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("K ", k, ", N ", n, " and block_size ", block,
                     " must be positive, block_size a power of 2 of at least 16"));
  }
  if (bits != 4 && bits != 8) return Unmapped(absl::StrCat(bits, "-bit weights are not mapped"));
  if (im.Has(4)) return Unmapped("g_idx (deprecated) is not mapped");
  const Value& b = im.In(1);
  if (!b.constant || b.type.dtype != DType::kQUInt8) {
    return Unmapped("B is not a constant uint8 tensor");
  }
  const int64_t blocks = (k + block - 1) / block, blob = block * bits / 8;
  if (b.type.num_elements() != n * blocks * blob) {
    return absl::InvalidArgumentError(absl::StrCat("B has ", b.type.num_elements(),
                                                   " bytes; N x ceil(K / block_size) x blob is ",
                                                   n * blocks * blob));
  }
  const DType real = im.In(0).type.dtype;
  if (!IsFloat(real)) return absl::InvalidArgumentError("A is not a float tensor");
  EGRET_ASSIGN_OR_RETURN(std::vector<double> scales, ConstReals(im, 2, "the scale"));
  if (static_cast<int64_t>(scales.size()) != n * blocks) {
    return absl::InvalidArgumentError(absl::StrCat(
        "the scales hold ", scales.size(), " values, N x ceil(K / block_size) is ", n * blocks));
  }
  EGRET_ASSIGN_OR_RETURN(std::vector<int32_t> zeros,
                         ZeroPoints(im, 3, n * blocks, blocks, bits, 1 << (bits - 1)));
  if (im.In(0).type.rank() < 1 || im.In(0).type.dims.back() != k) {
    return absl::InvalidArgumentError(absl::StrCat("A's last dim is not K = ", k));
  }
  // The weight [N, K] in blocks along K: FullyConnected's [units, depth],
  // read through Dequantize and never held in float.
  TensorType wt(UnsignedStorage(bits), {n, k});
  std::vector<float> steps(scales.begin(), scales.end());
  EGRET_RETURN_IF_ERROR(wt.SetPerAxis(1, std::move(steps), std::move(zeros), block));
  Tensor q(wt);
  const uint8_t* packed = b.constant->bytes().data();
  uint8_t* out = q.mutable_bytes().data();
  for (int64_t r = 0; r < n; ++r) {
    for (int64_t j = 0; j < k; ++j) {
      out[r * k + j] = static_cast<uint8_t>(
          onnx_internal::UnpackBits(packed + (r * blocks + j / block) * blob, j % block, bits));
    }
  }
  EGRET_ASSIGN_OR_RETURN(ValueRef w,
                         im.DequantizeConstant(std::make_shared<const Tensor>(std::move(q)), real,
                                               im.Out() + "/weight"));
  EGRET_ASSIGN_OR_RETURN(ValueRef a, im.Get(im.InName(0), kPlain));
  std::vector<ValueRef> ins = {a, w};
  const bool bias = im.Has(5);
  const bool fused_bias = bias && im.In(5).type.rank() == 1 && im.In(5).type.dims[0] == n &&
                          im.In(5).type.dtype == real;
  if (fused_bias) {
    EGRET_ASSIGN_OR_RETURN(ValueRef bv, im.Get(im.InName(5), kPlain));
    ins.push_back(bv);
  }
  const std::string product = bias && !fused_bias ? im.Temp(im.Out(), "product") : im.Out();
  EGRET_ASSIGN_OR_RETURN(ValueRef r, im.Emit("FullyConnected", std::move(ins), product));
  im.SetValue(product, r, kPlain);
  if (!bias || fused_bias) return absl::OkStatus();
  return im.RunSynthetic(SyntheticNode(im, "Add", {product, im.InName(5)}, im.Out()));
}

// GatherBlockQuantized(data, indices, scales[, zero_points]): Gather of the
// dequantized data along gather_axis, data quantized in blocks along
// quantize_axis. uint8 data packs two 4-bit values per byte along the last
// axis (default zero point 8); int4/uint4 data are unpacked by the reader
// (default zero point 0).
absl::Status DoGatherBlockQuantized(Importer& im) {
  const Value& data = im.In(0);
  if (!data.constant) return Unmapped("data is not a constant");
  const int bits = static_cast<int>(im.AttrInt("bits", 4));
  const int64_t block = im.AttrInt("block_size", 128);
  if (block < 16 || (block & (block - 1)) != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("block_size ", block, " is not a power of 2 of at least 16"));
  }
  const DType stored = data.type.dtype;
  const bool packed_u8 = stored == DType::kQUInt8 && bits == 4;
  if (!packed_u8 && !(stored == DType::kQUInt8 && bits == 8) && StorageBits(stored) != 4) {
    return Unmapped("data is neither uint8, int4 nor uint4");
  }
  Dims dims = data.type.dims;
  const int rank = static_cast<int>(dims.size());
  if (rank < 1) return absl::InvalidArgumentError("data has rank 0");
  if (packed_u8) dims.back() *= 2;
  EGRET_ASSIGN_OR_RETURN(int qaxis,
                         NormalizeAxis(im.AttrInt("quantize_axis", 1), rank, "quantize_axis"));
  EGRET_ASSIGN_OR_RETURN(int gaxis,
                         NormalizeAxis(im.AttrInt("gather_axis", 0), rank, "gather_axis"));
  if (packed_u8 && (qaxis != rank - 1 || gaxis != 0)) {
    return Unmapped("uint8 data needs quantize_axis last and gather_axis 0");
  }
  const DType real = im.In(2).type.dtype;
  if (!IsFloat(real)) return absl::InvalidArgumentError("the scales are not a float tensor");
  EGRET_ASSIGN_OR_RETURN(std::vector<double> scales, ConstReals(im, 2, "the scale"));
  Dims grid = dims;
  grid[qaxis] = (dims[qaxis] + block - 1) / block;
  const int64_t cells = Product(grid, 0, grid.size());
  if (static_cast<int64_t>(scales.size()) != cells) {
    return absl::InvalidArgumentError(absl::StrCat("the scales hold ", scales.size(),
                                                   " values, the block grid ", DimsStr(grid),
                                                   " has ", cells));
  }
  const DType qdt = packed_u8 ? DType::kQUInt4 : stored;
  std::vector<int32_t> zeros(static_cast<size_t>(cells), packed_u8 ? 8 : 0);
  if (im.Has(3)) {
    const Value& z = im.In(3);
    if (!z.constant) return Unmapped("the zero points are not a constant");
    if (z.type.dtype == DType::kQUInt8 && packed_u8) {
      // Packed along the last grid axis like the data.
      EGRET_ASSIGN_OR_RETURN(zeros, ZeroPoints(im, 3, cells, grid.back(), 4, 8));
    } else if (z.type.num_elements() == cells && z.type.dtype == stored) {
      for (int64_t c = 0; c < cells; ++c) {
        zeros[c] = static_cast<int32_t>(z.constant->GetValue(c));
      }
    } else {
      return absl::InvalidArgumentError("the zero points do not match the data");
    }
  }
  TensorType qt(qdt, dims);
  std::vector<float> steps(scales.begin(), scales.end());
  EGRET_RETURN_IF_ERROR(qt.SetPerAxis(qaxis, std::move(steps), std::move(zeros), block));
  Tensor q(qt);
  const Tensor& src = *data.constant;
  for (int64_t i = 0; i < q.num_elements(); ++i) {
    q.SetValue(i,
               packed_u8 ? onnx_internal::UnpackBits(src.bytes().data(), i, 4) : src.GetValue(i));
  }
  // The table as Dequantize of the 4-bit constant (never held in float),
  // under a temporary name the standard Gather handler reads.
  EGRET_ASSIGN_OR_RETURN(ValueRef dequantized,
                         im.DequantizeConstant(std::make_shared<const Tensor>(std::move(q)), real,
                                               im.Out() + "/table"));
  const std::string table = im.Temp(im.Out(), "table");
  im.SetValue(table, dequantized, kPlain);
  onnx::NodeProto gather = SyntheticNode(im, "Gather", {table, im.InName(1)}, im.Out());
  onnx::AttributeProto* axis = gather.add_attribute();
  axis->set_name("axis");
  axis->set_type(onnx::AttributeProto::INT);
  axis->set_i(gaxis);
  return im.RunSynthetic(gather);
}

}  // namespace

void RegisterBlockQuantizedHandlers(HandlerTable& t) {
  t["com.microsoft.MatMulNBits"] = DoMatMulNBits;
  t["com.microsoft.GatherBlockQuantized"] = DoGatherBlockQuantized;
}

}  // namespace egret::onnx_import
