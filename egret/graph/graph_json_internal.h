// Private to the graph stage: what the graph JSON reader (graph_json_reader.cc,
// graph_json_values.cc) and writer (graph_json_writer.cc) share. The format's
// name and version, the scans of raw JSON text and the JSON-pointer and
// message helpers (graph_json_text.cc), and the Reader, whose members are
// split between the structure of a graph file (graph_json_reader.cc) and the
// values in it (graph_json_values.cc).
#ifndef EGRET_GRAPH_GRAPH_JSON_INTERNAL_H_
#define EGRET_GRAPH_GRAPH_JSON_INTERNAL_H_

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "egret/graph/graph.h"
#include "egret/support/diagnostic.h"
#include "nlohmann/json.hpp"

namespace egret::graph_json_internal {

using Json = nlohmann::ordered_json;

inline constexpr std::string_view kFormatName = "egret-graph";
inline constexpr int64_t kFormatVersion = 1;

// ---------------------------------------------------------------------------
// Scans of the raw text (graph_json_text.cc).

// Byte offset of the value at `pointer` in the (valid JSON) `text`, or of the
// deepest enclosing value found.
size_t LocateValue(std::string_view text, std::string_view pointer);

// In valid JSON `text`, the offset of the first key that repeats a key of
// the same object, and that key (decoded); nullopt when there is none.
std::optional<std::pair<size_t, std::string>> FindDuplicateKey(std::string_view text);

// In `text` (JSON that nlohmann refused with "number overflow"), the offset
// and spelling of the first number literal outside a string that does not fit
// a double (1e400); nullopt when there is none.
std::optional<std::pair<size_t, std::string>> FindOverflowingNumber(std::string_view text);

// Finds the first array or object nested deeper than `max_depth` (its
// offset), so that pathological input is refused before nlohmann builds it.
// Stops early (nullopt) at a byte no JSON text can hold there: the parser
// reports that error first, with its own position.
std::optional<size_t> FindTooDeep(std::string_view text, int max_depth);

// ---------------------------------------------------------------------------
// Messages, JSON pointers and checksums (graph_json_text.cc).

// Printable, single-line form of a message that may quote user bytes.
std::string OneLine(std::string_view s);
// `s` in single quotes, in OneLine's form.
std::string Quote(std::string_view s);
// The JSON pointer to member `key` (escaped) or element `index` of `ptr`.
std::string Child(const std::string& ptr, std::string_view key);
std::string Child(const std::string& ptr, size_t index);
// "an object", "an integer", ...: what `j` is, for "expected X, got Y".
std::string KindOf(const Json& j);
// The FNV-1a hash of `data` (names and checks sidecars), and its 16 hex digits.
uint64_t Fnv1a64(std::string_view data);
std::string Hex64(uint64_t v);

// ---------------------------------------------------------------------------
// Reader: the structure of a graph file in graph_json_reader.cc, the values
// in it (types, attributes, options, constant elements) in
// graph_json_values.cc.

class Reader {
 public:
  Reader(std::string_view text, std::string_view file, std::string_view sidecar_dir,
         uint64_t max_file_bytes)
      : text_(text), file_(file), sidecar_dir_(sidecar_dir), max_file_bytes_(max_file_bytes) {}

  absl::StatusOr<Graph> Read(const Json& root);
  // The nodes, inputs and outputs of the graph object `root` at pointer
  // `base` (the whole file, or a subgraph attribute's "graph" member) into
  // `graph`, validated.
  absl::Status ReadBody(const Json& root, const std::string& base, Graph* graph);

 private:
  absl::Status Fail(const std::string& ptr, std::string_view message) const {
    SourceLocation loc = LocationOf(file_, text_, LocateValue(text_, ptr));
    // The pointer holds member names as written (a "\n" in a key is a line
    // break): printed in OneLine's form, so that the error stays one line.
    return BadInput(
        loc, absl::StrCat("at ", ptr.empty() ? "/" : OneLine(ptr), ": ", std::string(message)));
  }
  absl::Status Expect(const Json& j, const std::string& ptr, bool ok, std::string_view what) const {
    if (ok) return absl::OkStatus();
    return Fail(ptr, absl::StrCat("expected ", std::string(what), ", got ", KindOf(j)));
  }
  absl::Status CheckMembers(const Json& obj, const std::string& ptr,
                            std::initializer_list<std::string_view> allowed) const;
  absl::Status GetInt(const Json& j, const std::string& ptr, int64_t* out) const;
  absl::Status GetString(const Json& j, const std::string& ptr, std::string* out) const;
  absl::Status GetDouble(const Json& j, const std::string& ptr, double* out) const;

  absl::StatusOr<TensorType> ReadType(const Json& j, const std::string& ptr) const;
  absl::Status ReadPerAxis(const Json& j, const std::string& ptr, TensorType* type) const;
  absl::StatusOr<AttrValue> ReadAttr(const Json& j, const std::string& ptr) const;
  // {"from": [names], "rules": [names]}, both optional.
  absl::Status ReadProvenance(const Json& j, const std::string& ptr, Provenance* out) const;
  absl::StatusOr<OptionValue> ReadOption(const Json& j, const std::string& ptr) const;
  absl::Status ReadNode(const Json& j, const std::string& ptr, Node* node);
  absl::Status ReadData(const Json& j, const std::string& ptr, const TensorType& type, Node* node);
  absl::Status ReadElement(const Json& j, const std::string& ptr, DType dtype, uint8_t* dst) const;
  absl::Status LoadSidecar(const Json& j, const std::string& ptr);
  absl::StatusOr<ValueRef> ResolveRef(const Json& j, const std::string& ptr) const;

  std::string_view text_;
  std::string_view file_;
  std::string_view sidecar_dir_;
  uint64_t max_file_bytes_;

  std::vector<Node> nodes_;
  absl::flat_hash_map<std::string_view, NodeId> by_name_;  // views into nodes_
  std::optional<std::string> sidecar_;
  absl::flat_hash_map<std::pair<int64_t, int64_t>, ConstTensorPtr> sidecar_tensors_;
};

}  // namespace egret::graph_json_internal

#endif  // EGRET_GRAPH_GRAPH_JSON_INTERNAL_H_
