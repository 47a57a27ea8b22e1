// egret's Graph as Python sees it: an opaque handle (egret._egret.Graph),
// and tensor types as (dtype name, dims) tuples ("Float32", (1, 3, 8, 8)).
#ifndef EGRET_PYTHON_SRC_GRAPH_H_
#define EGRET_PYTHON_SRC_GRAPH_H_

#include <pybind11/pybind11.h>

#include <memory>

#include "egret/graph/graph.h"

namespace egret::python {

namespace py = pybind11;

// Graphs are shared: a result holds its graph while Python code reads it.
using GraphPtr = std::shared_ptr<Graph>;

// ("Float32", (1, 3, 8, 8)); quantization is not shown.
py::tuple TypeTuple(const TensorType& type);

}  // namespace egret::python

#endif  // EGRET_PYTHON_SRC_GRAPH_H_
