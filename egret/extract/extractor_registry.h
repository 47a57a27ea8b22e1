// Every extractor egret has, by name: the one list from which the CLI's
// --extractor help and checks, the comparison strategies (eqsat-NAME) and the
// extraction bench are derived. Adding an extractor is its own file plus one
// row in extractor_registry.cc.
#ifndef EGRET_EXTRACT_EXTRACTOR_REGISTRY_H_
#define EGRET_EXTRACT_EXTRACTOR_REGISTRY_H_

#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "egret/extract/extractor.h"

namespace egret::extract {

// Every registered extractor, in registration order (tree, greedy, dag, ilp).
// Rows live for the whole program, so pointers to them may be kept.
absl::Span<const Extractor> Extractors();

// The row named `name`, or null.
const Extractor* FindExtractor(std::string_view name);

// The row named `name`; kInvalidArgument "unknown extractor 'NAME' (expected
// tree, greedy, dag or ilp)" listing every registered name otherwise.
absl::StatusOr<const Extractor*> LookupExtractor(std::string_view name);

// The extractor used when none is chosen: "dag".
const Extractor& DefaultExtractor();

// Every registered name, for messages: "tree, greedy, dag or ilp".
std::string ExtractorNameList();

}  // namespace egret::extract

#endif  // EGRET_EXTRACT_EXTRACTOR_REGISTRY_H_
