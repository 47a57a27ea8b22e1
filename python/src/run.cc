// run: a graph on egret's reference executor (egret/executor/executor.h), as
// `egret run` runs it, on inputs given as .npy bytes (one per graph input, in
// order; egret/_run.py encodes numpy arrays so, and checks names). Returns one
// (name, npy bytes) per graph output. An output whose op has no reference
// kernel is an error naming the node.
#include <pybind11/stl.h>

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "egret/executor/executor.h"
#include "egret/executor/npy.h"
#include "python/src/bindings.h"
#include "python/src/errors.h"
#include "python/src/graph.h"

namespace egret::python {

void RegisterRun(py::module_& m) {
  m.def(
      "run",
      [](const GraphPtr& g, const std::vector<py::bytes>& npy_inputs, int threads,
         int64_t memory_limit) {
        if (npy_inputs.size() != g->inputs().size()) {
          ThrowStatus(absl::InvalidArgumentError(absl::StrCat(
              "the graph has ", g->inputs().size(), " inputs, ", npy_inputs.size(), " given")));
        }
        std::vector<std::string> data;
        for (const py::bytes& b : npy_inputs) data.push_back(b);
        absl::StatusOr<std::vector<Tensor>> outputs;
        {
          py::gil_scoped_release release;
          std::vector<Tensor> inputs;
          for (size_t k = 0; k < data.size(); ++k) {
            const Node& n = g->node(g->inputs()[k]);
            absl::StatusOr<Tensor> t =
                DecodeNpy(data[k], n.outputs[0], absl::StrCat("input '", n.name, "'"));
            if (!t.ok()) {
              outputs = t.status();
              break;
            }
            inputs.push_back(*std::move(t));
          }
          if (inputs.size() == data.size()) {
            ExecuteOptions options;
            options.threads = threads;
            options.max_live_bytes = memory_limit;
            outputs = Execute(*g, inputs, options);
          }
        }
        std::vector<Tensor> values = ValueOrThrow(std::move(outputs));
        py::list out;
        for (size_t k = 0; k < values.size(); ++k) {
          out.append(py::make_tuple(g->outputs()[k].name, py::bytes(EncodeNpy(values[k]))));
        }
        return out;
      },
      py::arg("graph"), py::arg("inputs"), py::arg("threads"), py::arg("memory_limit"));
}

}  // namespace egret::python
