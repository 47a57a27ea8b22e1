// The pieces of the extension module egret._egret (module.cc puts them
// together): each Register* adds one idea's classes and functions to the
// module. The Python package egret (python/egret/) wraps them in the typed,
// documented API; nothing here is meant to be called directly.
#ifndef EGRET_PYTHON_SRC_BINDINGS_H_
#define EGRET_PYTHON_SRC_BINDINGS_H_

#include <pybind11/pybind11.h>

namespace egret::python {

namespace py = pybind11;

void RegisterGraph(py::module_& m);      // graph.cc: Graph, load_graph, parse_onnx
void RegisterRules(py::module_& m);      // rules.cc: Rules, load_rules
void RegisterFunctions(py::module_& m);  // functions.cc: Functions (Python callables)
void RegisterOptimize(py::module_& m);   // optimize.cc: optimize
void RegisterRun(py::module_& m);        // run.cc: run
void RegisterExtract(py::module_& m);    // extract.cc: extract
void RegisterBuilder(py::module_& m);    // builder.cc: GraphBuilder

}  // namespace egret::python

#endif  // EGRET_PYTHON_SRC_BINDINGS_H_
