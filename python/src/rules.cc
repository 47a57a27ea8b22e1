// Rules: loading and checking rule files and texts against a Functions set
// (api::Rules::Load, egret/api/rules.h), with every diagnostic returned as a
// (severity, file, line, column, message, text) tuple (severity: the number
// of egret::Severity) so that a checker can
// list them all; egret/_rules.py makes them egret.Diagnostic objects.
#include "egret/api/rules.h"

#include <pybind11/stl.h>

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "egret/support/diagnostic.h"
#include "python/src/bindings.h"

namespace egret::python {

void RegisterRules(py::module_& m) {
  py::class_<api::Rules, std::shared_ptr<api::Rules>>(m, "Rules")
      .def_property_readonly("num_rules", &api::Rules::num_rules)
      .def_property_readonly("num_implementations", &api::Rules::num_implementations);

  // sources: (name, text) pairs, text None for a file named `name`. Returns
  // (rules or None, diagnostics, None or (status code, message)).
  m.def(
      "load_rules",
      [](const std::vector<std::pair<std::string, std::optional<std::string>>>& sources,
         const api::Functions& functions, const std::vector<std::string>& include_dirs,
         const std::vector<std::string>& defines) {
        std::vector<api::RuleSource> rule_sources;
        for (const auto& [name, text] : sources) {
          rule_sources.push_back(text ? api::RuleSource::Text(name, *text)
                                      : api::RuleSource::File(name));
        }
        api::RuleOptions options;
        options.include_dirs = include_dirs;
        options.defines = defines;
        DiagnosticList diags;
        std::optional<absl::StatusOr<api::Rules>> rules;
        {
          py::gil_scoped_release release;
          rules.emplace(api::Rules::Load(rule_sources, functions, options, &diags));
        }
        py::list out;
        for (const Diagnostic& d : diags.all()) {
          out.append(py::make_tuple(static_cast<int>(d.severity), d.loc.file, d.loc.line, d.loc.col,
                                    d.message, d.ToString()));
        }
        py::object loaded = py::none(), status = py::none();
        if (rules->ok()) {
          loaded = py::cast(std::make_shared<api::Rules>(**std::move(rules)));
        } else {
          status = py::make_tuple(absl::StatusCodeToString(rules->status().code()),
                                  std::string(rules->status().message()));
        }
        return py::make_tuple(loaded, out, status);
      },
      py::arg("sources"), py::arg("functions"), py::arg("include_dirs"), py::arg("defines"));

  m.def("shipped_rule_files", [](const std::string& dir) {
    std::vector<std::string> files;
    for (const api::RuleSource& s : api::ShippedRuleLibrary(dir)) files.push_back(s.name);
    return files;
  });
}

}  // namespace egret::python
