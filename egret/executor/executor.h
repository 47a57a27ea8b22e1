// The reference executor: a plain CPU interpreter for egret's op vocabulary
// (docs/ops.md), the ground truth that `egret run` and `egret verify` use.
//
// Every op is computed on real values: quantized inputs are dequantized
// (stepsize * (q - zero_offset)), Float16 is widened, and each result is
// stored once in its node's declared output type (quantized outputs as
// round(r / stepsize + zero_offset), saturated). The heavy ops (Conv2d,
// DepthWiseConv2d, TransposeConv2d, FullyConnected, MatMul, PoolMax2d,
// PoolAvg2d) run on oneDNN in float32: operands rounded to float, products
// accumulated in float32, except a Conv2d or DepthWiseConv2d of an 8-bit
// input quantized per tensor and an 8-bit filter (per tensor or per output
// channel) whose q - zero values fit int8: that one is exact, the integer
// sum of (qx - zx)(qw - zw) over the taps inside the input (oneDNN's int8
// kernels), times sx * sw, plus the bias, computed in double and rounded
// once. A convolution reads an input, filter or bias that is a Dequantize to
// Float32 as the quantized value itself (what it reads as float is what the
// Dequantize would store), so an ONNX QDQ graph's convolutions are exact
// too, and a Dequantize nothing else reads is not run; and a convolution
// whose Float32 result only a Quantize reads stores it in the Quantize's type
// itself (exactly what the Quantize would store). The binary elementwise ops
// (Add, Subtract, Multiply, Maximum, Minimum) read and store through
// Dequantize and Quantize nodes the same way, computing in float on the
// dequantized values a chunk at a time; and a Transpose or Reshape of a
// Dequantize that only such readers read moves the quantized bytes instead
// (an ONNX QDQ graph's input Transpose to NHWC). Every other op, and a
// heavy op whose shape oneDNN does not take, is defined as computed in double; where computing in
// float gives the same bits (one correctly rounded operation or a selection on Float32 and Float16
// operands) the kernel does that, and ops that only move elements copy their stored bytes
// (tests/executor/float_paths_test.cc checks both bit for bit). Results are identical run to run
// for a given ExecuteOptions::threads, and the streaming kernels give the same bits for every
// thread count. Only the nodes the graph outputs depend on are run, in topological order; each
// intermediate value is freed after its last use, or its storage taken over by the node that reads
// it last.
#ifndef EGRET_EXECUTOR_EXECUTOR_H_
#define EGRET_EXECUTOR_EXECUTOR_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "egret/graph/graph.h"
#include "egret/graph/tensor.h"

namespace egret {

// The time one op's kernels took in a run (ExecuteStats::ops).
struct OpTime {
  std::string op;     // kernel name: the base op name ("Conv2d" for "Conv2d.fp16")
  int64_t nodes = 0;  // nodes of the op that ran
  double ms = 0;      // wall time of their kernels, shape checks and bookkeeping
};

struct ExecuteStats {
  int64_t nodes_run = 0;  // nodes computed by a kernel
  // Most bytes of computed values alive at once (TensorType::byte_size() of
  // each; a node's inputs and outputs are alive together). Counted as the
  // memory plan counts its buffers (backend/memory_plan.h) for the order the
  // executor runs in, Graph::TopologicalOrder(), except that graph inputs
  // (borrowed from the caller) are not counted. For a graph with no Multi
  // node whose nodes all feed an output, it is MemoryPlan::naive_peak_bytes
  // when the graph has no inputs, else at most that and at least that less
  // the inputs' bytes (tests/executor/executor_memory_test.cc). Values the
  // executor never makes do not count: a Dequantize a convolution reads
  // through, a convolution's Float32 result stored as its Quantize's type
  // (see the file comment); nor do values an ExecuteCache holds (the
  // outputs of nodes that read only constants), as constants do not.
  // Kernels' scratch memory (e.g. operands widened to double) comes on top,
  // for the node being run.
  int64_t peak_live_bytes = 0;
  // Per op that ran, its nodes and time, slowest first (`egret run
  // --profile`). The per-node clock reads cost about 50 ns a node.
  std::vector<OpTime> ops;
};

namespace backend_internal {
class ConstantCache;
class FoldedValues;
class PrimitiveCache;
}  // namespace backend_internal

// What repeated runs of graphs reuse: values derived from their constants
// alone, made on the first run that needs them, and oneDNN primitives. Today
// that is each convolution filter in the layout its oneDNN primitive wants
// (for int8, with oneDNN's zero-point compensation), which otherwise costs a
// run about as much as the convolution, each convolution's primitive, and the
// outputs of nodes that read only constants (a Dequantize of a weight). An entry holds shared
// ownership of the constant it came from (Node::constant), so it can never be taken for a later
// tensor at the same address; a cache may serve several graphs and grows until it is destroyed.
// Results are the same with or without a cache. One run at a time.
class ExecuteCache {
 public:
  ExecuteCache();
  ~ExecuteCache();
  ExecuteCache(const ExecuteCache&) = delete;
  ExecuteCache& operator=(const ExecuteCache&) = delete;

  // Bytes of derived values held.
  int64_t bytes() const;
  backend_internal::ConstantCache& constants() { return *constants_; }
  backend_internal::PrimitiveCache& primitives() { return *primitives_; }
  backend_internal::FoldedValues& folded() { return *folded_; }

 private:
  std::unique_ptr<backend_internal::ConstantCache> constants_;
  std::unique_ptr<backend_internal::PrimitiveCache> primitives_;
  std::unique_ptr<backend_internal::FoldedValues> folded_;
};

struct ExecuteOptions {
  // Fail with kResourceExhausted when computed values alive at once would
  // exceed this many bytes (graph inputs and constants are not counted).
  // 0: no limit.
  int64_t max_live_bytes = 0;
  // When set, filled in on success.
  ExecuteStats* stats = nullptr;
  // When set, a node whose op has no kernel does not fail the run: it and
  // every node depending on it are skipped, their outputs are not computed,
  // and (*unavailable)[k] says why graph output k is missing, e.g.
  // "depends on node 'If_0' (onnx.If), which has no reference kernel"
  // ("" for each output that was computed; a missing output is returned as
  // a Tensor of the unknown TensorType()).
  std::vector<std::string>* unavailable = nullptr;
  // Threads the kernels may use (oneDNN's OpenMP regions, and the streaming
  // kernels' loops on the same OpenMP team); 0: every core.
  // Results are the same run to run for a given count.
  int threads = 0;
  // When set, values derived from the graph's constants are kept there and
  // taken from there by later runs (ExecuteCache).
  ExecuteCache* cache = nullptr;
};

// Runs `g` on `inputs` (one per graph input, in g.inputs() order, each of
// exactly the input's type) and returns one tensor per graph output, of the
// output's declared type.
//
// Errors: a malformed graph or wrong inputs are kInvalidArgument; a node whose
// declared output dims disagree with its shape function, or whose op has no
// kernel, fails with a message naming the node and op, e.g.
// "node 'n7' (#7): unknown op 'MyOp' (no reference kernel)".
absl::StatusOr<std::vector<Tensor>> Execute(const Graph& g, absl::Span<const Tensor> inputs,
                                            const ExecuteOptions& options = {});

// Asks the C library's allocator (glibc's malloc) to keep freed memory for
// reuse instead of returning it to the system: every allocation comes from
// the heap rather than a fresh mapping, and the heap is trimmed only past
// 1 GiB free. The executor allocates and frees each value per node; with
// glibc's defaults every megabyte-sized value was new pages to fault in and
// zero, which made small networks' runs up to twice as slow (and a 1024x1024
// network's 64 MiB values, past the largest threshold glibc takes, cost it
// 15 % of its run). Process-wide
// (it changes malloc for everyone), so a program opts in: the egret command
// and bench/executor call it at start. Returns false where it has no effect
// (not glibc, or a setting refused). Where the program is linked with
// tcmalloc (the egret command's default, EGRET_TCMALLOC), mallopt is
// tcmalloc's, changes nothing and reports success (so this returns true):
// tcmalloc keeps freed memory for reuse by itself.
bool KeepFreedMemoryForReuse();

// True when the reference executor has a kernel for `op` (dotted
// implementation suffixes are ignored: "Relu.fp16" runs as "Relu"). The
// special ops "$Const", "$Shape", "$Out" and "*Input" count as executable.
bool HasKernel(std::string_view op);
// HasKernel(node.op), and for a control-flow node ("onnx.If", "onnx.Loop",
// "onnx.Scan") its bodies are there as subgraph attributes: one the importer
// kept opaque without importing its bodies has only their summaries and
// cannot run; an "onnx.SequenceMap" needs its body kept for import at run
// time (runtime_body.h).
bool HasKernel(const Node& node);

// True when node `id` of `g` may draw random values without a seed: an
// opaque RandomNormal, RandomUniform, RandomNormalLike, RandomUniformLike,
// Bernoulli or Multinomial with no "seed" attribute, or such a Dropout that
// may run in training mode (is_test = 0, or a training_mode input that is
// not the constant false). The executor draws those from a fixed default key
// (the same values on every run, kernels/onnx/onnx_random.cc), but ONNX
// leaves unseeded draws to the implementation: an output that depends on one
// has no value to compare, and verification (verify.h) reports it as not
// verified. A seeded node draws from its seed alone, the same values in any
// graph that holds it, and is compared like any other.
bool DrawsWithoutSeed(const Graph& g, NodeId id);

}  // namespace egret

#endif  // EGRET_EXECUTOR_EXECUTOR_H_
