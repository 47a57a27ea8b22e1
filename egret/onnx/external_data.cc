#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "egret/onnx/external_data_internal.h"
#include "egret/support/file_io.h"

namespace egret::onnx_internal {

namespace {

bool IsExternal(const onnx::TensorProto& t) {
  return t.data_location() == onnx::TensorProto::EXTERNAL || t.external_data_size() > 0;
}

// Calls fn(tensor, label) for every external tensor of the main graph: its
// initializers and its nodes' tensor attributes (the set HasExternalData
// tests), stopping at the first error.
template <typename Fn>
absl::Status ForEachExternalTensor(onnx::ModelProto* model, Fn&& fn) {
  onnx::GraphProto* g = model->mutable_graph();
  for (auto& t : *g->mutable_initializer()) {
    if (!IsExternal(t)) continue;
    if (absl::Status s = fn(&t, absl::StrCat("initializer '", t.name(), "'")); !s.ok()) return s;
  }
  for (auto& n : *g->mutable_node()) {
    for (auto& a : *n.mutable_attribute()) {
      if (!a.has_t() || !IsExternal(a.t())) continue;
      const std::string label = absl::StrCat("node '", n.name(), "' attribute '", a.name(), "'");
      if (absl::Status s = fn(a.mutable_t(), label); !s.ok()) return s;
    }
  }
  return absl::OkStatus();
}

}  // namespace

bool HasExternalData(const onnx::ModelProto& model) {
  for (const auto& t : model.graph().initializer()) {
    if (IsExternal(t)) return true;
  }
  for (const auto& n : model.graph().node()) {
    for (const auto& a : n.attribute()) {
      if (a.has_t() && IsExternal(a.t())) return true;
    }
  }
  return false;
}

absl::Status LoadExternalData(onnx::ModelProto* model, const std::string& dir, uint64_t max_bytes) {
  absl::flat_hash_map<std::string, FileInDir> files;  // location -> open file
  uint64_t loaded = 0;
  return ForEachExternalTensor(model, [&](onnx::TensorProto* t, const std::string& label) {
    std::string location;
    bool has_length = false;
    uint64_t offset = 0, length = 0;
    for (const auto& kv : t->external_data()) {
      if (kv.key() == "location") {
        location = kv.value();
      } else if (kv.key() == "offset") {
        if (!absl::SimpleAtoi(kv.value(), &offset)) {
          return absl::InvalidArgumentError(
              absl::StrCat(label, ": external data offset '", kv.value(), "' is not a number"));
        }
      } else if (kv.key() == "length") {
        has_length = true;
        if (!absl::SimpleAtoi(kv.value(), &length)) {
          return absl::InvalidArgumentError(
              absl::StrCat(label, ": external data length '", kv.value(), "' is not a number"));
        }
      }
    }
    if (location.empty()) {
      return absl::InvalidArgumentError(absl::StrCat(label, ": external data without a location"));
    }
    auto it = files.find(location);
    if (it == files.end()) {
      absl::StatusOr<FileInDir> file = FileInDir::Open(dir, location);
      if (!file.ok()) {
        return absl::Status(file.status().code(),
                            absl::StrCat(label, ": external data: ", file.status().message()));
      }
      it = files.emplace(location, *std::move(file)).first;
    }
    const uint64_t size = it->second.size();
    if (offset > size) {
      return absl::InvalidArgumentError(absl::StrCat(label, ": external data offset ", offset,
                                                     " is past the end of '", location, "' (", size,
                                                     " bytes)"));
    }
    if (!has_length) length = size - offset;
    if (length > size - offset) {
      return absl::InvalidArgumentError(absl::StrCat(label, ": external data offset ", offset,
                                                     " + length ", length, " is past the end of '",
                                                     location, "' (", size, " bytes)"));
    }
    loaded += length;
    if (loaded > max_bytes) {
      return absl::ResourceExhaustedError(
          absl::StrCat(label, ": external data: the model's tensors there reach ", loaded,
                       " bytes, over the limit of ", max_bytes));
    }
    absl::StatusOr<std::string> bytes = it->second.Read(offset, length);
    if (!bytes.ok()) {
      return absl::Status(bytes.status().code(),
                          absl::StrCat(label, ": external data: ", bytes.status().message()));
    }
    t->clear_external_data();
    t->clear_data_location();
    t->set_raw_data(*std::move(bytes));
    return absl::OkStatus();
  });
}

std::string MoveToExternalData(onnx::ModelProto* model, const std::string& location,
                               uint64_t min_bytes) {
  // The blob is sized once and each tensor's bytes are freed as they move, so
  // the weights are never held twice (nor reallocated): a 5 GB model's.
  size_t total = 0;
  for (const auto& t : model->graph().initializer()) {
    if (t.has_raw_data() && t.raw_data().size() >= min_bytes) {
      total = (total + 63) / 64 * 64 + t.raw_data().size();
    }
  }
  std::string blob;
  blob.reserve(total);
  for (auto& t : *model->mutable_graph()->mutable_initializer()) {
    if (!t.has_raw_data() || t.raw_data().size() < min_bytes) continue;
    blob.resize((blob.size() + 63) / 64 * 64, '\0');
    const size_t offset = blob.size();
    blob.append(t.raw_data());
    std::string().swap(*t.mutable_raw_data());
    t.clear_raw_data();
    t.set_data_location(onnx::TensorProto::EXTERNAL);
    auto add = [&](const char* key, std::string value) {
      auto* kv = t.add_external_data();
      kv->set_key(key);
      kv->set_value(std::move(value));
    };
    add("location", location);
    add("offset", absl::StrCat(offset));
    add("length", absl::StrCat(blob.size() - offset));
  }
  return blob;
}

}  // namespace egret::onnx_internal
