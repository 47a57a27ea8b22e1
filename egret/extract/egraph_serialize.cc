#include "egret/extract/egraph_serialize.h"

#include <charconv>
#include <cmath>
#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "egret/extract/class_error.h"
#include "egret/support/diagnostic.h"
#include "egret/support/file_io.h"

namespace egret::extract {
namespace {

constexpr int kMaxDepth = 256;

struct RawNode {
  std::string_view id;
  std::string_view op;
  std::string_view eclass;
  double cost = 1.0;
  uint32_t child_begin = 0, child_end = 0;
  size_t offset = 0;       // of the node's key
  size_t cost_offset = 0;  // of its cost, when given
};

// A small JSON scanner specialised to the egraph-serialize schema. Strings
// without escapes are returned as views into the input; decoded strings live
// in `arena_`. Every error records the byte offset and the JSON path.
class Parser {
 public:
  Parser(std::string_view text, std::string_view file, EgraphSourceMap* where)
      : text_(text), file_(file), where_(where) {}

  absl::StatusOr<ExtractionProblem> Run();

 private:
  // --- errors and paths ---
  absl::Status Error(size_t offset, std::string_view what) const {
    std::string path = "$";
    for (const std::string& p : path_) path += p;
    return BadInput(LocationOf(file_, text_, offset), absl::StrCat(path, ": ", std::string(what)));
  }
  // `s` in double quotes, C-escaped: a key or id may hold '\n' or '"', and
  // an error stays one line.
  static std::string Quoted(std::string_view s) {
    return absl::StrCat("\"", absl::CEscape(absl::string_view(s.data(), s.size())), "\"");
  }
  void PushKey(std::string_view key) {
    path_.push_back(IsIdent(key) ? absl::StrCat(".", std::string(key))
                                 : absl::StrCat("[", Quoted(key), "]"));
  }
  void PushIndex(size_t i) { path_.push_back(absl::StrCat("[", i, "]")); }
  void Pop() { path_.pop_back(); }
  static bool IsIdent(std::string_view s) {
    if (s.empty()) return false;
    for (char c : s) {
      if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_')) return false;
    }
    return true;
  }

  // --- lexing ---
  void SkipWs() {
    while (pos_ < text_.size()) {
      char c = text_[pos_];
      if (c != ' ' && c != '\n' && c != '\r' && c != '\t') break;
      ++pos_;
    }
  }
  char Peek() {
    SkipWs();
    return pos_ < text_.size() ? text_[pos_] : '\0';
  }
  absl::Status Expect(char c, std::string_view what) {
    if (Peek() != c) {
      return Error(pos_, pos_ >= text_.size()
                             ? absl::StrCat("unexpected end of input, expected ", std::string(what))
                             : absl::StrCat("expected ", std::string(what)));
    }
    ++pos_;
    return absl::OkStatus();
  }
  absl::Status ParseString(std::string_view* out);
  absl::Status ParseNumber(double* out);
  absl::Status SkipValue(int depth);
  // Iterates an object's members: calls on_member(key, key_offset) with pos_ at the value.
  template <typename F>
  absl::Status ForEachMember(std::string_view what, F&& on_member);
  template <typename F>
  absl::Status ForEachElement(std::string_view what, F&& on_element);

  // --- schema ---
  absl::Status ParseNodes();
  absl::Status ParseNode(RawNode* node);
  absl::Status ParseRoots();

  std::string_view text_;
  std::string_view file_;
  EgraphSourceMap* where_;
  size_t pos_ = 0;
  std::vector<std::string> path_;
  std::deque<std::string> arena_;

  std::vector<RawNode> nodes_;
  std::vector<std::string_view> children_;
  std::vector<size_t> child_offsets_;
  std::vector<std::string_view> roots_;
  std::vector<size_t> root_offsets_;
  bool seen_nodes_ = false, seen_roots_ = false;
};

void AppendUtf8(uint32_t cp, std::string* out) {
  if (cp < 0x80) {
    out->push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out->push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out->push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out->push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

absl::Status Parser::ParseString(std::string_view* out) {
  if (Peek() != '"') return Error(pos_, "expected a string");
  const size_t start = ++pos_;
  size_t i = start;
  while (i < text_.size() && text_[i] != '"' && text_[i] != '\\') {
    if (static_cast<unsigned char>(text_[i]) < 0x20) return Error(i, "control character in string");
    ++i;
  }
  if (i >= text_.size()) return Error(start - 1, "unterminated string");
  if (text_[i] == '"') {
    *out = text_.substr(start, i - start);
    pos_ = i + 1;
    return absl::OkStatus();
  }
  std::string s(text_.substr(start, i - start));
  while (true) {
    if (i >= text_.size()) return Error(start - 1, "unterminated string");
    char c = text_[i];
    if (c == '"') break;
    if (static_cast<unsigned char>(c) < 0x20) return Error(i, "control character in string");
    if (c != '\\') {
      s.push_back(c);
      ++i;
      continue;
    }
    if (i + 1 >= text_.size()) return Error(start - 1, "unterminated string");
    char e = text_[i + 1];
    i += 2;
    switch (e) {
      case '"':
        s.push_back('"');
        break;
      case '\\':
        s.push_back('\\');
        break;
      case '/':
        s.push_back('/');
        break;
      case 'b':
        s.push_back('\b');
        break;
      case 'f':
        s.push_back('\f');
        break;
      case 'n':
        s.push_back('\n');
        break;
      case 'r':
        s.push_back('\r');
        break;
      case 't':
        s.push_back('\t');
        break;
      case 'u': {
        auto hex4 = [&](size_t at, uint32_t* v) {
          if (at + 4 > text_.size()) return false;
          *v = 0;
          for (size_t k = at; k < at + 4; ++k) {
            char h = text_[k];
            uint32_t d = (h >= '0' && h <= '9')   ? h - '0'
                         : (h >= 'a' && h <= 'f') ? h - 'a' + 10
                         : (h >= 'A' && h <= 'F') ? h - 'A' + 10
                                                  : 16;
            if (d == 16) return false;
            *v = *v * 16 + d;
          }
          return true;
        };
        uint32_t cp;
        if (!hex4(i, &cp)) return Error(i - 2, "bad \\u escape");
        i += 4;
        if (cp >= 0xD800 && cp < 0xDC00) {
          uint32_t lo;
          if (i + 1 < text_.size() && text_[i] == '\\' && text_[i + 1] == 'u' && hex4(i + 2, &lo) &&
              lo >= 0xDC00 && lo < 0xE000) {
            cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
            i += 6;
          } else {
            return Error(i - 6, "unpaired surrogate in \\u escape");
          }
        }
        AppendUtf8(cp, &s);
        break;
      }
      default:
        return Error(i - 2, "bad escape in string");
    }
  }
  pos_ = i + 1;
  arena_.push_back(std::move(s));
  *out = arena_.back();
  return absl::OkStatus();
}

absl::Status Parser::ParseNumber(double* out) {
  SkipWs();
  const size_t start = pos_;
  size_t i = pos_;
  auto digits = [&] {
    size_t b = i;
    while (i < text_.size() && text_[i] >= '0' && text_[i] <= '9') ++i;
    return i > b;
  };
  if (i < text_.size() && text_[i] == '-') ++i;
  if (!digits()) return Error(start, "expected a number");
  if (i < text_.size() && text_[i] == '.') {
    ++i;
    if (!digits()) return Error(start, "malformed number");
  }
  if (i < text_.size() && (text_[i] == 'e' || text_[i] == 'E')) {
    ++i;
    if (i < text_.size() && (text_[i] == '+' || text_[i] == '-')) ++i;
    if (!digits()) return Error(start, "malformed number");
  }
  auto [ptr, ec] = std::from_chars(text_.data() + start, text_.data() + i, *out);
  if (ec != std::errc() || ptr != text_.data() + i) return Error(start, "number out of range");
  pos_ = i;
  return absl::OkStatus();
}

absl::Status Parser::SkipValue(int depth) {
  if (depth > kMaxDepth) return Error(pos_, "nesting too deep");
  char c = Peek();
  if (c == '"') {
    std::string_view s;
    return ParseString(&s);
  }
  if (c == '{') {
    return ForEachMember("an object",
                         [&](std::string_view, size_t) { return SkipValue(depth + 1); });
  }
  if (c == '[') {
    return ForEachElement("an array", [&](size_t) { return SkipValue(depth + 1); });
  }
  if (c == '-' || (c >= '0' && c <= '9')) {
    double d;
    return ParseNumber(&d);
  }
  for (std::string_view word : {"true", "false", "null"}) {
    if (text_.substr(pos_, word.size()) == word) {
      pos_ += word.size();
      return absl::OkStatus();
    }
  }
  return Error(pos_, pos_ >= text_.size() ? "unexpected end of input" : "expected a JSON value");
}

template <typename F>
absl::Status Parser::ForEachMember(std::string_view what, F&& on_member) {
  if (Peek() != '{') return Error(pos_, absl::StrCat("expected ", std::string(what)));
  ++pos_;
  if (Peek() == '}') {
    ++pos_;
    return absl::OkStatus();
  }
  while (true) {
    SkipWs();
    const size_t key_offset = pos_;
    std::string_view key;
    if (absl::Status s = ParseString(&key); !s.ok()) return s;
    if (absl::Status s = Expect(':', "':'"); !s.ok()) return s;
    PushKey(key);
    absl::Status s = on_member(key, key_offset);
    Pop();
    if (!s.ok()) return s;
    char c = Peek();
    if (c == ',') {
      ++pos_;
      continue;
    }
    if (c == '}') {
      ++pos_;
      return absl::OkStatus();
    }
    return Error(pos_, pos_ >= text_.size() ? "unexpected end of input, expected ',' or '}'"
                                            : "expected ',' or '}'");
  }
}

template <typename F>
absl::Status Parser::ForEachElement(std::string_view what, F&& on_element) {
  if (Peek() != '[') return Error(pos_, absl::StrCat("expected ", std::string(what)));
  ++pos_;
  if (Peek() == ']') {
    ++pos_;
    return absl::OkStatus();
  }
  for (size_t index = 0;; ++index) {
    PushIndex(index);
    absl::Status s = on_element(index);
    Pop();
    if (!s.ok()) return s;
    char c = Peek();
    if (c == ',') {
      ++pos_;
      continue;
    }
    if (c == ']') {
      ++pos_;
      return absl::OkStatus();
    }
    return Error(pos_, pos_ >= text_.size() ? "unexpected end of input, expected ',' or ']'"
                                            : "expected ',' or ']'");
  }
}

absl::Status Parser::ParseNode(RawNode* node) {
  const size_t obj_offset = (SkipWs(), pos_);
  bool has_op = false, has_class = false;
  absl::Status s = ForEachMember("a node object", [&](std::string_view key, size_t) {
    if (key == "op") {
      has_op = true;
      return ParseString(&node->op);
    }
    if (key == "eclass") {
      has_class = true;
      return ParseString(&node->eclass);
    }
    if (key == "cost") {
      SkipWs();
      size_t at = pos_;
      node->cost_offset = at;
      if (absl::Status st = ParseNumber(&node->cost); !st.ok()) return st;
      if (!std::isfinite(node->cost)) return Error(at, "cost is not finite");
      return absl::OkStatus();
    }
    if (key == "children") {
      node->child_begin = static_cast<uint32_t>(children_.size());
      absl::Status st = ForEachElement("an array of node ids", [&](size_t) {
        SkipWs();
        child_offsets_.push_back(pos_);
        children_.emplace_back();
        return ParseString(&children_.back());
      });
      node->child_end = static_cast<uint32_t>(children_.size());
      return st;
    }
    return SkipValue(1);
  });
  if (!s.ok()) return s;
  if (!has_op) return Error(obj_offset, "node has no \"op\"");
  if (!has_class) return Error(obj_offset, "node has no \"eclass\"");
  return absl::OkStatus();
}

absl::Status Parser::ParseNodes() {
  return ForEachMember("an object of nodes", [&](std::string_view key, size_t key_offset) {
    RawNode node;
    node.id = key;
    node.offset = key_offset;
    if (absl::Status s = ParseNode(&node); !s.ok()) return s;
    nodes_.push_back(node);
    return absl::OkStatus();
  });
}

absl::Status Parser::ParseRoots() {
  return ForEachElement("an array of class ids", [&](size_t) {
    SkipWs();
    root_offsets_.push_back(pos_);
    roots_.emplace_back();
    return ParseString(&roots_.back());
  });
}

absl::StatusOr<ExtractionProblem> Parser::Run() {
  SkipWs();
  const size_t top = pos_;
  absl::Status s = ForEachMember("a JSON object", [&](std::string_view key, size_t key_offset) {
    if (key == "nodes") {
      if (seen_nodes_) return Error(key_offset, "duplicate key \"nodes\"");
      seen_nodes_ = true;
      return ParseNodes();
    }
    if (key == "root_eclasses") {
      if (seen_roots_) return Error(key_offset, "duplicate key \"root_eclasses\"");
      seen_roots_ = true;
      return ParseRoots();
    }
    return SkipValue(1);
  });
  if (!s.ok()) return s;
  if (Peek() != '\0' || pos_ < text_.size())
    return Error(pos_, "trailing characters after the JSON value");
  if (!seen_nodes_) return Error(top, "no \"nodes\" object");
  if (!seen_roots_) return Error(top, "no \"root_eclasses\" array");

  // Resolve ids: node id -> raw index, class id -> class index (first appearance).
  absl::flat_hash_map<std::string_view, uint32_t> node_index;
  absl::flat_hash_map<std::string_view, ClassId> class_index;
  node_index.reserve(nodes_.size());
  ExtractionProblemBuilder builder;
  std::vector<ClassId> node_cls(nodes_.size());
  std::vector<size_t> class_offsets;  // of each class's first node, increasing
  for (uint32_t i = 0; i < nodes_.size(); ++i) {
    const RawNode& n = nodes_[i];
    if (!node_index.emplace(n.id, i).second) {
      path_ = {".nodes"};
      return Error(n.offset, absl::StrCat("duplicate node id ", Quoted(n.id)));
    }
    auto [it, inserted] = class_index.emplace(n.eclass, 0);
    if (inserted) {
      it->second = builder.AddClass(std::string(n.eclass));
      class_offsets.push_back(n.offset);
    }
    node_cls[i] = it->second;
  }
  // Every total an extractor computes (a DAG cost, a bound) is at most the
  // sum of all costs' magnitudes; when that sum overflows, no total can be
  // trusted, so the file is rejected at the cost that makes it overflow.
  double magnitude = 0;
  for (const RawNode& n : nodes_) {
    magnitude += std::fabs(n.cost);
    if (!std::isfinite(magnitude)) {
      path_ = {".nodes"};
      PushKey(n.id);
      path_.push_back(".cost");
      return Error(n.cost_offset,
                   "the costs add up to more than the largest double; every total would overflow");
    }
  }
  std::vector<ClassId> kids;
  for (uint32_t i = 0; i < nodes_.size(); ++i) {
    const RawNode& n = nodes_[i];
    kids.clear();
    for (uint32_t k = n.child_begin; k < n.child_end; ++k) {
      auto it = node_index.find(children_[k]);
      if (it == node_index.end()) {
        path_ = {".nodes"};
        PushKey(n.id);
        path_.push_back(".children");
        PushIndex(k - n.child_begin);
        return Error(child_offsets_[k],
                     absl::StrCat("child ", Quoted(children_[k]), " names no node"));
      }
      kids.push_back(node_cls[it->second]);
    }
    builder.AddNode(node_cls[i], std::string(n.op), n.cost, kids, std::string(n.id));
  }
  for (size_t r = 0; r < roots_.size(); ++r) {
    auto it = class_index.find(roots_[r]);
    if (it == class_index.end()) {
      path_ = {".root_eclasses"};
      PushIndex(r);
      return Error(root_offsets_[r],
                   absl::StrCat("root class ", Quoted(roots_[r]), " has no nodes"));
    }
    builder.AddRoot(it->second);
  }
  if (roots_.empty()) {
    path_ = {".root_eclasses"};
    return Error(top, "no root classes");
  }
  absl::StatusOr<ExtractionProblem> p = std::move(builder).Build();
  if (!p.ok())
    return BadInput(SourceLocation{std::string(file_)}, std::string(p.status().message()));
  if (where_ != nullptr) {
    // One pass over the text: the offsets increase with the class id.
    where_->class_location.clear();
    where_->class_location.reserve(class_offsets.size());
    size_t at = 0;
    int line = 1, col = 1;
    for (size_t offset : class_offsets) {
      for (; at < offset && at < text_.size(); ++at) {
        if (text_[at] == '\n') {
          ++line;
          col = 1;
        } else {
          ++col;
        }
      }
      where_->class_location.push_back(SourceLocation{std::string(file_), line, col});
    }
  }
  return p;
}

}  // namespace

absl::Status EgraphSourceMap::Locate(const absl::Status& status, std::string_view file) const {
  if (status.ok()) return status;
  SourceLocation loc{std::string(file)};
  if (std::optional<ClassId> c = ErrorClass(status); c && *c < class_location.size()) {
    loc = class_location[*c];
  }
  return absl::Status(status.code(),
                      FormatDiagnostic(loc, Severity::kError, std::string(status.message())));
}

absl::StatusOr<ExtractionProblem> ParseEgraphSerialize(std::string_view text, std::string_view file,
                                                       EgraphSourceMap* where) {
  Parser parser(text, file, where);
  return parser.Run();
}

absl::StatusOr<ExtractionProblem> ReadEgraphSerializeFile(const std::string& path,
                                                          EgraphSourceMap* where) {
  absl::StatusOr<std::string> text = ReadFile(path);
  if (!text.ok()) return text.status();
  return ParseEgraphSerialize(*text, path, where);
}

}  // namespace egret::extract
