// Graph: reading a graph file or ONNX bytes with the importer's options (the
// CLI's --dim, --default-dim, --input-shape, --input-value), its inputs and
// outputs, and writing it as ONNX bytes (what `egret optimize -o OUT.onnx`
// writes).
#include "python/src/graph.h"

#include <pybind11/stl.h>

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "egret/io/graph_io.h"
#include "egret/onnx/onnx_reader.h"
#include "egret/onnx/onnx_writer.h"
#include "python/src/bindings.h"
#include "python/src/errors.h"

namespace egret::python {
namespace {

OnnxImportOptions ImportOptions(const std::map<std::string, int64_t>& dims, int64_t default_dim,
                                const std::map<std::string, std::vector<int64_t>>& input_shapes,
                                const std::map<std::string, std::vector<double>>& input_values) {
  OnnxImportOptions options;
  for (const auto& [name, n] : dims) options.dim_params[name] = n;
  options.default_dim = default_dim;
  for (const auto& [name, shape] : input_shapes) {
    options.input_shapes[name] = Dims(shape.begin(), shape.end());
  }
  for (const auto& [name, values] : input_values) options.input_numbers[name] = values;
  options.symbolic_dim_hint = "dims={'NAME': N}, default_dim=N or input_shapes={'INPUT': (A, B)}";
  return options;
}

py::list Values(const Graph& g, bool inputs) {
  py::list out;
  if (inputs) {
    for (NodeId id : g.inputs()) {
      const Node& n = g.node(id);
      out.append(py::make_tuple(n.name, TypeTuple(n.outputs[0])));
    }
  } else {
    for (const GraphOutput& o : g.outputs()) {
      out.append(py::make_tuple(o.name, TypeTuple(g.TypeOf(o.value))));
    }
  }
  return out;
}

}  // namespace

py::tuple TypeTuple(const TensorType& type) {
  py::tuple dims(type.dims.size());
  for (size_t i = 0; i < type.dims.size(); ++i) dims[i] = type.dims[i];
  return py::make_tuple(std::string(DTypeName(type.dtype)), dims);
}

void RegisterGraph(py::module_& m) {
  py::class_<Graph, std::shared_ptr<Graph>>(m, "Graph")
      .def_property_readonly("num_nodes", &Graph::num_nodes)
      .def_property_readonly("inputs", [](const Graph& g) { return Values(g, true); })
      .def_property_readonly("outputs", [](const Graph& g) { return Values(g, false); })
      .def(
          "to_onnx",
          [](const Graph& g, bool standard_only, bool records) {
            OnnxWriteOptions options;
            options.standard_only = standard_only;
            options.records = records;
            absl::StatusOr<std::string> bytes;
            {
              py::gil_scoped_release release;
              bytes = WriteOnnxBytes(g, "<model>", options);
            }
            return py::bytes(ValueOrThrow(std::move(bytes)));
          },
          py::arg("standard_only") = false, py::arg("records") = false);

  m.def(
      "load_graph",
      [](const std::string& path, const std::map<std::string, int64_t>& dims, int64_t default_dim,
         const std::map<std::string, std::vector<int64_t>>& input_shapes,
         const std::map<std::string, std::vector<double>>& input_values) {
        const OnnxImportOptions options =
            ImportOptions(dims, default_dim, input_shapes, input_values);
        absl::StatusOr<Graph> g;
        {
          py::gil_scoped_release release;
          g = LoadGraph(path, options);
        }
        return std::make_shared<Graph>(ValueOrThrow(std::move(g)));
      },
      py::arg("path"), py::arg("dims"), py::arg("default_dim"), py::arg("input_shapes"),
      py::arg("input_values"));
  m.def(
      "parse_onnx",
      [](const py::bytes& data, const std::string& name, const std::map<std::string, int64_t>& dims,
         int64_t default_dim, const std::map<std::string, std::vector<int64_t>>& input_shapes,
         const std::map<std::string, std::vector<double>>& input_values) {
        const OnnxImportOptions options =
            ImportOptions(dims, default_dim, input_shapes, input_values);
        const std::string bytes = data;
        absl::StatusOr<Graph> g;
        {
          py::gil_scoped_release release;
          g = ParseOnnx(bytes, name, options);
        }
        return std::make_shared<Graph>(ValueOrThrow(std::move(g)));
      },
      py::arg("data"), py::arg("name"), py::arg("dims"), py::arg("default_dim"),
      py::arg("input_shapes"), py::arg("input_values"));
}

}  // namespace egret::python
