#include "egret/egraph/payload_pools.h"

#include <cstdint>
#include <cstring>

#include "absl/hash/hash.h"
#include "absl/strings/str_cat.h"

namespace egret {
namespace {

size_t ContentHash(const Tensor& t) {
  absl::Span<const uint8_t> b = t.bytes();
  return absl::HashOf(t.type(),
                      absl::string_view(reinterpret_cast<const char*>(b.data()), b.size()));
}

// An unambiguous text form of one attribute value (type tag + content).
void AppendValue(std::string& out, const AttrValue& v) {
  struct Visitor {
    std::string& out;
    void operator()(int64_t x) { absl::StrAppend(&out, "i", x); }
    void operator()(double x) {
      char buf[sizeof(double)];
      std::memcpy(buf, &x, sizeof buf);
      out.append("d");
      out.append(buf, sizeof buf);
    }
    void operator()(const std::string& s) { absl::StrAppend(&out, "s", s.size(), ":", s); }
    void operator()(const std::vector<int64_t>& xs) {
      absl::StrAppend(&out, "I", xs.size(), ":");
      for (int64_t x : xs) absl::StrAppend(&out, x, ",");
    }
    void operator()(const std::vector<double>& xs) {
      absl::StrAppend(&out, "D", xs.size(), ":");
      for (double x : xs) (*this)(x);
    }
    // Subgraphs are immutable and shared: equal when they are the same graph.
    void operator()(const GraphPtr& g) {
      absl::StrAppend(&out, "G", reinterpret_cast<uintptr_t>(g.get()), ";");
    }
  };
  std::visit(Visitor{out}, v);
}

}  // namespace

Payload ConstantPool::Intern(ConstTensorPtr value) {
  size_t h = ContentHash(*value);
  std::vector<Payload>& bucket = by_hash_[h];
  for (Payload p : bucket) {
    const ConstTensorPtr& other = values_[p - 1];
    if (other == value || *other == *value) return p;
  }
  values_.push_back(std::move(value));
  Payload p = static_cast<Payload>(values_.size());
  bucket.push_back(p);
  return p;
}

Payload AttributePool::Intern(const Attributes& attrs) {
  if (attrs.empty()) return kNoPayload;
  std::string key;
  for (const auto& [name, value] : attrs) {
    absl::StrAppend(&key, name.size(), ":", name, "=");
    AppendValue(key, value);
    key.push_back(';');
  }
  auto [it, inserted] = ids_.try_emplace(std::move(key), static_cast<Payload>(values_.size() + 1));
  if (inserted) values_.push_back(attrs);
  return it->second;
}

const Attributes& AttributePool::Get(Payload p) const {
  static const Attributes* empty = new Attributes();
  return p == kNoPayload || (p & kTypePayloadBit) != 0 ? *empty : values_[p - 1];
}

}  // namespace egret
