// Scans of graph JSON as raw text, and the helpers every message of the
// reader uses. The scans run before or beside nlohmann's parse: the nesting
// depth is bounded before it builds anything, a duplicate key (which it keeps
// silently) and an overflowing number literal (which it reports without a
// position) are found in the text, and an error at a JSON pointer is located
// at a line and column. The helpers build JSON pointers, quote user bytes on
// one line, and hash sidecars.
#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "egret/graph/graph_json_internal.h"

namespace egret::graph_json_internal {
namespace {

// ---------------------------------------------------------------------------
// Locating a JSON pointer in the text (used on the error path only).

size_t SkipWs(std::string_view t, size_t p) {
  while (p < t.size() && (t[p] == ' ' || t[p] == '\t' || t[p] == '\n' || t[p] == '\r')) ++p;
  return p;
}

// `p` is at an opening quote; returns the position after the closing one.
size_t SkipString(std::string_view t, size_t p) {
  ++p;
  while (p < t.size() && t[p] != '"') p += t[p] == '\\' ? 2 : 1;
  return std::min(p + 1, t.size());
}

// `p` is at the first character of a value; returns the position after it.
size_t SkipValue(std::string_view t, size_t p) {
  if (p >= t.size()) return p;
  if (t[p] == '"') return SkipString(t, p);
  if (t[p] == '{' || t[p] == '[') {
    int depth = 0;
    while (p < t.size()) {
      char c = t[p];
      if (c == '"') {
        p = SkipString(t, p);
        continue;
      }
      if (c == '{' || c == '[') ++depth;
      if (c == '}' || c == ']') --depth;
      ++p;
      if (depth == 0) break;
    }
    return p;
  }
  while (p < t.size() && std::string_view(",]} \t\r\n").find(t[p]) == std::string_view::npos) ++p;
  return p;
}

std::vector<std::string> PointerTokens(std::string_view pointer) {
  std::vector<std::string> tokens;
  if (pointer.empty()) return tokens;
  size_t p = 1;
  while (true) {
    size_t slash = pointer.find('/', p);
    std::string_view raw = pointer.substr(p, slash == std::string_view::npos ? slash : slash - p);
    std::string tok;
    for (size_t i = 0; i < raw.size(); ++i) {
      if (raw[i] == '~' && i + 1 < raw.size()) {
        tok += raw[i + 1] == '1' ? '/' : '~';
        ++i;
      } else {
        tok += raw[i];
      }
    }
    tokens.push_back(std::move(tok));
    if (slash == std::string_view::npos) break;
    p = slash + 1;
  }
  return tokens;
}

}  // namespace

// Byte offset of the value at `pointer` in the (valid JSON) `text`, or of the
// deepest enclosing value found.
size_t LocateValue(std::string_view text, std::string_view pointer) {
  size_t pos = SkipWs(text, 0);
  for (const std::string& tok : PointerTokens(pointer)) {
    if (pos >= text.size()) return pos;
    const size_t container = pos;
    bool found = false;
    if (text[pos] == '{') {
      pos = SkipWs(text, pos + 1);
      while (pos < text.size() && text[pos] == '"') {
        size_t key_end = SkipString(text, pos);
        std::string key;
        try {
          key = Json::parse(text.substr(pos, key_end - pos)).get<std::string>();
        } catch (const Json::exception&) {
        }
        pos = SkipWs(text, key_end);
        if (pos < text.size() && text[pos] == ':') pos = SkipWs(text, pos + 1);
        if (key == tok) {
          found = true;
          break;
        }
        pos = SkipWs(text, SkipValue(text, pos));
        if (pos < text.size() && text[pos] == ',') pos = SkipWs(text, pos + 1);
      }
    } else if (text[pos] == '[') {
      size_t index = 0;
      auto [ptr, ec] = std::from_chars(tok.data(), tok.data() + tok.size(), index);
      if (ec != std::errc() || ptr != tok.data() + tok.size()) return container;
      pos = SkipWs(text, pos + 1);
      for (size_t i = 0; pos < text.size() && text[pos] != ']'; ++i) {
        if (i == index) {
          found = true;
          break;
        }
        pos = SkipWs(text, SkipValue(text, pos));
        if (pos < text.size() && text[pos] == ',') pos = SkipWs(text, pos + 1);
      }
    }
    if (!found) return container;
  }
  return pos;
}

// In valid JSON `text`, the offset of the first key that repeats a key of
// the same object, and that key (decoded); nullopt when there is none.
std::optional<std::pair<size_t, std::string>> FindDuplicateKey(std::string_view text) {
  std::vector<absl::flat_hash_set<std::string>> objects;  // one per open object
  std::vector<bool> is_object;                            // per open container
  bool expect_key = false;
  for (size_t p = 0; p < text.size(); ++p) {
    switch (text[p]) {
      case '{':
        is_object.push_back(true);
        objects.emplace_back();
        expect_key = true;
        break;
      case '[':
        is_object.push_back(false);
        break;
      case '}':
      case ']':
        if (!is_object.empty()) {
          if (is_object.back()) objects.pop_back();
          is_object.pop_back();
        }
        expect_key = false;
        break;
      case ',':
        expect_key = !is_object.empty() && is_object.back();
        break;
      case '"': {
        const size_t end = SkipString(text, p);
        if (expect_key && !objects.empty()) {
          std::string_view raw = text.substr(p + 1, end - p - 2);
          std::string key(raw);
          if (raw.find('\\') != std::string_view::npos) {
            try {
              key = Json::parse(text.substr(p, end - p)).get<std::string>();
            } catch (const Json::exception&) {
            }
          }
          if (!objects.back().insert(key).second) return std::make_pair(p, key);
          expect_key = false;
        }
        p = end - 1;
        break;
      }
      default:
        break;
    }
  }
  return std::nullopt;
}

// In `text` (JSON that nlohmann refused with "number overflow"), the offset
// and spelling of the first number literal outside a string that does not fit
// a double (1e400); nullopt when there is none.
std::optional<std::pair<size_t, std::string>> FindOverflowingNumber(std::string_view text) {
  for (size_t p = 0; p < text.size(); ++p) {
    const char c = text[p];
    if (c == '"') {
      p = SkipString(text, p) - 1;
      continue;
    }
    if (c != '-' && !(c >= '0' && c <= '9')) continue;
    size_t end = p + 1;
    while (end < text.size() &&
           std::string_view("0123456789.eE+-").find(text[end]) != std::string_view::npos) {
      ++end;
    }
    std::string token(text.substr(p, end - p));
    if (std::isinf(std::strtod(token.c_str(), nullptr))) return std::make_pair(p, token);
    p = end - 1;
  }
  return std::nullopt;
}

std::optional<size_t> FindTooDeep(std::string_view text, int max_depth) {
  int depth = 0;
  for (size_t p = 0; p < text.size(); ++p) {
    unsigned char c = static_cast<unsigned char>(text[p]);
    switch (c) {
      case '"':
        for (++p; p < text.size() && text[p] != '"'; ++p) {
          if (static_cast<unsigned char>(text[p]) < 0x20) return std::nullopt;
          if (text[p] == '\\') ++p;
        }
        break;
      case '[':
      case '{':
        if (++depth > max_depth) return p;
        break;
      case ']':
      case '}':
        --depth;
        break;
      default:
        if (std::string_view(" \t\r\n,:-+.0123456789eEtruefalsn").find(static_cast<char>(c)) ==
            std::string_view::npos) {
          return std::nullopt;
        }
    }
  }
  return std::nullopt;
}

// Printable, single-line form of a message that may quote user bytes.
std::string OneLine(std::string_view s) {
  std::string out;
  for (unsigned char c : s) {
    if (c >= 0x20 && c < 0x7f) {
      out += static_cast<char>(c);
    } else {
      out += absl::StrFormat("\\x%02x", c);
    }
  }
  return out;
}

std::string Quote(std::string_view s) { return absl::StrCat("'", OneLine(s), "'"); }

std::string Child(const std::string& ptr, std::string_view key) {
  std::string out = ptr + "/";
  for (char c : key) {
    if (c == '~') {
      out += "~0";
    } else if (c == '/') {
      out += "~1";
    } else {
      out += c;
    }
  }
  return out;
}

std::string Child(const std::string& ptr, size_t index) { return absl::StrCat(ptr, "/", index); }

std::string KindOf(const Json& j) {
  switch (j.type()) {
    case Json::value_t::object:
      return "an object";
    case Json::value_t::array:
      return "an array";
    case Json::value_t::string:
      return "a string";
    case Json::value_t::boolean:
      return "true/false";
    case Json::value_t::number_integer:
    case Json::value_t::number_unsigned:
      return "an integer";
    case Json::value_t::number_float:
      return "a number";
    case Json::value_t::null:
      return "null";
    default:
      return "an unsupported value";
  }
}

uint64_t Fnv1a64(std::string_view data) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (unsigned char c : data) {
    h ^= c;
    h *= 0x100000001b3ull;
  }
  return h;
}

std::string Hex64(uint64_t v) { return absl::StrFormat("%016x", v); }

}  // namespace egret::graph_json_internal
