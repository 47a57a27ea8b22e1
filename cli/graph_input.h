// The flags of every command that reads a graph, and the one way to read it.
//
//   --dim NAME=N                 size of a symbolic ONNX input dim (repeatable)
//   --default-dim N              size of any other symbolic or unknown ONNX input dim
//   --input-shape INPUT=1x512    the whole shape of an ONNX graph input (repeatable; also
//                                written 1,512)
//   --input-value INPUT=V[,V..]  freeze an ONNX graph input to a constant (repeatable),
//                                e.g. a sample rate that decides control flow
//
// They apply to .onnx graphs only (egret's JSON graphs are fully typed).
#ifndef EGRET_CLI_GRAPH_INPUT_H_
#define EGRET_CLI_GRAPH_INPUT_H_

#include <cstdint>
#include <string>
#include <vector>

#include "CLI/CLI.hpp"
#include "absl/status/statusor.h"
#include "egret/graph/graph.h"

namespace egret::cli {

class GraphInputFlags {
 public:
  // Adds the flags to `cmd`. The object must outlive the parse.
  void AddTo(CLI::App* cmd);

  // Reads the graph at `path` with the flags' import options. A malformed
  // flag is kInvalidArgument ("--dim 'x': expected NAME=N with N >= 1").
  absl::StatusOr<Graph> Load(const std::string& path) const;
  // The same, sizing any dim the flags leave without a size as
  // `unsized_dim` (for a summary that must not fail on them: egret info).
  absl::StatusOr<Graph> Load(const std::string& path, int64_t unsized_dim) const;

  // The most the process may hold resident while an ONNX file is read (0: no
  // limit), set by a command from its --memory-limit before Load.
  int64_t memory_limit_bytes = 0;

 private:
  std::vector<std::string> dims_;
  int64_t default_dim_ = 0;
  std::vector<std::string> input_shapes_;
  std::vector<std::string> input_values_;
};

// The shipped rule library (rules/lib/*.rules), used when a command gets no
// --rules: next to an installed egret (<prefix>/share/egret/rules), else in
// the source tree it was built from.
std::vector<std::string> DefaultRuleFiles();

}  // namespace egret::cli

#endif  // EGRET_CLI_GRAPH_INPUT_H_
