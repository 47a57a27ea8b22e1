#include "egret/graph/op_table_markdown.h"

#include <string_view>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "egret/graph/op_table.h"

namespace egret {
namespace {

constexpr std::string_view kHeader = R"md(# egret's op vocabulary

Every op egret understands, with its exact inputs. This page is generated from the op
table, `egret/graph/op_table.cc` (`FindOpDef`, `IsKnownOp`), by `egret ops --markdown`:
edit the table, not this page. The row's shape function is what `InferOutputTypes`
(`egret/graph/shape_inference.h`) runs; the reference executor (`egret/executor/executor.h`)
computes each op, and `tests/lib/op_table_consistency_test.cc` checks that every op has a
shape function, a reference kernel, an HVX cost in `egret/rules/lib/hvx_ops.rules` (or is
marked off HTP) and an ONNX mapping (or "none"). An op that is not listed here is *opaque*
(an imported op egret cannot map): it is kept, typed by its importer, and never rewritten
or executed.

## Conventions

- **Names** are the QNN op names. A dotted suffix names an *implementation* of an op
  (`Relu.fp16`, `Conv2d.opt.tcm`, `.ref`, `.flat`): it has the base op's inputs and
  meaning (`BaseOpName`).
- **Layout** is the HTP's: activations NHWC `[b, h, w, c]` (the channel is the last
  dim); convolution filters `[fh, fw, in_depth / groups, out_depth]`.
- **Inputs are positional.** Data inputs come first, then parameters. The only exception
  is the variadic `Concat`, whose parameter (the axis) is input 0. Optional inputs are
  only ever trailing: leave them out to get the default.
- **Parameters are inputs, never attributes**, so rules can see and rebuild them. A
  parameter is one of
  - a `"$Shape"` node: its Int32 output's *dims are the value* (`gen_Shape(1,2,2,1)` is
    the value `[1,2,2,1]`; a `$Shape` of type `Int32[]` is the empty list). It holds no
    data and takes no memory. It can only carry non-negative integers.
  - a `"$Const"` node: its data are the value (any integer dtype, or a float dtype
    holding whole numbers, for integer parameters; any numeric dtype for float scalars).
    Use it for negative values (axes counted from the end, StridedSlice bounds) and for
    float scalars.
  Kinds used below: *ints* (a list of integers: `$Shape` or `$Const`), *int* (exactly one
  integer: a `$Const` scalar or one-element vector, or a `$Shape` with one dim),
  *float* (one number: a `$Const` with one element; its real value is used).
  Shape inference needs every parameter's value; a parameter produced by any other node
  is an error ("Conv2d stride must be a $Shape or $Const ...").
- **Mode-like parameters** are Int32 *int* inputs with the numbering given per op (pad
  mode, resize mode, coordinate transform, keep_dims, count_pad). The only exceptions are
  the two QNN-named resize variants, which fix the mode by name.
- **Axes** may be negative (counted from the end) when given by a `$Const`.
- **What rules see.** Before a graph is seeded into the e-graph, every *ints* parameter
  given as an integer `$Const` whose values a `$Shape` can hold becomes that `$Shape`, and
  a reduction's axes become a `$Shape` of axes counted from 0, ascending
  (`egret/graph/canonical_params.h`; the ONNX importer writes lists that way already).
  So a rule binds a list as `Op("$Shape")`; *int* and *float* parameters stay as given.
- **Broadcasting** is numpy's: shapes are aligned at the end; a dim of 1 stretches.

## Output types

`InferOutputTypes` computes the output dims. The output dtype and encoding follow one
rule for every op:

1. If the node declares its output type (graph files, a rule's `WITH_TYPE`, the root a
   replacement inherits from), the declared dtype, `zero_offset` and `stepsize` are kept.
   They must be in the same *family* as the first data input: float (Float32, Float16)
   with float, quantized (QUInt8, QInt8, QUInt16, QInt16, QInt32) with quantized, and an
   integer or Bool type with itself. `Cast` accepts any concrete dtype, `Quantize` any
   quantized dtype, `Dequantize` a float dtype.
2. Otherwise the output has the dtype and encoding of the first data input (input 1 for
   `Concat` and `ElementWiseSelect`), except `Dequantize` (Float32). `Cast` and `Quantize`
   have no default: their output type must be declared.
3. Some outputs have a dtype of their own instead: comparisons and logic ops give Bool
   (a declared type must be Bool); the indices of `Argmax`, `Argmin` and `TopK` are Int32
   by default, or a declared Int32 or Int64 (ONNX's index type).

So for quantized ops whose output encoding is a free choice (Conv2d, FullyConnected,
ElementWiseAdd, Softmax, ...), the producer of the graph chooses it and egret keeps it.

**Numeric semantics** (the reference executor): every op computes on real values in
double precision, except Conv2d, DepthWiseConv2d, TransposeConv2d, FullyConnected,
MatMul, PoolMax2d and PoolAvg2d on Float32, Float16 or quantized values, which run on
oneDNN in float32 (operands rounded to float once, float32 accumulation, the result
rounded once to the output type). A Conv2d or DepthWiseConv2d of an 8-bit input
quantized per tensor and an 8-bit filter (per tensor or per output channel) is exact
instead: the integer sum of `(qx - zx) * (qw - zw)` over the taps inside the input,
times `sx * sw`, plus the bias, in double, rounded once (a convolution reads a
Dequantize's input through it, so ONNX QDQ graphs get the same). A quantized element
`q` is the real `stepsize * (q - zero_offset)`; a result `r` is stored in a quantized
output as `round(float(r) / stepsize) + zero_offset`, the division in float32 and
halves to even (as ONNX Runtime), saturated to the storage range, NaN to the zero
offset. Float16 is computed through float. Integer outputs (Int32, Int64) round to nearest, except integer division, which
truncates toward zero.

## Reading the tables

- **inputs**: in order; each is *data* or a *param* (parameter), with *optional* (and
  its default when left out) or *variadic* (given one or more times), then its
  constraint.
- **traits**: the algebraic laws the e-graph applies by itself (`OpTable::Default`,
  `egret/egraph/op_traits.h`).
- **ONNX**: the ONNX ops the importer maps onto the op (docs/onnx-import.md), or none.
- **HVX cost**: `hvx_ops.rules` when the shipped library prices it, *off HTP* for the
  special ops, which are graph structure rather than HVX work.
)md";

struct GroupDoc {
  OpGroup group;
  std::string_view title;
  std::string_view notes;  // Markdown after the table; "" for none
};

constexpr GroupDoc kGroups[] = {
    {OpGroup::kConvolution, "Convolution and matrix products", R"md(
- **Fused activation.** When `act_min` and `act_max` are given (`act_min <= act_max`,
  either may be infinite), every output value is clamped into `[act_min, act_max]` before
  it is stored: `Relu` is `(0, inf)`, `Relu6` `(0, 6)`. The shipped rule library
  (`egret/rules/lib/fusion.rules`) fuses a following `ReluMinMax` this way; the clamp costs
  nothing extra on HVX. FullyConnected takes the clamp only with a bias.
- **Groups** are not a parameter: `g = cin / filter[2]` (the filter's in-depth must
  divide `cin`, and `g` must divide `cout`). Output channel `o` belongs to group
  `o / (cout/g)` and reads that group's `cin/g` input channels.
- Conv2d: `out[b,y,x,o] = bias[o] + sum over ky,kx,k of
  in[b, y*sh - top + ky*dh, x*sw - left + kx*dw, group(o)*cin/g + k] * filter[ky,kx,k,o]`
  (positions outside the input are 0). `oh = (h + top + bottom - ((fh-1)*dh + 1)) / sh + 1`
  (floor), likewise `ow`; the padded input must be at least the dilated filter.
- DepthWiseConv2d: output channel `o` reads input channel `o / m` only (`m = cout/cin`,
  the depth multiplier): `filter[ky,kx,0,o]`. (A TF/ONNX depthwise filter
  `[fh,fw,cin,m]` reshapes to this one unchanged.)
- TransposeConv2d is the adjoint of Conv2d with the same stride, pads and dilation:
  input element `(y,x,i)` adds `in * filter[ky,kx,i mod (cin/g),j]` to output
  `(y*sh - top + ky*dh, x*sw - left + kx*dw, group(i)*(cout/g) + j)`.
  `oh = (h-1)*sh + (fh-1)*dh + 1 - top - bottom + ph`. An ONNX ConvTranspose weight
  `[cin, cout/g, kh, kw]` becomes `filter[ky,kx,k,gi*(cout/g)+j] = W[gi*(cin/g)+k, j, ky, kx]`.
- FullyConnected: `out[n,u] = bias[u] + sum_k in[n,k] * weights[u,k]` over all leading
  dims `n` (QNN's weight order; an ONNX Gemm B `[k, units]` is transposed on import).
- MatMul is numpy's matmul for rank >= 2 (importers reshape rank-1 operands).
)md"},
    {OpGroup::kElementwise, "Elementwise", R"md(
HardSigmoid: ONNX's default is alpha 0.2, beta 0.5; PyTorch's is 1/6, 0.5. ReluMinMax is
ONNX's Clip (min 0 and no max imports as `Relu`).
)md"},
    {OpGroup::kNormalization, "Normalization and reductions", R"md(
- LayerNorm normalizes over all dims from `axis` to the end (ONNX LayerNormalization):
  `(x - mean) / sqrt(var + epsilon) * gamma + beta`, population variance. `gamma` and
  `beta` broadcast to `x.dims[axis:]` (rank no larger).
- Batchnorm is QNN's folded form `x * scale[c] + offset[c]` over the channel (last) dim.
  An ONNX BatchNormalization folds to `scale = gamma / sqrt(var + eps)`,
  `offset = beta - mean * scale`.
- LRN (ONNX's local response normalization, across channels):
  `x / (bias + alpha/size * sum of x^2 over channels [c - floor((size-1)/2), c + ceil((size-1)/2)])^beta`.
- Reductions: `axes` lists distinct axes (negative allowed via `$Const`); an empty list
  reduces every axis. ReduceMean divides by the number of reduced elements.
)md"},
    {OpGroup::kDataMovement, "Data movement", R"md(
- Reshape keeps the row-major element order; a 0 in `shape` means 0 (importers resolve
  ONNX's "copy this dim").
- Slice_shape is what `AUTOSPLIT_SLICE` builds: `out[i] = x[start + i]`, requiring
  `start + size <= dims`.
- StridedSlice is Python slicing per dim: negative `begin`/`end` count from the end, both
  are clamped (so `INT32_MAX` means "to the end"); for a negative stride they are
  clamped to `[-1, dim-1]`. Count `ceil((end - begin) / stride)` or 0.
- Split: in a graph, a Split node has one output per piece, or a single output of
  dtype `Multi` whose pieces `"$Out"` selects (the e-graph's form).
- Pad modes (QNN's numbering): 0 constant (`value`, a real value), 1 mirror-symmetric
  (the edge element repeats: `[1,2,3]` left by 2 gives `2,1,1,2,3`), 2 mirror-reflect
  (`3,2,1,2,3`), 3 edge (`1,1,1,2,3`). Reflect pads must be < dim, symmetric <= dim. The
  `[rank, 2]` QNN pad_amount tensor has exactly this element order; ONNX's
  `[b0,b1,...,e0,e1,...]` is reordered on import.
)md"},
    {OpGroup::kPooling, "Pooling and resizing (NHWC)", R"md(
- Pools: `oh = (h + top + bottom - fh) / sh + 1` (floor); pads must be smaller than the
  window. Padded positions never win a max; an average divides by the number of real
  input elements in the window (`count_pad` 0, ONNX `count_include_pad=0`) or by
  `fh*fw` (`count_pad` 1). ONNX `ceil_mode` is expressed by extra bottom/right padding.
  GlobalAveragePool is PoolAvg2d with the window `[1,h,w,1]`.
- Resize scales only height and width (`size` must keep `b` and `c`). `transform`
  (default 0) maps an output coordinate `o` to the input, with `scale = out/in`:
  0 half_pixel `(o+0.5)/scale - 0.5`; 1 align_corners `o*(in-1)/(out-1)` (0 when out is
  1); 2 asymmetric `o/scale`; 3 pytorch_half_pixel (half_pixel, 0 when out is 1).
  Nearest rounds the coordinate by `nearest_mode` (default 0): 0 round_prefer_floor,
  1 round_prefer_ceil, 2 floor, 3 ceil, then clamps into the input. Bilinear clamps the
  coordinate to `[0, in-1]` and interpolates the two neighbours on each axis.
  `ResizeBilinear` and `ResizeNearestNeighbor` are `Resize` with mode 1 and 0 (QNN's
  names); QNN's `align_corners=1` is transform 1, `half_pixel_centers=1` transform 0,
  neither transform 2.
)md"},
    {OpGroup::kTypes, "Types and quantization", R"md(
- Cast converts stored numbers (not real values): float to an integer type truncates
  toward zero; anything to Bool is "not zero"; other conversions round to nearest and
  saturate. `CAST_TO_DTYPE(x, dt)` builds a Cast with output `(dt, 0, 1.0)`.
- Quantize keeps the real value and stores it in the declared encoding (requantizes a
  quantized input); Dequantize returns the real values.
)md"},
    {OpGroup::kLogic, "Comparison, logic and selection", R"md(
- Comparisons compare real values (quantized operands dequantized; Int32 and Int64
  exactly) and give Bool: 1 where the relation holds. A NaN operand makes every
  comparison false except `ElementWiseNotEqual`.
- `ElementWiseAnd`, `Or`, `Xor` and `Not` take Bool operands only (ONNX's And, Or, Xor,
  Not), so their traits hold with the type: `And(a, a) = a`, `Not(Not(a)) = a`.
- `ElementWiseSelect(condition, a, b)` is ONNX's Where: all three broadcast together;
  the result has the type of `a` (b's values are converted to it when their types
  differ).
)md"},
    {OpGroup::kIndexing, "Indexing and scans", R"md(
- Tile: `out[i0, i1, ...] = x[i0 mod d0, i1 mod d1, ...]`. ONNX's Expand imports as a
  Reshape (leading 1s) and a Tile of the broadcast dims.
- Gather (ONNX's Gather, QNN's Gather): `out[o..., j..., i...] = data[o..., indices[j...],
  i...]` with the `o` dims before `axis` and the `i` dims after it; a negative index counts
  from the end; an index outside `[-dim, dim)` is an error at run time.
- Argmax/Argmin reduce one axis to the index of its extreme element: the first of equal
  elements, or the last when `select_last` is 1. NaN counts as the extreme (numpy's rule).
- TopK returns the `k` largest (`largest` 1) or smallest elements along `axis`, sorted
  (largest first, or smallest first), equal elements in index order, and their indices.
  It has two outputs (or one `Multi` value that `$Out` reads, like Split).
- CumulativeSum: `out[j] = sum of x[i]` over `i <= j` (`i < j` when `exclusive`), or over
  `i >= j` (`i > j`) when `reverse`.
)md"},
    {OpGroup::kSpecial, "Special ops", R"md(
`$Out`'s selector is what `OpMultiOut(n_out, k, ...)` builds (`gen_Shape(0,0,n_out,k)`):
the last value is the output index and the one before it, when present, must equal the
producer's number of outputs. For a `Multi` input, callers of `InferOutputTypes` pass the
producer's output types in `OperandInfo::multi` (`InferNodeOutputTypes` does it for a
graph node).
)md"},
};

// Text for a Markdown table cell.
std::string Cell(std::string_view text) {
  return absl::StrReplaceAll(absl::string_view(text.data(), text.size()), {{"|", "\\|"}});
}

std::string Code(std::string_view text) { return absl::StrCat("`", Cell(text), "`"); }

std::string Operand(const OperandDef& o) {
  std::string s = absl::StrCat(Code(o.name), " ", o.param ? "param" : "data");
  if (o.variadic) absl::StrAppend(&s, ", variadic");
  if (o.optional) {
    absl::StrAppend(&s, ", optional");
    if (!o.default_value.empty()) absl::StrAppend(&s, " = ", Code(o.default_value));
  }
  if (!o.constraint.empty()) absl::StrAppend(&s, ": ", Cell(o.constraint));
  return s;
}

std::string Traits(const OpAlgebra& a) {
  std::vector<std::string> t;
  if (a.commutative) t.push_back("commutative");
  if (a.associative)
    t.push_back(a.broadcast_associative ? "associative (across broadcasting)" : "associative");
  if (a.idempotent) t.push_back("idempotent");
  if (a.involution) t.push_back("involution");
  return t.empty() ? "" : absl::StrJoin(t, ", ");
}

std::string Row(const OpDef& d) {
  std::string inputs =
      d.operands.empty()
          ? "none"
          : absl::StrJoin(d.operands, "<br>",
                          [](std::string* out, const OperandDef& o) { out->append(Operand(o)); });
  std::string output = Cell(d.results);
  if (d.num_results == kVariadic) output = absl::StrCat("variadic: ", output);
  std::vector<std::string> onnx;
  for (std::string_view op : d.OnnxOps()) onnx.emplace_back(op);
  return absl::StrCat("| ", Code(d.name), " | ", Cell(d.doc), " | ", inputs, " | ", output, " | ",
                      Traits(d.algebra), " | ", onnx.empty() ? "none" : absl::StrJoin(onnx, ", "),
                      " | ", d.off_htp ? "off HTP" : "hvx_ops.rules", " |\n");
}

}  // namespace

std::string OpTableMarkdown() {
  std::string md(kHeader);
  for (const GroupDoc& g : kGroups) {
    absl::StrAppend(&md, "\n## ", std::string(g.title), "\n\n",
                    "| op | meaning | inputs | output | traits | ONNX | HVX cost |\n",
                    "|---|---|---|---|---|---|---|\n");
    for (const OpDef& d : AllOpDefs()) {
      if (d.group == g.group) md += Row(d);
    }
    md.append(g.notes);
  }
  return md;
}

}  // namespace egret
