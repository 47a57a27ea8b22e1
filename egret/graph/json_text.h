// JSON text that is always valid UTF-8.
#ifndef EGRET_GRAPH_JSON_TEXT_H_
#define EGRET_GRAPH_JSON_TEXT_H_

#include <string>

#include "nlohmann/json.hpp"

namespace egret {

// `j` as JSON text (indented by `indent` spaces per level, one line when
// negative). Strings that are not valid UTF-8 (a name read from an ONNX
// model, a file path) never make this throw: each invalid byte is written as
// U+FFFD, the replacement character. Every report, dump and listing egret
// writes as JSON goes through here; the graph writer instead refuses such a
// name (replacing could make two names equal).
template <typename Json>
std::string DumpJson(const Json& j, int indent = -1) {
  return j.dump(indent, ' ', false, Json::error_handler_t::replace);
}

}  // namespace egret

#endif  // EGRET_GRAPH_JSON_TEXT_H_
