#include "egret/egraph/payload_pools.h"

#include <cstdint>
#include <cstring>

#include "absl/hash/hash.h"
#include "absl/strings/str_cat.h"
#include "egret/egraph/prefetch.h"

namespace egret {
namespace {

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

size_t ConstantPool::ContentHash(const Tensor& t) {
  absl::Span<const uint8_t> b = t.bytes();
  return absl::HashOf(t.type(),
                      absl::string_view(reinterpret_cast<const char*>(b.data()), b.size()));
}

Payload ConstantPool::Intern(ConstTensorPtr value) {
  const size_t h = hash_(*value);
  return InternHashed(std::move(value), h);
}

std::vector<Payload> ConstantPool::InternAll(absl::Span<const ConstTensorPtr> values) {
  // How many values ahead a probe is issued: enough to cover a miss with the
  // work of interning the values in between (a map probe each, hits mostly).
  constexpr size_t kAhead = 8;
  std::vector<size_t> hashes(values.size());
  for (size_t i = 0; i < values.size(); ++i) hashes[i] = hash_(*values[i]);
  // No rehash midway, which would also move the slots already prefetched.
  first_.reserve(first_.size() + values.size());
  std::vector<Payload> payloads(values.size());
  for (size_t i = 0; i < values.size(); ++i) {
    if (i + kAhead < values.size()) PrefetchLookup(first_, hashes[i + kAhead]);
    payloads[i] = InternHashed(values[i], hashes[i]);
  }
  return payloads;
}

Payload ConstantPool::InternHashed(ConstTensorPtr value, size_t h) {
  const Payload fresh = static_cast<Payload>(values_.size() + 1);
  auto [it, inserted] = first_.try_emplace(h, fresh);
  if (!inserted) {
    Payload last = 0;
    for (Payload p = it->second; p != 0; p = next_[p - 1]) {
      const ConstTensorPtr& other = values_[p - 1];
      if (other == value || *other == *value) return p;
      last = p;
    }
    next_[last - 1] = fresh;  // a new constant whose hash another has
  }
  values_.push_back(std::move(value));
  next_.push_back(0);
  return fresh;
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
