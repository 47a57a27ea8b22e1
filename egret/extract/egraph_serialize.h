// Reader for the egraph-serialize JSON format (written by egg and egglog, used
// by extraction-gym):
//
//   {"nodes": {"<node id>": {"op": "<op>", "children": ["<node id>", ...],
//                            "eclass": "<class id>", "cost": <number>}, ...},
//    "root_eclasses": ["<class id>", ...],
//    "class_data": {...}}
//
// Children name nodes; a child's class is that node's "eclass". "cost"
// defaults to 1 and "children" to []; other keys ("class_data", "comment",
// per-node extras) are accepted and ignored. Classes are numbered in order of
// first appearance; node and class ids are kept as the problem's names.
#ifndef EGRET_EXTRACT_EGRAPH_SERIALIZE_H_
#define EGRET_EXTRACT_EGRAPH_SERIALIZE_H_

#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "egret/extract/problem.h"

namespace egret::extract {

// Parses `text`. On bad input returns kInvalidArgument whose message is one
// line: "<file>:<line>:<col>: error: <JSON path>: <what is wrong>", e.g.
// `g.json:7:15: error: $.nodes["3"].cost: expected a number`.
absl::StatusOr<ExtractionProblem> ParseEgraphSerialize(std::string_view text,
                                                       std::string_view file = "<input>");

// Reads and parses the file at `path` (see support/file_io.h for read errors).
absl::StatusOr<ExtractionProblem> ReadEgraphSerializeFile(const std::string& path);

}  // namespace egret::extract

#endif  // EGRET_EXTRACT_EGRAPH_SERIALIZE_H_
