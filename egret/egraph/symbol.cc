#include "egret/egraph/symbol.h"

#include <deque>
#include <mutex>
#include <string>

#include "absl/container/flat_hash_map.h"

namespace egret {
namespace {

// Names live in a deque so that string_views into them stay valid as the
// table grows; id 0 is the empty string.
struct SymbolTable {
  std::mutex mu;
  std::deque<std::string> names{std::string()};
  absl::flat_hash_map<std::string_view, uint32_t> ids{{std::string_view(), 0}};
};

SymbolTable& Table() {
  static SymbolTable* table = new SymbolTable();
  return *table;
}

}  // namespace

Symbol Symbol::Intern(std::string_view name) {
  SymbolTable& t = Table();
  std::lock_guard<std::mutex> lock(t.mu);
  auto it = t.ids.find(name);
  if (it != t.ids.end()) return Symbol(it->second);
  uint32_t id = static_cast<uint32_t>(t.names.size());
  t.names.emplace_back(name);
  t.ids.emplace(std::string_view(t.names.back()), id);
  return Symbol(id);
}

std::string_view Symbol::str() const {
  SymbolTable& t = Table();
  std::lock_guard<std::mutex> lock(t.mu);
  return t.names[id_];
}

}  // namespace egret
