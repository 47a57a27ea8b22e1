// A growable array of 32-bit ids (class ids or node indices) in 16 bytes: a
// pointer and 32-bit size and capacity, where std::vector takes 24. EGraph
// keeps one per class id ever made (the class's parents; its nodes are a
// NodeList), most of them empty once their class is merged away, so the
// record size counts.
//
// Growth doubles the capacity (powers of two, at least 2), as std::vector
// does; the contents are moved with realloc. Not copyable; moving leaves
// the source empty.
#ifndef EGRET_EGRAPH_ID_LIST_H_
#define EGRET_EGRAPH_ID_LIST_H_

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <new>

#include "absl/types/span.h"

namespace egret {

class IdList {
 public:
  IdList() = default;
  IdList(IdList&& o) noexcept : data_(o.data_), size_(o.size_), cap_(o.cap_) {
    o.data_ = nullptr;
    o.size_ = o.cap_ = 0;
  }
  IdList& operator=(IdList&& o) noexcept {
    if (this != &o) {
      std::free(data_);
      data_ = o.data_;
      size_ = o.size_;
      cap_ = o.cap_;
      o.data_ = nullptr;
      o.size_ = o.cap_ = 0;
    }
    return *this;
  }
  IdList(const IdList&) = delete;
  IdList& operator=(const IdList&) = delete;
  ~IdList() { std::free(data_); }

  size_t size() const { return size_; }
  size_t capacity() const { return cap_; }
  bool empty() const { return size_ == 0; }
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
    if (size_ == cap_) Reserve(size_ + 1);
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
  // Empties the list and frees its storage.
  void Release() {
    std::free(data_);
    data_ = nullptr;
    size_ = cap_ = 0;
  }

 private:
  void Reserve(size_t need) {
    if (need <= cap_) return;
    // A power of two entries, at least 2 (8 bytes: most classes have one
    // parent, and allocators' size classes are powers of two).
    const size_t cap = std::bit_ceil(std::max({need, size_t{cap_} * 2, size_t{2}}));
    void* p = std::realloc(data_, cap * sizeof(uint32_t));
    if (p == nullptr) throw std::bad_alloc();
    data_ = static_cast<uint32_t*>(p);
    cap_ = static_cast<uint32_t>(cap);
  }

  uint32_t* data_ = nullptr;
  uint32_t size_ = 0;
  uint32_t cap_ = 0;
};

}  // namespace egret

#endif  // EGRET_EGRAPH_ID_LIST_H_
