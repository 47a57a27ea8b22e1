#include "egret/io/graph_io.h"

#include <cctype>
#include <filesystem>

#include "absl/strings/str_cat.h"
#include "egret/graph/graph_dot.h"
#include "egret/graph/graph_json.h"
#include "egret/onnx/onnx_reader.h"
#include "egret/onnx/onnx_writer.h"
#include "egret/support/enum_names.h"
#include "egret/support/status_macros.h"

namespace egret {

namespace {

constexpr auto kFormatNames = MakeEnumNames<GraphFormat>({
    {GraphFormat::kJson, "json"},
    {GraphFormat::kDot, "dot"},
    {GraphFormat::kOnnx, "onnx"},
});

}  // namespace

std::string_view GraphFormatName(GraphFormat format) { return kFormatNames.Name(format, "json"); }

std::optional<GraphFormat> ParseGraphFormat(std::string_view name) {
  return kFormatNames.Parse(name);
}

std::optional<GraphFormat> GraphFormatFromPath(std::string_view path) {
  size_t dot = path.rfind('.');
  size_t slash = path.rfind('/');
  if (dot == std::string_view::npos || (slash != std::string_view::npos && dot < slash)) {
    return std::nullopt;
  }
  std::string ext;
  for (char c : path.substr(dot + 1))
    ext += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return ParseGraphFormat(ext);
}

absl::StatusOr<Graph> LoadGraph(const std::string& path, uint64_t max_file_bytes) {
  OnnxImportOptions options;
  options.max_file_bytes = max_file_bytes;
  return LoadGraph(path, options);
}

absl::StatusOr<Graph> LoadGraph(const std::string& path, const OnnxImportOptions& onnx) {
  switch (GraphFormatFromPath(path).value_or(GraphFormat::kJson)) {
    case GraphFormat::kJson:
      return ReadGraphJson(path, onnx.max_file_bytes);
    case GraphFormat::kOnnx:
      return ReadOnnx(path, onnx);
    case GraphFormat::kDot:
      return absl::UnimplementedError(
          absl::StrCat(path, ": error: DOT files are write-only; give a .json graph"));
  }
  return absl::InternalError("unreachable");
}

absl::Status SaveGraph(const Graph& graph, const std::string& path,
                       std::optional<GraphFormat> format, const OnnxWriteOptions& onnx) {
  FileTransaction txn;
  EGRET_RETURN_IF_ERROR(StageGraph(graph, path, &txn, format, onnx));
  return txn.Commit();
}

absl::Status StageGraph(const Graph& graph, const std::string& path, FileTransaction* txn,
                        std::optional<GraphFormat> format, const OnnxWriteOptions& onnx) {
  switch (format.value_or(GraphFormatFromPath(path).value_or(GraphFormat::kJson))) {
    case GraphFormat::kJson:
      return StageGraphJson(graph, path, GraphWriteOptions{}, txn);
    case GraphFormat::kDot:
      return txn->Stage(path, GraphToDot(graph));
    case GraphFormat::kOnnx: {
      EGRET_ASSIGN_OR_RETURN(OnnxFiles files, WriteOnnxFiles(graph, path, onnx));
      if (!files.data.empty()) {
        const std::filesystem::path data =
            std::filesystem::path(path).parent_path() / files.data_name;
        EGRET_RETURN_IF_ERROR(txn->Stage(data.string(), files.data));
      }
      return txn->Stage(path, files.model);
    }
  }
  return absl::InternalError("unreachable");
}

}  // namespace egret
