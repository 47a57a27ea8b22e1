#include "egret/rules/prelude.h"

namespace egret::rules {
namespace {

// Every macro expands to the rule grammar's own primitives (and its
// cst_macros such as IS_QINT8 or DIM_BATCHES, which the parser knows by
// name). Names ending in '_' are private helpers. Keep docs/rule-prelude.md in
// step with this text.
constexpr std::string_view kPrelude = R"prelude(// egret's built-in rule prelude.

// ---- Quantization and dtype tests (bool) ----

// x is quantized: QUInt8, QInt8, QUInt16, QInt16 or QInt32.
#define IS_QUANT_TYPE(x) OR(IS_QUINT8(x), IS_QINT8(x), IS_QUINT16(x), IS_QINT16(x), IS_QINT32(x))
// x is signed quantized: QInt8, QInt16 or QInt32.
#define IS_QUANT_SIGNED(x) OR(IS_QINT8(x), IS_QINT16(x), IS_QINT32(x))
// x is signed quantized with zero_offset 0 (symmetric).
#define IS_SIGNED_SYMM(x) AND(IS_QUANT_SIGNED(x), EQ(ZERO_OFFSET_OF(x), 0))
// x is QInt8 / QInt16 / QInt32 with zero_offset 0.
#define IS_QINT8_SYMM(x) AND(IS_QINT8(x), EQ(ZERO_OFFSET_OF(x), 0))
#define IS_QINT16_SYMM(x) AND(IS_QINT16(x), EQ(ZERO_OFFSET_OF(x), 0))
#define IS_QINT32_SYMM(x) AND(IS_QINT32(x), EQ(ZERO_OFFSET_OF(x), 0))
// a and b have the same stepsize and zero_offset, or are both Float16, or
// both Float32.
#define SAME_QUANT(a, b) OR(AND(EQ(STEPSIZE_OF(a), STEPSIZE_OF(b)), EQ(ZERO_OFFSET_OF(a), ZERO_OFFSET_OF(b))), AND(IS_FLOAT16(a), IS_FLOAT16(b)), AND(IS_FLOAT32(a), IS_FLOAT32(b)))
// a and b have the same dtype, stepsize and zero_offset, and the graph option
// "quant_is_updateable" is false.
#define SAME_DTYPE_QUANT(a, b) AND(EQ(DTYPE_OF(a), DTYPE_OF(b)), EQ(STEPSIZE_OF(a), STEPSIZE_OF(b)), EQ(ZERO_OFFSET_OF(a), ZERO_OFFSET_OF(b)), NOT(OPTION_BOOL("quant_is_updateable")))
// All three are Float16 / all three are Float32.
#define IS_BINARY_FP16(a, b, out) AND(IS_FLOAT16(a), IS_FLOAT16(b), IS_FLOAT16(out))
#define IS_BINARY_FP32(a, b, out) AND(IS_FLOAT32(a), IS_FLOAT32(b), IS_FLOAT32(out))

// ---- Quantized range (float) ----

// Lowest / highest real value of a QUInt8 tensor x:
// stepsize * (0 - zero_offset) and stepsize * (255 - zero_offset).
#define MIN_QU8(x) MUL(STEPSIZE_OF(x), FLOAT(NEG(ZERO_OFFSET_OF(x))))
#define MAX_QU8(x) MUL(STEPSIZE_OF(x), FLOAT(SUB(255, ZERO_OFFSET_OF(x))))

// ---- Shapes (bool / size) ----

// Batches, height, width and depth are all 1.
#define IS_SCALAR(x) AND(EQ(DIM_BATCHES(x), 1), EQ(DIM_HEIGHT(x), 1), EQ(DIM_WIDTH(x), 1), EQ(DIM_DEPTH(x), 1))
#define IS_NOT_SCALAR(x) NOT(IS_SCALAR(x))
// Batches, height and width are 1 and the rank is not 5.
#define IS_SHAPE_1x1x1xd(x) AND(EQ(DIM_BATCHES(x), 1), EQ(DIM_HEIGHT(x), 1), EQ(DIM_WIDTH(x), 1), NE(RANK_OF(x), 5))
// Bytes of x: element size * batches * height * width * depth.
#define FLAT_TENSOR_SIZE(x) MUL(ELEMENTSIZE_OF(x), DIM_BATCHES(x), DIM_HEIGHT(x), DIM_WIDTH(x), DIM_DEPTH(x))
// a - b when a > b, else 0.
#define SUBS(a, b) SELECT(GT(a, b), SUB(a, b), 0)

// ---- Constants and options ----

// Channel chunk of depth splits, its minimum, and the largest tensor rank.
#define CHANNEL_SPLIT_SIZE 256
#define MIN_CHANNEL_SPLIT_SIZE 32
#define MAX_DIMENSIONS 8
// Graph options: tile height (size), TCM budget for tiling (size), whether
// automatic threading is on (int).
#define TILE_HEIGHT OPTION_UINT("tile_height")
#define TCM_MAXTENSOR_SIZE OPTION_UINT("tcm_size_for_tiling")
#define AUTOTHREAD_ENABLED OPTION_INT("enable_autothread")
// Tile when the central tiler is on, or when all the given conditions hold.
#define SHOULD_TILE(...) OR(OPTION_BOOL("central_tiler") __VA_OPT__(, AND(__VA_ARGS__)))

// ---- Match helpers ----

// Binds tag to a "$Const" op: use in a match where an operand must be a
// constant.
#define OPCONST(tag) LET(tag, Op("$Const"))
// An op of the built-in package: just its name.
#define FROM_DEFAULT_PACKAGE(name) name

// ---- Replacement helpers ----

// A Cast of x with output type (dt, zero_offset 0, stepsize 1.0).
#define CAST_TO_DTYPE(x, dt) WITH_OUTPUT_TYPE(dt, 0, 1.0f, Op(FROM_DEFAULT_PACKAGE("QNN_Cast"), x))
// x cast to Float16 / Float32, sized like x.
#define CAST_TO_FP16(x) WITH_SIZE(x, CAST_TO_DTYPE(x, DType::Float16))
#define CAST_TO_FP32(x) WITH_SIZE(x, CAST_TO_DTYPE(x, DType::Float32))
// Builds op with a Float16 output sized like "*", then casts it back to
// Float32 (the cast inherits the root's shape).
#define MAKE_OP_FP16_AND_INSERT_CAST(op) CAST_TO_DTYPE(WITH_SIZE("*", WITH_OUTPUT_TYPE(DType::Float16, 0, 1.0f, op)), DType::Float32)
// An Int32 scalar constant holding x's zero_offset.
#define CONST_ZERO_OFF(x) gen_ConstScalar_i32(ZERO_OFFSET_OF(x))
// TYPICAL_CONV_SLICE(in, tag, stride, taps[, dilation]): the slice of `in`
// that the piece `tag` of a convolution's output needs; start and size come
// from the shape functions conv_valid_split_start / conv_valid_split_size
// (in, stride, taps, dilation); dilation defaults to 1.
#define EGRET_FIRST_(a, ...) a
#define EGRET_DILATION_(...) EGRET_FIRST_(__VA_ARGS__ __VA_OPT__(,) 1)
#define TYPICAL_CONV_SLICE(in, tag, stride, taps, ...) AUTOSPLIT_SLICE(in, AUTOSPLIT_SHAPEFN_APPLY(conv_valid_split_start, tag, in, stride, taps, EGRET_DILATION_(__VA_ARGS__)), AUTOSPLIT_SHAPEFN_APPLY(conv_valid_split_size, tag, in, stride, taps, EGRET_DILATION_(__VA_ARGS__)))
)prelude";

}  // namespace

std::string_view PreludeText() { return kPrelude; }

}  // namespace egret::rules
