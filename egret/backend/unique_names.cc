#include "egret/backend/unique_names.h"

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <queue>

#include "absl/container/flat_hash_set.h"
#include "absl/hash/hash.h"
#include "absl/strings/str_cat.h"
#include "egret/egraph/prefetch.h"

namespace egret {
namespace {

// How many names ahead a lookup is prefetched: enough to cover a miss to
// memory at a few nanoseconds of work per name.
constexpr size_t kAhead = 8;

size_t HashName(std::string_view name) { return absl::Hash<std::string_view>{}(name); }

// The names seen so far, by entry: the text, its hash, and the position (in
// `wanted`) of the name it is. The set holds the entries of the names taken.
class Table {
 public:
  explicit Table(size_t n) : set_(0, Hash{this}, Eq{this}) {
    text_.reserve(n);
    hash_.reserve(n);
    owner_.reserve(n);
    set_.reserve(n);
  }
  Table(const Table&) = delete;  // set_ points here
  Table& operator=(const Table&) = delete;

  uint32_t Append(std::string_view text, size_t hash, uint32_t owner) {
    text_.push_back(text);
    hash_.push_back(hash);
    owner_.push_back(owner);
    return static_cast<uint32_t>(text_.size() - 1);
  }
  void PopBack() {
    text_.pop_back();
    hash_.pop_back();
    owner_.pop_back();
  }
  void Prefetch(uint32_t e) const { PrefetchLookup(set_, e); }
  // Takes entry e's name; else the entry that holds it.
  std::pair<bool, uint32_t> Take(uint32_t e) {
    auto [it, inserted] = set_.insert(e);
    return {inserted, *it};
  }
  // Entry e takes the name that entry `holder` holds.
  void Replace(uint32_t holder, uint32_t e) {
    set_.erase(holder);
    set_.insert(e);
  }
  uint32_t owner(uint32_t e) const { return owner_[e]; }

 private:
  struct Hash {
    const Table* t;
    size_t operator()(uint32_t e) const { return t->hash_[e]; }
  };
  struct Eq {
    const Table* t;
    bool operator()(uint32_t a, uint32_t b) const {
      return t->hash_[a] == t->hash_[b] && t->text_[a] == t->text_[b];
    }
  };
  std::vector<std::string_view> text_;
  std::vector<size_t> hash_;
  std::vector<uint32_t> owner_;
  absl::flat_hash_set<uint32_t, Hash, Eq> set_;
};

// Writes the fresh name number k for `want` into `out`.
void FreshName(std::string_view want, int k, std::string& out) {
  out.assign(want.empty() ? std::string_view("n") : want);
  if (!want.empty()) out += '_';
  absl::StrAppend(&out, k);
}

}  // namespace

std::vector<std::string> UniqueNames(absl::Span<const std::string_view> wanted) {
  const size_t n = wanted.size();
  Table table(n + n / 8 + 16);
  // Entry i is wanted[i]: the first of equal names takes it.
  for (size_t i = 0; i < n; ++i) {
    table.Append(wanted[i], HashName(wanted[i]), static_cast<uint32_t>(i));
  }
  std::vector<uint32_t> fresh;  // the positions that need a fresh name, ascending
  for (size_t i = 0; i < n; ++i) {
    if (i + kAhead < n && !wanted[i + kAhead].empty()) {
      table.Prefetch(static_cast<uint32_t>(i + kAhead));
    }
    if (wanted[i].empty() || !table.Take(static_cast<uint32_t>(i)).first) {
      fresh.push_back(static_cast<uint32_t>(i));
    }
  }

  // Fresh names in order of position, which is the order of their numbers.
  // A wanted name that a fresh name takes belongs to a later position (an
  // earlier one makes the fresh name try the next number): that position
  // needs a fresh name too, in its turn (`later`).
  std::vector<std::string> out(n);
  std::priority_queue<uint32_t, std::vector<uint32_t>, std::greater<>> later;
  // The lookups of the names ahead in `fresh` are prefetched with the
  // numbers they will get if every position between takes one.
  struct Guess {
    int k = -1;
    size_t hash = 0;
  };
  std::array<Guess, kAhead> guess;
  std::string scratch;
  auto guess_at = [&](size_t at, int number) {
    if (at >= fresh.size()) return;
    Guess& g = guess[at % kAhead];
    g.k = number;
    FreshName(wanted[fresh[at]], number, scratch);
    g.hash = HashName(scratch);
    table.Prefetch(table.Append(scratch, g.hash, fresh[at]));
    table.PopBack();
  };
  for (size_t t = 0; t < kAhead; ++t) guess_at(t, static_cast<int>(t));
  int k = 0;
  size_t t = 0;
  while (t < fresh.size() || !later.empty()) {
    uint32_t pos;
    bool in_order = false;
    if (!later.empty() && (t >= fresh.size() || later.top() < fresh[t])) {
      pos = later.top();
      later.pop();
    } else {
      pos = fresh[t];
      in_order = true;
    }
    for (;;) {
      FreshName(wanted[pos], k, out[pos]);
      const Guess& g = guess[t % kAhead];
      const size_t hash = in_order && g.k == k ? g.hash : HashName(out[pos]);
      ++k;
      const uint32_t e = table.Append(out[pos], hash, pos);
      const auto [taken, holder] = table.Take(e);
      if (taken) break;
      if (table.owner(holder) > pos) {
        later.push(table.owner(holder));
        table.Replace(holder, e);
        break;
      }
      table.PopBack();
    }
    if (in_order) {
      guess_at(t + kAhead, k + static_cast<int>(kAhead) - 1);
      ++t;
    }
  }
  // The names kept (every fresh name is not empty).
  for (size_t i = 0; i < n; ++i) {
    if (out[i].empty()) out[i] = wanted[i];
  }
  return out;
}

}  // namespace egret
