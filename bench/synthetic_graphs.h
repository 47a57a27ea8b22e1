// Synthetic networks for the scaling study (bench/scaling, docs/scaling.md):
// one real block repeated in a chain, each block feeding the next, so that
// the graph's size is a free parameter while its content stays that of a real
// network. The graphs use the ops, operand layouts and parameter nodes the
// ONNX importer (graph/onnx_reader.cc) produces ("$Shape" strides, pads, axes
// and reshape targets; one shared node per distinct parameter or scalar
// constant), so the shipped rule library (rules/lib) sees what it would see
// in an imported model.
//
//   resnet       ResNet bottleneck on an NHWC float32 [1,8,8,16] tensor:
//                1x1 Conv2d (16->4) -> Batchnorm -> Relu -> 3x3 Conv2d (4->4,
//                pad 1) -> Batchnorm -> Relu -> 1x1 Conv2d (4->16) ->
//                Batchnorm, + the block's input (ElementWiseAdd), Relu.
//   transformer  post-LayerNorm encoder block on a float32 [1,8,16] sequence
//                (8 tokens, width 16, 2 heads of 8, feed-forward width 32):
//                Q/K/V projections, scaled dot-product attention (MatMul,
//                division by sqrt(8), softmax), output projection, residual
//                add, LayerNorm, feed-forward with GELU, residual add,
//                LayerNorm. Projections are FullyConnected + ElementWiseAdd
//                (how the importer maps ONNX MatMul + Add); LayerNorm and
//                softmax (with max subtraction) are decomposed into elementary
//                ops as ONNX exporters write them, GELU into its erf form with
//                x * (1/sqrt 2) (see Gelu in the .cc for why not x / sqrt 2).
//
// Weights are seeded pseudo-random float32 constants, scaled so that a few
// blocks stay numerically tame on the reference executor.
#ifndef EGRET_BENCH_SYNTHETIC_GRAPHS_H_
#define EGRET_BENCH_SYNTHETIC_GRAPHS_H_

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "egret/graph/graph.h"

namespace egret {

enum class SyntheticFamily { kResNet, kTransformer };

// "resnet", "transformer".
std::optional<SyntheticFamily> ParseSyntheticFamily(std::string_view name);
std::string_view SyntheticFamilyName(SyntheticFamily family);
// Every family, in the order above.
std::vector<SyntheticFamily> AllSyntheticFamilies();

struct SyntheticOptions {
  int blocks = 1;  // blocks in all, >= 1
  // At most this many blocks per chain: the blocks form ceil(blocks /
  // chain_blocks) parallel chains that all start at the graph input (the last
  // one may be shorter). 0: one chain of every block.
  int chain_blocks = 0;
  uint64_t seed = 0;  // the weights; the same seed gives the same graph
};

// The chain(s) of `options.blocks` blocks of `family`: one graph input "x";
// one graph output per chain, its last block's output, named "y" (one chain)
// or "y0", "y1", ... The graph passes Graph::Validate(). Fails with
// kInvalidArgument when blocks < 1 or chain_blocks < 0.
absl::StatusOr<Graph> MakeSyntheticGraph(SyntheticFamily family, const SyntheticOptions& options);

// The node count of the graph of `blocks` blocks of `family` (any
// chain_blocks), from the 1- and 2-block graphs: it is linear in blocks.
int64_t SyntheticNodeCount(SyntheticFamily family, int blocks);

// The number of blocks (>= 1) whose graph has the node count closest to
// `target_nodes`; the count per block is measured on 1- and 2-block graphs
// (it is the same for every block).
int BlocksForNodes(SyntheticFamily family, int64_t target_nodes);

// The graph of BlocksForNodes(family, target_nodes) blocks in chains of at
// most `chain_blocks` (seed 0), built on the first call for these arguments
// and kept for the process: for benchmarks that time a stage on it, not its
// construction. Aborts when it cannot be built (it always can for
// target_nodes >= 1 and chain_blocks >= 0).
const Graph& CachedSyntheticGraph(SyntheticFamily family, int64_t target_nodes, int chain_blocks);

}  // namespace egret

#endif  // EGRET_BENCH_SYNTHETIC_GRAPHS_H_
