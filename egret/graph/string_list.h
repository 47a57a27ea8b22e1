// A list of strings kept in one string attribute (AttrValue has no list of
// strings): each element as its length in decimal, ':', then its bytes, so
// that any bytes (commas included) survive. The importer keeps an ONNX
// STRINGS attribute `name` this way as "onnx.strings.<name>" (beside a
// comma-joined summary under `name`), which kernels and the ONNX writer read.
#ifndef EGRET_GRAPH_STRING_LIST_H_
#define EGRET_GRAPH_STRING_LIST_H_

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace egret {

inline constexpr std::string_view kStringListAttrPrefix = "onnx.strings.";

inline std::string EncodeStringList(const std::vector<std::string>& list) {
  std::string out;
  for (const std::string& s : list) {
    out += std::to_string(s.size());
    out += ':';
    out += s;
  }
  return out;
}

// The list EncodeStringList made, or nullopt for text it cannot have made.
inline std::optional<std::vector<std::string>> DecodeStringList(std::string_view text) {
  std::vector<std::string> out;
  while (!text.empty()) {
    size_t colon = text.find(':');
    if (colon == std::string_view::npos || colon == 0 || colon > 18) return std::nullopt;
    size_t len = 0;
    for (size_t i = 0; i < colon; ++i) {
      if (text[i] < '0' || text[i] > '9') return std::nullopt;
      len = len * 10 + static_cast<size_t>(text[i] - '0');
    }
    text.remove_prefix(colon + 1);
    if (len > text.size()) return std::nullopt;
    out.emplace_back(text.substr(0, len));
    text.remove_prefix(len);
  }
  return out;
}

}  // namespace egret

#endif  // EGRET_GRAPH_STRING_LIST_H_
