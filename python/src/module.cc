// egret._egret: the C++ core of the Python package egret (docs/python.md).
#include <pybind11/pybind11.h>

#include "python/src/bindings.h"

PYBIND11_MODULE(_egret, m) {
  namespace ep = egret::python;
  m.doc() = "egret's C++ core; use the package egret, not this module";
  m.attr("version") = EGRET_VERSION;
  m.attr("source_rules_dir") = EGRET_RULES_DIR;
  m.attr("source_devices_dir") = EGRET_DEVICES_DIR;
  m.attr("python_install_dir") = EGRET_PYTHON_INSTALL_DIR;  // under the prefix
  m.attr("install_datadir") = EGRET_INSTALL_DATADIR;        // under the prefix
  ep::RegisterGraph(m);
  ep::RegisterFunctions(m);
  ep::RegisterRules(m);
  ep::RegisterOptimize(m);
  ep::RegisterRun(m);
  ep::RegisterExtract(m);
  ep::RegisterBuilder(m);
}
