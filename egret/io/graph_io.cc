#include "egret/io/graph_io.h"

#include <cctype>
#include <filesystem>

#include "absl/strings/str_cat.h"
#include "egret/graph/graph_dot.h"
#include "egret/graph/graph_json.h"
#include "egret/io/file_kind.h"
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

absl::StatusOr<GraphFormat> WriteFormatFromPath(std::string_view path) {
  std::optional<GraphFormat> format = GraphFormatFromPath(path);
  if (!format) {
    return absl::InvalidArgumentError(
        absl::StrCat(absl::string_view(path.data(), path.size()),
                     ": error: cannot tell which format to write from the file name; egret "
                     "writes .json, .onnx and .dot files"));
  }
  return *format;
}

absl::StatusOr<Graph> LoadGraph(const std::string& path, uint64_t max_file_bytes) {
  OnnxImportOptions options;
  options.max_file_bytes = max_file_bytes;
  return LoadGraph(path, options);
}

absl::StatusOr<std::optional<GraphFormat>> DetectGraphFormat(const std::string& path) {
  std::optional<GraphFormat> format = GraphFormatFromPath(path);
  if (format == GraphFormat::kDot) return format;
  // What the file holds decides over its extension for formats egret does
  // not read, and decides alone when the extension says nothing. (An
  // unreadable file is left to the reader, whose error says why.)
  absl::StatusOr<std::string> head = ReadFileHead(path);
  if (!head.ok()) return format;
  const FileKind kind = ClassifyFileHead(*head);
  if (kind == FileKind::kEgretJson && !format) format = GraphFormat::kJson;
  if (kind == FileKind::kOnnx && !format) format = GraphFormat::kOnnx;
  if (!format ||
      (kind != FileKind::kEgretJson && kind != FileKind::kOnnx && kind != FileKind::kOther)) {
    return absl::InvalidArgumentError(
        absl::StrCat(path, ": error: ", ForeignFileAdvice(kind, path)));
  }
  return format;
}

absl::StatusOr<Graph> LoadGraph(const std::string& path, const OnnxImportOptions& onnx) {
  absl::StatusOr<std::optional<GraphFormat>> format = DetectGraphFormat(path);
  if (!format.ok()) return format.status();
  switch (format->value_or(GraphFormat::kJson)) {
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
  if (!format) {
    EGRET_ASSIGN_OR_RETURN(format, WriteFormatFromPath(path));
  }
  switch (*format) {
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
