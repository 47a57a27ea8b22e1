// An e-class's node list together with a summary of its ops, in 16 bytes: all
// that e-matching reads of a class to find its nodes of one op
// (EGraph::ClassNodesWithOp), in one record and one allocation.
//
// The entries are node indices, kept sorted by op by the e-graph (so the
// nodes of one op are a contiguous range). The summary, ops(), describes the
// list as of the last Index() (or SetSingleOp()): either the one op id all
// its nodes share (below kMixed), or kMixed plus a 31-bit mask with bit
// OpBit(op) set for the op of each node. For a list of several ops, Index()
// also writes a run table after the ids, in the same allocation: for each op
// of the list, ascending, the pair (op id, end of its range), the last pair
// ending at size(). WithOp() answers from the summary and the run table and
// never reads a node's record.
//
// The allocation is one block: the capacity, then the ids, then (for a list
// of several ops) the run table; data() points past the capacity. Growth
// about doubles the capacity, keeping the block a power of two bytes (1, 3,
// 7, 15, ... entries: 8, 16, 32, 64 bytes, each an allocator's size class);
// the contents move with realloc. Any change to the list (push_back, Append,
// Truncate) invalidates the run table until the next Index(); ops() keeps
// describing the list as last indexed. Not copyable; moving leaves the
// source empty.
#ifndef EGRET_EGRAPH_NODE_LIST_H_
#define EGRET_EGRAPH_NODE_LIST_H_

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <new>

#include "absl/types/span.h"

namespace egret {

class NodeList {
 public:
  // ops() of a list of several ops has this bit set (op ids are below it).
  static constexpr uint32_t kMixed = uint32_t{1} << 31;
  // The bit of `op` in the mask of a list of several ops.
  static constexpr uint32_t OpBit(uint32_t op) { return uint32_t{1} << (op % 31); }

  NodeList() = default;
  NodeList(NodeList&& o) noexcept : data_(o.data_), size_(o.size_), ops_(o.ops_) {
    o.data_ = nullptr;
    o.size_ = 0;
    o.ops_ = kMixed;
  }
  NodeList& operator=(NodeList&& o) noexcept {
    if (this != &o) {
      Free();
      data_ = o.data_;
      size_ = o.size_;
      ops_ = o.ops_;
      o.data_ = nullptr;
      o.size_ = 0;
      o.ops_ = kMixed;
    }
    return *this;
  }
  NodeList(const NodeList&) = delete;
  NodeList& operator=(const NodeList&) = delete;
  ~NodeList() { Free(); }

  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  // Entries the allocation holds (ids and run table), 0 when empty.
  size_t capacity() const { return data_ == nullptr ? 0 : data_[-1]; }
  uint32_t* data() { return data_; }
  const uint32_t* data() const { return data_; }
  uint32_t* begin() { return data_; }
  uint32_t* end() { return data_ + size_; }
  const uint32_t* begin() const { return data_; }
  const uint32_t* end() const { return data_ + size_; }
  uint32_t& operator[](size_t i) { return data_[i]; }
  uint32_t operator[](size_t i) const { return data_[i]; }
  uint32_t front() const { return data_[0]; }
  uint32_t back() const { return data_[size_ - 1]; }
  absl::Span<const uint32_t> span() const { return absl::Span<const uint32_t>(data_, size_); }
  absl::Span<uint32_t> mutable_span() { return absl::Span<uint32_t>(data_, size_); }

  void push_back(uint32_t x) {
    if (size_ == capacity()) Reserve(size_ + 1);
    data_[size_++] = x;
  }
  // Appends `ids`, which must not point into this list.
  void Append(absl::Span<const uint32_t> ids) {
    if (ids.empty()) return;
    Reserve(size_ + ids.size());
    std::memcpy(data_ + size_, ids.data(), ids.size() * sizeof(uint32_t));
    size_ += static_cast<uint32_t>(ids.size());
  }
  // Drops the entries from `new_end` (a pointer into the list) on.
  void Truncate(const uint32_t* new_end) { size_ = static_cast<uint32_t>(new_end - data_); }
  // Empties the list and frees its storage; ops() becomes kMixed (no op).
  void Release() {
    Free();
    data_ = nullptr;
    size_ = 0;
    ops_ = kMixed;
  }

  // The summary (see the file comment).
  uint32_t ops() const { return ops_; }
  // Declares that every node of the list has op id `op` (< kMixed).
  void SetSingleOp(uint32_t op) { ops_ = op; }
  // Recomputes the summary and, for several ops, the run table, from
  // op_of(node index) -> op id (< kMixed) of each entry. The list must be
  // sorted by op. May grow the allocation (for the run table).
  template <typename OpOf>
  void Index(OpOf op_of) {
    if (size_ == 0) {
      ops_ = kMixed;
      return;
    }
    const uint32_t first = op_of(data_[0]);
    if (op_of(data_[size_ - 1]) == first) {
      ops_ = first;
      return;
    }
    uint32_t mask = kMixed;
    size_t runs = 1;
    uint32_t prev = first;
    for (uint32_t i = 0; i < size_; ++i) {
      const uint32_t op = op_of(data_[i]);
      mask |= OpBit(op);
      if (op != prev) ++runs;
      prev = op;
    }
    Reserve(size_ + 2 * runs);
    uint32_t* run = data_ + size_;
    run[0] = first;
    for (uint32_t i = 1; i < size_; ++i) {
      const uint32_t op = op_of(data_[i]);
      if (op == run[0]) continue;
      run[1] = i;
      run += 2;
      run[0] = op;
    }
    run[1] = size_;
    ops_ = mask;
  }
  // The contiguous range of entries whose op id is `op`, as of the last
  // Index() (the list must not have changed since, unless it has one op).
  absl::Span<const uint32_t> WithOp(uint32_t op) const {
    if (!(ops_ & kMixed)) return ops_ == op ? span() : absl::Span<const uint32_t>();
    if (!(ops_ & OpBit(op))) return {};
    const uint32_t* run = data_ + size_;
    uint32_t begin = 0;
    while (true) {
      if (run[0] == op) return absl::Span<const uint32_t>(data_ + begin, run[1] - begin);
      if (run[0] > op || run[1] == size_) return {};
      begin = run[1];
      run += 2;
    }
  }

 private:
  void Free() {
    if (data_ != nullptr) std::free(data_ - 1);
  }
  void Reserve(size_t need) {
    const size_t cap_now = capacity();
    if (need <= cap_now) return;
    // The block (the capacity word and the entries) is a power of two bytes,
    // at least 8: allocators' size classes (a 20-byte block takes 32 in
    // tcmalloc's). Most lists hold one node, in 8 bytes.
    const size_t cap = std::bit_ceil(std::max(need, 2 * cap_now + 1) + 1) - 1;
    uint32_t* block = data_ == nullptr ? nullptr : data_ - 1;
    void* p = std::realloc(block, (cap + 1) * sizeof(uint32_t));
    if (p == nullptr) throw std::bad_alloc();
    data_ = static_cast<uint32_t*>(p) + 1;
    data_[-1] = static_cast<uint32_t>(cap);
  }

  uint32_t* data_ = nullptr;  // past the capacity word of the block
  uint32_t size_ = 0;
  uint32_t ops_ = kMixed;
};

static_assert(sizeof(NodeList) == 16);

}  // namespace egret

#endif  // EGRET_EGRAPH_NODE_LIST_H_
