// Interned op strings. Every op string used in an e-graph is interned once into
// a process-wide table, so that e-nodes store and compare a 32-bit Symbol.
#ifndef EGRET_EGRAPH_SYMBOL_H_
#define EGRET_EGRAPH_SYMBOL_H_

#include <cstdint>
#include <string_view>

namespace egret {

class Symbol {
 public:
  // The symbol of the empty string.
  constexpr Symbol() = default;
  // Interns `name` (thread-safe). Equal strings give equal symbols.
  static Symbol Intern(std::string_view name);
  // The symbol with this id; `id` must come from id() of an interned symbol.
  static constexpr Symbol FromId(uint32_t id) { return Symbol(id); }

  uint32_t id() const { return id_; }
  // The interned text; valid for the life of the process (thread-safe).
  std::string_view str() const;
  // A volatile op (its string starts with '*', e.g. "*Input") is never
  // hash-consed with another instance.
  bool is_volatile() const {
    std::string_view s = str();
    return !s.empty() && s.front() == '*';
  }

  friend bool operator==(Symbol a, Symbol b) { return a.id_ == b.id_; }
  friend bool operator!=(Symbol a, Symbol b) { return a.id_ != b.id_; }
  friend bool operator<(Symbol a, Symbol b) { return a.id_ < b.id_; }
  template <typename H>
  friend H AbslHashValue(H h, Symbol s) {
    return H::combine(std::move(h), s.id_);
  }

 private:
  explicit constexpr Symbol(uint32_t id) : id_(id) {}
  uint32_t id_ = 0;
};

}  // namespace egret

#endif  // EGRET_EGRAPH_SYMBOL_H_
