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
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "egret/extract/problem.h"
#include "egret/support/diagnostic.h"

namespace egret::extract {

// Where each class of a parsed problem is in its file: the key of the class's
// first node, indexed by ClassId.
struct EgraphSourceMap {
  std::vector<SourceLocation> class_location;

  // `status` (an extraction error) as "<file>:<line>:<col>: error: <message>"
  // when it carries a class (class_error.h) this map places, else
  // "<file>: error: <message>"; the code is kept.
  absl::Status Locate(const absl::Status& status, std::string_view file) const;
};

// Parses `text`. On bad input returns kInvalidArgument whose message is one
// line: "<file>:<line>:<col>: error: <JSON path>: <what is wrong>", e.g.
// `g.json:7:15: error: $.nodes["3"].cost: expected a number`. On success
// fills `where` when it is given.
absl::StatusOr<ExtractionProblem> ParseEgraphSerialize(std::string_view text,
                                                       std::string_view file = "<input>",
                                                       EgraphSourceMap* where = nullptr);

// Reads and parses the file at `path` (see support/file_io.h for read errors).
absl::StatusOr<ExtractionProblem> ReadEgraphSerializeFile(const std::string& path,
                                                          EgraphSourceMap* where = nullptr);

}  // namespace egret::extract

#endif  // EGRET_EXTRACT_EGRAPH_SERIALIZE_H_
