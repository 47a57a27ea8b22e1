#include "python/src/errors.h"

#include <string>

namespace egret::python {

namespace py = pybind11;

void ThrowStatus(const absl::Status& status) {
  py::object error = py::module_::import("egret._errors")
                         .attr("from_status")(absl::StatusCodeToString(status.code()),
                                              std::string(status.message()));
  PyErr_SetObject(reinterpret_cast<PyObject*>(Py_TYPE(error.ptr())), error.ptr());
  throw py::error_already_set();
}

}  // namespace egret::python
