// GraphBuilder: api::GraphBuilder (egret/api/graph_builder.h) for small
// graphs written in Python. A value is a ValueRef; types are (dtype name,
// dims); a constant's data comes as raw little-endian bytes (egret/_builder.py
// takes them from a numpy array). Errors are sticky as in C++: build() raises
// the first.
#include <pybind11/stl.h>

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "egret/api/graph_builder.h"
#include "python/src/bindings.h"
#include "python/src/errors.h"
#include "python/src/graph.h"

namespace egret::python {
namespace {

TensorType TypeOf(const std::string& dtype, const std::vector<int64_t>& dims) {
  const std::optional<DType> t = ParseDType(dtype);
  if (!t) ThrowStatus(absl::InvalidArgumentError(absl::StrCat("unknown dtype '", dtype, "'")));
  return TensorType(*t, Dims(dims.begin(), dims.end()));
}

}  // namespace

void RegisterBuilder(py::module_& m) {
  py::class_<ValueRef>(m, "ValueRef")
      .def_readonly("node", &ValueRef::node)
      .def_readonly("output", &ValueRef::output)
      .def("__repr__", [](const ValueRef& v) {
        return absl::StrCat("ValueRef(node=", v.node, ", output=", v.output, ")");
      });

  py::class_<api::GraphBuilder>(m, "GraphBuilder")
      .def(py::init<std::string>(), py::arg("name") = "")
      .def(
          "input",
          [](api::GraphBuilder& b, std::string name, const std::string& dtype,
             const std::vector<int64_t>& dims) {
            return b.Input(std::move(name), TypeOf(dtype, dims));
          },
          py::arg("name"), py::arg("dtype"), py::arg("dims"))
      .def(
          "constant",
          [](api::GraphBuilder& b, std::string name, const std::string& dtype,
             const std::vector<int64_t>& dims, const py::bytes& data) {
            const std::string bytes = data;
            Tensor t = ValueOrThrow(Tensor::FromBytes(
                TypeOf(dtype, dims),
                absl::Span<const uint8_t>(reinterpret_cast<const uint8_t*>(bytes.data()),
                                          bytes.size())));
            return b.Constant(std::move(name), std::move(t));
          },
          py::arg("name"), py::arg("dtype"), py::arg("dims"), py::arg("data"))
      .def(
          "shape",
          [](api::GraphBuilder& b, const std::vector<int64_t>& dims) {
            return b.Shape(absl::Span<const int64_t>(dims.data(), dims.size()));
          },
          py::arg("dims"))
      .def(
          "op",
          [](api::GraphBuilder& b, std::string op, const std::vector<ValueRef>& inputs,
             std::string name) {
            return b.Op(std::move(op), absl::Span<const ValueRef>(inputs.data(), inputs.size()),
                        std::nullopt, std::move(name));
          },
          py::arg("op"), py::arg("inputs"), py::arg("name") = "")
      .def(
          "output",
          [](api::GraphBuilder& b, ValueRef v, std::string name) { b.Output(v, std::move(name)); },
          py::arg("value"), py::arg("name") = "")
      .def("build", [](api::GraphBuilder& b) {
        // Build() consumes the builder: build a copy, so that the Python
        // object stays valid (a second build() gives the same graph).
        api::GraphBuilder copy = b;
        return std::make_shared<Graph>(ValueOrThrow(std::move(copy).Build()));
      });
}

}  // namespace egret::python
