#include "egret/api/graph_files.h"

#include "egret/io/graph_io.h"

namespace egret::api {

absl::StatusOr<Graph> LoadGraph(const std::string& path) { return egret::LoadGraph(path); }

absl::Status SaveGraph(const Graph& graph, const std::string& path) {
  return egret::SaveGraph(graph, path);
}

}  // namespace egret::api
