// A table of {enum value, name} pairs: the one place an enum's spellings are
// written, from which both directions of the mapping are derived.
//
//   constexpr auto kModeNames = MakeEnumNames<Mode>({
//       {Mode::kKeep, "keep"},
//       {Mode::kReseed, "reseed"},
//   });
//   kModeNames.Name(Mode::kKeep)     -> "keep"
//   kModeNames.Parse("reseed")       -> Mode::kReseed; nullopt for any other name
//   kModeNames.Values()              -> every value, in table order
//
// Lookups are linear: the tables are a handful of entries. A value may appear
// once; Name() returns the first entry's name, Parse() the first entry's value.
#ifndef EGRET_SUPPORT_ENUM_NAMES_H_
#define EGRET_SUPPORT_ENUM_NAMES_H_

#include <array>
#include <cstddef>
#include <optional>
#include <string_view>
#include <vector>

namespace egret {

template <typename E>
struct EnumName {
  E value;
  std::string_view name;
};

template <typename E, size_t N>
class EnumNames {
 public:
  constexpr explicit EnumNames(const std::array<EnumName<E>, N>& entries) : entries_(entries) {}

  // The name of `value`, or `fallback` when the table has no entry for it (an
  // out-of-range value cast to E).
  constexpr std::string_view Name(E value, std::string_view fallback = "?") const {
    for (const EnumName<E>& e : entries_) {
      if (e.value == value) return e.name;
    }
    return fallback;
  }

  // The value named exactly `name` (case-sensitive), or nullopt.
  constexpr std::optional<E> Parse(std::string_view name) const {
    for (const EnumName<E>& e : entries_) {
      if (e.name == name) return e.value;
    }
    return std::nullopt;
  }

  // Every value, in table order.
  std::vector<E> Values() const {
    std::vector<E> values;
    values.reserve(N);
    for (const EnumName<E>& e : entries_) values.push_back(e.value);
    return values;
  }

  constexpr auto begin() const { return entries_.begin(); }
  constexpr auto end() const { return entries_.end(); }
  constexpr size_t size() const { return N; }

 private:
  std::array<EnumName<E>, N> entries_;
};

// Builds an EnumNames from a braced list, counting the entries:
// MakeEnumNames<Mode>({{Mode::kKeep, "keep"}, ...}).
template <typename E, size_t N>
constexpr EnumNames<E, N> MakeEnumNames(const EnumName<E> (&entries)[N]) {
  std::array<EnumName<E>, N> a{};
  for (size_t i = 0; i < N; ++i) a[i] = entries[i];
  return EnumNames<E, N>(a);
}

}  // namespace egret

#endif  // EGRET_SUPPORT_ENUM_NAMES_H_
