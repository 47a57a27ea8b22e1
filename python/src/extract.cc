// extract: `egret extract EGRAPH.json --json` (cli/extract_command.cc) on an
// egraph-serialize e-graph given as text: the extracted term's tree and DAG
// cost, the chosen node of each class and, for an extractor that proves
// optimality (ilp), whether it did and its bound; for the others, the
// critical-path lower bound (extract/critical_path_bound.h), as the CLI.
#include <pybind11/stl.h>

#include <chrono>
#include <cmath>
#include <optional>
#include <string>
#include <utility>

#include "egret/extract/critical_path_bound.h"
#include "egret/extract/egraph_serialize.h"
#include "egret/extract/extractor.h"
#include "egret/extract/extractor_registry.h"
#include "python/src/bindings.h"
#include "python/src/errors.h"

namespace egret::python {

void RegisterExtract(py::module_& m) {
  m.def(
      "extract",
      [](const std::string& text, const std::string& file, const std::string& extractor_name,
         double time_limit) {
        const extract::Extractor* extractor =
            ValueOrThrow(extract::LookupExtractor(extractor_name));
        if (!(time_limit > 0) || !std::isfinite(time_limit)) {
          ThrowStatus(
              absl::InvalidArgumentError("time_limit must be a positive number of seconds"));
        }
        std::optional<extract::ExtractionProblem> problem;
        absl::StatusOr<extract::ExtractResult> result;
        double ms = 0;
        {
          py::gil_scoped_release release;
          const auto start = std::chrono::steady_clock::now();
          extract::EgraphSourceMap where;
          absl::StatusOr<extract::ExtractionProblem> p =
              extract::ParseEgraphSerialize(text, file, &where);
          if (p.ok()) {
            problem.emplace(*std::move(p));
            extract::ExtractOptions options;
            options.time_limit_seconds = time_limit;
            result = extract::Extract(*problem, *extractor, options);
            if (!result.ok()) result = where.Locate(result.status(), file);
          } else {
            result = p.status();
          }
          ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
                   .count();
        }
        extract::ExtractResult r = ValueOrThrow(std::move(result));
        std::optional<extract::CriticalPathBound> lower;
        if (!extractor->proves_optimality) {
          py::gil_scoped_release release;
          lower = extract::ComputeCriticalPathBound(*problem);
        }
        py::dict choices;
        for (extract::ClassId c = 0; c < problem->num_classes(); ++c) {
          const extract::ENodeId n = r.choice[c];
          if (n != extract::kNoENode)
            choices[py::str(problem->class_name(c))] = problem->node_name(n);
        }
        py::dict out;
        out["extractor"] = std::string(extractor->name);
        out["tree_cost"] = r.tree_cost;
        out["dag_cost"] = r.dag_cost;
        out["choices"] = choices;
        out["time_ms"] = ms;
        if (extractor->proves_optimality) {
          out["optimal"] = r.optimal;
          out["bound"] = std::isfinite(r.bound) ? py::object(py::float_(r.bound)) : py::none();
        } else {
          out["lower_bound"] =
              lower.has_value() ? py::object(py::float_(lower->bound)) : py::none();
        }
        return out;
      },
      py::arg("text"), py::arg("file"), py::arg("extractor"), py::arg("time_limit"));
}

}  // namespace egret::python
