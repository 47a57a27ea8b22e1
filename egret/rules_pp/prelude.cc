#include "egret/rules_pp/prelude.h"

namespace egret::rules {
namespace {

// Every macro expands to the rule grammar's own primitives (and its
// cst_macros such as IS_QINT8 or DIM_BATCHES, which the parser knows by
// name). Names ending in '_' are private helpers. Keep docs/rule-prelude.md in
// step with this text.
constexpr std::string_view kPrelude = R"prelude(// egret's built-in rule prelude.

// ---- Private helpers (names ending in '_') ----

// Bytes of one row of x (width x element size), padded to 8.
#define EGRET_ROW_BYTES_(x) ROUNDUP(MUL(DIM_WIDTH(x), ELEMENTSIZE_OF(x)), 8)
// Bytes of one column of x (element size x height padded to 8 x depth padded to 32).
#define EGRET_COLUMN_BYTES_(x) MUL(ELEMENTSIZE_OF(x), ROUNDUP(DIM_HEIGHT(x), 8), ROUNDUP(DIM_DEPTH(x), 32))
// Extra rows or bytes a filter of extent n needs around a tile: 0 for n == 1, else 8.
#define EGRET_HALO_(n) SELECT(EQ(n, 1), 0, 8)
// ELEMENTSIZE_OF("*") equals ELEMENTSIZE_OF(a).
#define EGRET_SAME_ELEMENTSIZE_(a) EQ(ELEMENTSIZE_OF("*"), ELEMENTSIZE_OF(a))
// The TCM share for 16-bit weights: 1041 of every 2048 bytes.
#define EGRET_TCM_SHARE_ MUL(DIV(TCM_MAXTENSOR_SIZE, 2048), 1041)
// The largest of CHANNEL_SPLIT_SIZE, its half and its quarter for which
// good(w, act, split) holds, else 32.
#define EGRET_CHANNEL_CHOICE_(good, w, act) SELECT(good(w, act, CHANNEL_SPLIT_SIZE), CHANNEL_SPLIT_SIZE, SELECT(good(w, act, DIV(CHANNEL_SPLIT_SIZE, 2)), DIV(CHANNEL_SPLIT_SIZE, 2), SELECT(good(w, act, DIV(CHANNEL_SPLIT_SIZE, 4)), DIV(CHANNEL_SPLIT_SIZE, 4), 32)))
// Activation part of a convolution's TCM estimate (with the filter halo).
#define EGRET_CONV_ACT_EST_(act, w) MUL(DIM_BATCHES(act), ROUNDUP(ADD(DIM_HEIGHT(act), EGRET_HALO_(DIM_FILTHEIGHT(w))), TILE_HEIGHT), ROUNDUP(ADD(MUL(DIM_WIDTH(act), ELEMENTSIZE_OF(act)), EGRET_HALO_(DIM_FILTWIDTH(w))), 8), ROUNDUP(DIM_DEPTH(act), 32))
// Convolution TCM estimate with the weights counted `scale` times.
#define EGRET_ESTIMATE_SIZE_(act, w, out, scale) ADD(EGRET_CONV_ACT_EST_(act, w), ROUNDUP(MUL(WEIGHT_STORAGE(w, DIM_NFILTS(w)), scale), 2048), ESTIMATE_TENSOR_SIZE(out), ROUNDUP(MUL(8, ROUNDUP(DIM_DEPTH(out), 32)), 2048))
// Widest output tile of a convolution in 7/8 of tcm, weights counted `scale` times.
#define EGRET_GOOD_WIDTH_CONV_(act, w, out, stride, dil, tcm, scale) MAX(ROUNDUP(DIV(SUBS(DIV(MUL(tcm, 7), 8), ADD(ROUNDUP(MUL(WEIGHT_STORAGE(w, DIM_NFILTS(w)), scale), 2048), MUL(ROUNDUP(DIM_HEIGHT(act), 8), ROUNDUP(DIM_DEPTH(act), 32), SUB(DIM_FILTWIDTH(w), 1), dil, ELEMENTSIZE_OF(act)))), MUL(4, ADD(EGRET_COLUMN_BYTES_(out), MUL(stride, EGRET_COLUMN_BYTES_(act))))), MIN_WIDTH_OF(out)), MIN_WIDTH_OF(out))
// x's shape with its width folded into height by n / spread into n-row groups.
#define EGRET_FOLD_W_(x, n) gen_Shape(DIM_BATCHES(x), MUL(DIM_HEIGHT(x), n), DIV(DIM_WIDTH(x), n), DIM_DEPTH(x))
#define EGRET_W1_SHAPE_(a, n) gen_Shape(DIM_BATCHES(a), CEILDIV(DIM_HEIGHT(a), n), n, DIM_DEPTH(a))
#define EGRET_H1_SHAPE_(a, n) gen_Shape(DIM_BATCHES(a), MIN(8, CEILDIV(DIM_WIDTH(a), n)), MUL(CEILDIV(DIM_WIDTH(a), MUL(8, n)), n), DIM_DEPTH(a))

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
// Rank 5 with the first four dims 1.
#define IS_SHAPE_1x1x1x1xc(x) AND(EQ(RANK_OF(x), 5), IS_SCALAR(x))
// a is [*,1,W,D] with W != 1 and b is [*,W,1,D].
#define IS_1HD_H1D(a, b) AND(EQ(DIM_HEIGHT(a), 1), NE(DIM_WIDTH(a), 1), EQ(DIM_WIDTH(b), 1), EQ(DIM_WIDTH(a), DIM_HEIGHT(b)), EQ(DIM_DEPTH(a), DIM_DEPTH(b)))
// Bytes of x: element size * batches * height * width * depth.
#define FLAT_TENSOR_SIZE(x) MUL(ELEMENTSIZE_OF(x), DIM_BATCHES(x), DIM_HEIGHT(x), DIM_WIDTH(x), DIM_DEPTH(x))
// a - b when a > b, else 0.
#define SUBS(a, b) SELECT(GT(a, b), SUB(a, b), 0)
// Narrowest width tile for x's element size: 8 (1 byte), 4 (2 bytes), else 2.
#define MIN_WIDTH_OF(x) SELECT(EQ(ELEMENTSIZE_OF(x), 1), 8, SELECT(EQ(ELEMENTSIZE_OF(x), 2), 4, 2))
#define MIN_WIDTH 8
// Width-to-height reshapes: width divisible by TILE_HEIGHT (or, QUInt16, by 4).
#define WIDTH_TO_HEIGHTX_CONSTRAINT(x) OR(AND(GT(DIM_WIDTH(x), TILE_HEIGHT), EQ(REM(DIM_WIDTH(x), TILE_HEIGHT), 0)), AND(IS_QUINT16(x), GT(DIM_WIDTH(x), 4), EQ(REM(DIM_WIDTH(x), 4), 0)))
#define HEIGHTX_SHAPE(x) SELECT(EQ(REM(DIM_WIDTH(x), TILE_HEIGHT), 0), EGRET_FOLD_W_(x, TILE_HEIGHT), SELECT(EQ(REM(DIM_WIDTH(x), 4), 0), EGRET_FOLD_W_(x, 4), gen_Shape(DIM_BATCHES(x), DIM_HEIGHT(x), DIM_WIDTH(x), DIM_DEPTH(x))))
#define HEIGHT84_SHAPE(x) SELECT(EQ(REM(DIM_WIDTH(x), TILE_HEIGHT), 0), gen_Shape(DIM_BATCHES(x), TILE_HEIGHT, DIV(DIM_WIDTH(x), TILE_HEIGHT), DIM_DEPTH(x)), gen_Shape(DIM_BATCHES(x), 4, DIV(DIM_WIDTH(x), 4), DIM_DEPTH(x)))
// Height-to-width reshape of a very tall [*,H,1,D] tensor.
#define HEIGHT_TO_WIDTH_SHAPE(x) gen_Shape(DIM_BATCHES(x), TILE_HEIGHT, DIV(DIM_HEIGHT(x), TILE_HEIGHT), DIM_DEPTH(x))
#define HEIGHT_TO_WIDTH_CONSTRAINT(x) AND(GE(DIM_HEIGHT(x), 8192), EQ(REM(DIM_HEIGHT(x), TILE_HEIGHT), 0), EQ(DIM_WIDTH(x), 1), EQ(REM(DIM_DEPTH(x), 32), 0))
// Crouton reshapes of 1xHx1xD (W1) and 1x1xWxD (H1) tensors: QUInt8 uses
// groups of 8, others of 4.
#define SHAPE_FROM_W1(a) SELECT(IS_QUINT8(a), EGRET_W1_SHAPE_(a, 8), EGRET_W1_SHAPE_(a, 4))
#define SHAPE_FROM_H1(a) SELECT(IS_QUINT8(a), EGRET_H1_SHAPE_(a, 8), EGRET_H1_SHAPE_(a, 4))

// ---- Constants and options ----

// Channel chunk of depth splits, its minimum, and the largest tensor rank.
#define CHANNEL_SPLIT_SIZE 256
#define MIN_CHANNEL_SPLIT_SIZE 32
#define MAX_DIMENSIONS 8
// AUTOSPLIT chunk of rules whose chunk only the central tiler uses.
#define CHUNK_NOT_USED 0
// Graph options: tile height (size), TCM budget for tiling and its half
// (size), fine splitting, big-width split size, automatic threading.
#define TILE_HEIGHT OPTION_UINT("tile_height")
#define TCM_MAXTENSOR_SIZE OPTION_UINT("tcm_size_for_tiling")
#define TCM_MAXTENSOR_HALF_SIZE DIV(TCM_MAXTENSOR_SIZE, 2)
#define CAN_FINE_SPLIT EQ(OPTION_UINT("can_fine_split"), 1)
#define BIG_WIDTH_SIZE OPTION_UINT("big_width_split")
#define AUTOTHREAD_ENABLED OPTION_INT("enable_autothread")
// Tile when the central tiler is on, or when all the given conditions hold.
#define SHOULD_TILE(...) OR(OPTION_BOOL("central_tiler") __VA_OPT__(, AND(__VA_ARGS__)))
// Split the root's width when it is wider than big_width_split, fine splits
// are allowed, depth >= 4 and height > 1.
#define DO_BIG_WIDTH_SPLIT AND(GT(DIM_WIDTH("*"), BIG_WIDTH_SIZE), CAN_FINE_SPLIT, GE(DIM_DEPTH("*"), 4), GT(DIM_HEIGHT("*"), 1))
// Thread the root automatically: no central tiler and its data is larger
// than autothread_size_kb KiB (unary ops: 3x their data against twice that);
// the numbered forms also want the listed operands' element size to match
// the root's.
#define SHOULD_AUTOTHREAD AND(NOT(OPTION_BOOL("central_tiler")), GT(DATA_SIZE("*"), MUL(OPTION_INT("autothread_size_kb"), 1024)))
#define SHOULD_AUTOTHREAD1(a) AND(SHOULD_AUTOTHREAD, EGRET_SAME_ELEMENTSIZE_(a))
#define SHOULD_AUTOTHREAD2(a, b) AND(SHOULD_AUTOTHREAD1(a), EGRET_SAME_ELEMENTSIZE_(b))
#define SHOULD_AUTOTHREAD3(a, b, c) AND(SHOULD_AUTOTHREAD2(a, b), EGRET_SAME_ELEMENTSIZE_(c))
#define SHOULD_AUTOTHREAD_UNARY AND(NOT(OPTION_BOOL("central_tiler")), GT(MUL(3, DATA_SIZE("*")), MUL(OPTION_INT("autothread_size_kb"), 2048)))
#define SHOULD_AUTOTHREAD_UNARY1(a) AND(SHOULD_AUTOTHREAD_UNARY, EGRET_SAME_ELEMENTSIZE_(a))
// Fuse an activation into its producer op: op has one consumer, or the
// option force_conv_fusion, or op and the root both feed "*Output" and op
// has two consumers.
#define ACT_FUSION_MULTI_OUT_CHECK(op) OR(EXTERNAL_CONSTRAINT(has_only_one_consumer, op), OPTION_BOOL("force_conv_fusion"), AND(PRODUCER_FOR(op, "*Output"), EXTERNAL_CONSTRAINT(has_n_consumers, op, 2), PRODUCER_FOR("*", "*Output")))

// ---- TCM size estimates (size / bool) ----

// TCM bytes of a TILE_HEIGHT x width x min(depth, CHANNEL_SPLIT_SIZE) tile.
#define ELEMWISE_TILE_SIZE(act) MUL(TILE_HEIGHT, EGRET_ROW_BYTES_(act), ROUNDUP(MIN(CHANNEL_SPLIT_SIZE, DIM_DEPTH(act)), 32))
// An elementwise op should be tiled: central tiler, or three tiles exceed TCM.
#define ELEMWISE_TOOBIG(a, b, out) OR(OPTION_BOOL("central_tiler"), GT(ADD(ELEMWISE_TILE_SIZE(a), ELEMWISE_TILE_SIZE(b), ELEMWISE_TILE_SIZE(out)), TCM_MAXTENSOR_SIZE))
// Bytes of `split` filters of weight w (filter depth padded to 32).
#define WEIGHT_STORAGE(w, split) MUL(ELEMENTSIZE_OF(w), DIM_FILTHEIGHT(w), DIM_FILTWIDTH(w), ROUNDUP(DIM_FILTDEPTH(w), 32), MIN(split, DIM_NFILTS(w)))
// Activation and output bytes of a convolution tile with `split` output channels.
#define ACT_STORAGE_EST(w, act, split) ADD(MUL(ROUNDUP(ADD(7, DIM_FILTHEIGHT(w)), 8), EGRET_ROW_BYTES_(act), ROUNDUP(DIM_DEPTH(act), 32)), MUL(8, EGRET_ROW_BYTES_("*"), split))
// The same for depthwise convolutions (the activation tile has `split` channels).
#define DWC_ACT_STORAGE_EST(w, act, split) ADD(MUL(ROUNDUP(ADD(7, DIM_FILTHEIGHT(w)), 8), EGRET_ROW_BYTES_(act), split), MUL(8, EGRET_ROW_BYTES_("*"), split))
// Weights and activations of a split fit: under half of TCM for 8-bit
// weights, else 1041/2048 of it; QUANT counts the weights twice; DWC uses
// half of TCM.
#define GOOD_WEIGHTS(w, act, split) LT(ADD(WEIGHT_STORAGE(w, split), ACT_STORAGE_EST(w, act, split)), SELECT(EQ(ELEMENTSIZE_OF(w), 1), TCM_MAXTENSOR_HALF_SIZE, EGRET_TCM_SHARE_))
#define GOOD_WEIGHTS_QUANT(w, act, split) LT(ADD(MUL(2, WEIGHT_STORAGE(w, split)), ACT_STORAGE_EST(w, act, split)), EGRET_TCM_SHARE_)
#define DWC_GOOD_WEIGHTS(w, act, split) LT(ADD(WEIGHT_STORAGE(w, split), DWC_ACT_STORAGE_EST(w, act, split)), DIV(TCM_MAXTENSOR_SIZE, 2))
// Largest channel split (CHANNEL_SPLIT_SIZE, /2, /4, else 32) whose weights fit.
#define SMART_CHANNEL_SIZE(w, act) EGRET_CHANNEL_CHOICE_(GOOD_WEIGHTS, w, act)
#define SMART_CHANNEL_SIZE_QUANT(w, act) EGRET_CHANNEL_CHOICE_(GOOD_WEIGHTS_QUANT, w, act)
#define DWC_SMART_CHANNEL_SIZE(w, act) EGRET_CHANNEL_CHOICE_(DWC_GOOD_WEIGHTS, w, act)
// Channels of act that fit half of TCM (at least 1), rounded up to 32.
#define MAX_CHANNEL_SIZE(act) ROUNDUP(MAX(1, DIV(TCM_MAXTENSOR_HALF_SIZE, MUL(ROUNDUP(DIM_HEIGHT(act), 8), EGRET_ROW_BYTES_(act)))), 32)
// TCM bytes of t with height padded to TILE_HEIGHT, row bytes to 8, depth to 32.
#define ESTIMATE_TENSOR_SIZE(t) MUL(DIM_BATCHES(t), ROUNDUP(DIM_HEIGHT(t), TILE_HEIGHT), EGRET_ROW_BYTES_(t), ROUNDUP(DIM_DEPTH(t), 32))
// TCM bytes of a whole convolution: activation with halo, weights (twice for
// QUANT) and output, each rounded to 2 KiB where it is allocated so.
#define ESTIMATE_SIZE(act, w, out) EGRET_ESTIMATE_SIZE_(act, w, out, 1)
#define ESTIMATE_SIZE_QUANT(act, w, out) EGRET_ESTIMATE_SIZE_(act, w, out, 2)
// Input extent a convolution needs for `out` outputs: (out-1)*stride + (filt-1)*dilation + 1.
#define GET_IN_SIZE(out, filt, stride, dilation) ADD(MUL(SUB(out, 1), stride), MUL(SUB(filt, 1), dilation), 1)
// TCM bytes of the smallest convolution tile (8 rows, MIN_WIDTH_OF columns,
// 32 filters) plus two 2 KiB buffers; stride is a shape (height, width).
#define ESTIMATE_MIN_SIZE(act, w, stride, dil_h, dil_w) ADD(MUL(ROUNDUP(ADD(GET_IN_SIZE(8, DIM_FILTHEIGHT(w), DIM_HEIGHT(stride), dil_h), EGRET_HALO_(DIM_FILTHEIGHT(w))), 8), ROUNDUP(ADD(MUL(GET_IN_SIZE(MIN_WIDTH_OF(act), DIM_FILTWIDTH(w), DIM_WIDTH(stride), dil_w), ELEMENTSIZE_OF(act)), EGRET_HALO_(DIM_FILTWIDTH(w))), 8), ROUNDUP(DIM_DEPTH(act), 32)), ROUNDUP(WEIGHT_STORAGE(w, 32), 2048), 4096)
// act (twice when the slice starts at a non-zero width) plus out.
#define ESTIMATE_SIZE_ALIGNED_SLICE(act, start, out) ADD(MUL(ESTIMATE_TENSOR_SIZE(act), SELECT(EQ(DIM_WIDTH(start), 0), 1, 2)), ESTIMATE_TENSOR_SIZE(out))
// Bytes of a 1-row matmul: A and the output in 8-row tiles, B in 32-column tiles.
#define ESTIMATE_H1_MATMUL_SIZE(a, b) ADD(MUL(8, ROUNDUP(DIM_WIDTH(a), 8), ROUNDUP(DIM_DEPTH(a), 32), ELEMENTSIZE_OF(a)), MUL(ROUNDUP(DIM_WIDTH(b), 32), ROUNDUP(DIM_DEPTH(b), 32), ELEMENTSIZE_OF(b)), MUL(8, ROUNDUP(DIM_WIDTH("*"), 8), ROUNDUP(DIM_DEPTH("*"), 32), ELEMENTSIZE_OF("*")))

// ---- Tile widths (size) ----

// Widest output tile of a convolution that fits 7/8 of tcm (at least
// MIN_WIDTH_OF(out), a multiple of it); QUANT counts the weights twice.
#define MAX_GOOD_WIDTH_CONV(act, w, out, stride, dilation, tcm) EGRET_GOOD_WIDTH_CONV_(act, w, out, stride, dilation, tcm, 1)
#define MAX_GOOD_WIDTH_CONV_QUANT(act, w, out, stride, dilation, tcm) EGRET_GOOD_WIDTH_CONV_(act, w, out, stride, dilation, tcm, 2)
#define MAX_GOOD_WIDTH(act, w, out, tcm) MAX_GOOD_WIDTH_CONV(act, w, out, 1, 1, tcm)
// Widest tile of a channel shuffle / elementwise op in 3/4 of tcm (at least
// MIN_WIDTH, a multiple of 8), and of a quantize in tcm (at least MIN_WIDTH_OF(out)).
#define MAX_GOOD_WIDTH_CHANSHUF(act, out, tcm) MAX(MIN_WIDTH, ROUNDUP(DIV(DIV(MUL(tcm, 6), 8), MUL(4, ADD(EGRET_COLUMN_BYTES_(act), EGRET_COLUMN_BYTES_(out)))), 8))
#define MAX_GOOD_WIDTH_ELEMWISE(a, b, out, tcm) MAX(MIN_WIDTH, ROUNDUP(DIV(DIV(MUL(tcm, 6), 8), MUL(4, ADD(EGRET_COLUMN_BYTES_(a), EGRET_COLUMN_BYTES_(b), EGRET_COLUMN_BYTES_(out)))), 8))
#define MAX_GOOD_WIDTH_QUANTIZE(in, out, tcm) MAX(MIN_WIDTH_OF(out), DIV(tcm, MUL(4, ADD(EGRET_COLUMN_BYTES_(in), MUL(ELEMENTSIZE_OF(out), ROUNDUP(DIM_HEIGHT(out), 8), ROUNDUP(DIM_DEPTH(in), 32))))))
// Equal chunks of `current` no larger than `target`, rounded up to `rounder`;
// CUTOFF2: just `target` once current exceeds twice the target.
#define EVEN_TILE_UNDER_CUSTOM(current, target, rounder) ROUNDUP(DIV(current, ADD(DIV(current, target), 1)), rounder)
#define EVEN_TILE_UNDER_CUTOFF2_CUSTOM(current, target, rounder) SELECT(GT(current, MUL(2, target)), target, EVEN_TILE_UNDER_CUSTOM(current, target, rounder))
// Output width tile of a stride-2 convolution: what fits 7/16 of tcm after
// the weights of up to CHANNEL_SPLIT_SIZE filters (at least 16, at most 256,
// a multiple of rounder); ADAPTIVE_ROUNDING rounds to 8 for QUInt8 weights
// on QUInt16 activations, else to 16.
#define SMART_EARLY_WIDTH_S2(act, w, out, tcm, rounder) EVEN_TILE_UNDER_CUTOFF2_CUSTOM(DIM_WIDTH(out), MIN(256, ROUNDUP(MAX(16, DIV(SUBS(DIV(MUL(tcm, 7), 16), ROUNDUP(WEIGHT_STORAGE(w, MIN(DIM_NFILTS(w), CHANNEL_SPLIT_SIZE)), 2048)), ADD(MUL(4, ELEMENTSIZE_OF(act), DIM_BATCHES(act), TILE_HEIGHT, ROUNDUP(DIM_DEPTH(act), 32)), MUL(ELEMENTSIZE_OF(out), DIM_BATCHES(act), TILE_HEIGHT, MIN_CHANNEL_SPLIT_SIZE)))), rounder)), rounder)
#define SMART_EARLY_WIDTH_ADAPTIVE_ROUNDING_S2(act, w, out, tcm) SMART_EARLY_WIDTH_S2(act, w, out, tcm, SELECT(AND(IS_QUINT8(w), IS_QUINT16(act)), 8, 16))
// Batch-norm width: `initial` unless the input is no wider than it, wider
// than half of it and the three tensors exceed TCM; then half of it.
#define SMART_BATCHNORM_WIDTH(in, w, out, initial) SELECT(OR(GT(DIM_WIDTH(in), initial), NOT(AND(GT(DIM_WIDTH(in), DIV(initial, 2)), GT(ADD(ESTIMATE_TENSOR_SIZE(out), ESTIMATE_TENSOR_SIZE(in), ESTIMATE_TENSOR_SIZE(w)), TCM_MAXTENSOR_SIZE)))), initial, DIV(initial, 2))
// Depth-to-space width slice: `slice` halves while the output is wider than
// the slice and input plus output exceed TCM (slice, slice/2, else slice/4).
#define GOOD_WIDTH_DEPTHTOSPACE_CHECK(in, out, slice) AND(GT(DIM_WIDTH(out), slice), GT(ADD(ESTIMATE_TENSOR_SIZE(in), ESTIMATE_TENSOR_SIZE(out)), TCM_MAXTENSOR_SIZE))
#define SMART_WIDTH_DEPTHTOSPACE(in, out, slice) SELECT(GOOD_WIDTH_DEPTHTOSPACE_CHECK(in, out, slice), slice, SELECT(GOOD_WIDTH_DEPTHTOSPACE_CHECK(in, out, DIV(slice, 2)), DIV(slice, 2), DIV(slice, 4)))

// ---- Match helpers ----

// Binds tag to a "$Const" op: use in a match where an operand must be a
// constant.
#define OPCONST(tag) LET(tag, Op("$Const"))
// A constant as loaded from DDR (crouton or flat layout) or moved to TCM.
#define OPCONST_DDR(tag) Op("constant_crouton_from_ddr", Op("ForceFormat_Crouton", OPCONST(tag)))
#define OPCONST_FLAT_DDR(tag) Op("constant_flat_from_ddr", OPCONST(tag))
#define OPCONST_TCM(tag) Op("constant_crouton_to_vtcm", OPCONST(tag))
#define OPCONST_FLAT_TCM(tag) Op("constant_flat_to_vtcm", OPCONST(tag))
// An op of the built-in package: just its name. The parser reads
// FROM_DEFAULT_PACKAGE("X") as "X" itself; the name is never expanded.
#define FROM_DEFAULT_PACKAGE(name) name
// Binds x to a Float32-to-Float16 cast of y; CASTSLICE binds x to a padded
// slice of such a cast bound to y (operands "Before", "Start", "Out", "Zero").
#define FP16_CONST_CAST(x, y) LET(x, Op(FROM_DEFAULT_PACKAGE("Cast_fp32_to_fp16_plain"), y))
#define FP16_CONST_CASTSLICE(x, y, z) LET(x, Op(FROM_DEFAULT_PACKAGE("SlicePad_shape_inplace"), FP16_CONST_CAST(y, z), "Before", "Start", "Out", "Zero"))

// ---- Replacement helpers ----

// A Cast of x with output type (dt, zero_offset 0, stepsize 1.0).
#define CAST_TO_DTYPE(x, dt) WITH_OUTPUT_TYPE(dt, 0, 1.0f, Op(FROM_DEFAULT_PACKAGE("QNN_Cast"), x))
// x cast to Float16 sized like x; x cast to Float32 (the cast takes the
// size of the op it is built into).
#define CAST_TO_FP16(x) WITH_SIZE(x, CAST_TO_DTYPE(x, DType::Float16))
#define CAST_TO_FP32(x) CAST_TO_DTYPE(x, DType::Float32)
// Builds op with a Float16 output sized like "*", then casts it back to
// Float32.
#define MAKE_OP_FP16_AND_INSERT_CAST(op) CAST_TO_FP32(WITH_SIZE("*", WITH_OUTPUT_TYPE(DType::Float16, 0, 1.0f, op)))
// A relaxed-precision rule (CLEANUP_GRAPH+130): a Float32 binary op computed
// in Float16 between casts.
#define CONVERT_BINARY_OP_TO_FP16(op, a, b) DEF_OPTIM(CLEANUP_GRAPH + 130, relaxed_precision_flag, Op(op, a, b), IS_BINARY_FP32(a, b, "*"), MAKE_OP_FP16_AND_INSERT_CAST(Op(op, CAST_TO_FP16(a), CAST_TO_FP16(b))))
// An Int32 scalar constant holding x's zero_offset.
#define CONST_ZERO_OFF(x) gen_ConstScalar_i32(ZERO_OFFSET_OF(x))
// space_rearrange reshapes from / to the W1 and H1 crouton shapes. FROM_W1
// takes an op construction (the result keeps the root's op id), FROM_W1_OP
// and FROM_H1 an operand; TO_* wrap an op construction sized and typed like "*".
#define REARRANGE_FROM_W1(a) WITH_SIZE(SHAPE_FROM_W1(a), WITH_TYPE(WITH_SAME_ID("*", a), Op("space_rearrange", a)))
#define REARRANGE_FROM_W1_OP(a) WITH_SIZE(SHAPE_FROM_W1(a), WITH_TYPE(a, Op("space_rearrange", a)))
#define REARRANGE_TO_W1(op) Op("space_rearrange", WITH_SIZE(SHAPE_FROM_W1("*"), WITH_TYPE("*", op)))
#define REARRANGE_FROM_H1(a) WITH_SIZE(SHAPE_FROM_H1(a), WITH_TYPE(a, Op("space_rearrange", a)))
#define REARRANGE_TO_H1(op) Op("space_rearrange", WITH_SIZE(SHAPE_FROM_H1("*"), WITH_TYPE("*", op)))
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
