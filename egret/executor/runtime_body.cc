#include "egret/executor/runtime_body.h"

#include <atomic>
#include <string>

#include "absl/strings/str_format.h"

namespace egret {
namespace {

std::atomic<RuntimeBodyImporter> g_importer{nullptr};

}  // namespace

void SetRuntimeBodyImporter(RuntimeBodyImporter importer) { g_importer.store(importer); }

std::string KeptGraphKey(std::string_view name) {
  std::string key(kKeptGraphAttrPrefix);
  key.append(name);
  return key;
}

bool HasKeptGraph(const Attributes& attrs, std::string_view name) {
  return attrs.contains(KeptGraphKey(name));
}

absl::StatusOr<GraphPtr> ImportRuntimeBody(std::string_view op, const Attributes& attrs,
                                           std::string_view key,
                                           absl::Span<const TensorType> inputs) {
  if (!attrs.contains(key)) {
    return absl::UnimplementedError(
        absl::StrFormat("%s: has no body to import (attribute %s)", op, key));
  }
  RuntimeBodyImporter importer = g_importer.load();
  if (importer == nullptr) {
    return absl::UnimplementedError(absl::StrFormat(
        "%s: its body is imported at run time, and no ONNX importer is linked in", op));
  }
  absl::StatusOr<GraphPtr> body = importer(attrs, key, inputs);
  if (!body.ok()) {
    return absl::Status(body.status().code(),
                        absl::StrFormat("%s: importing its body: %s", op, body.status().message()));
  }
  return body;
}

}  // namespace egret
