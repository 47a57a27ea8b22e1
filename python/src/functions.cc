// Functions: external functions for rules (EXTERNAL_CONSTRAINT, SHAPEFN_APPLY,
// EXTERNAL_REPLACE) written in Python, registered as api::Functions registers
// C++ ones (egret/api/functions.h). Each call from the optimizer takes the GIL
// for the call only. An operand reaches Python as (dtype, dims, npy) with npy
// the .npy bytes of a constant's data (None for other values); egret/_functions.py
// turns that into an egret.Operand. An exception a function raises stops the
// optimization and is raised from egret.optimize (call_scope.h).
// GCC 12's -O2 flow analysis reports a false "maybe-uninitialized" in
// absl::InlinedVector's move of the Dims a shape function returns.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#include "egret/api/functions.h"

#include <pybind11/stl.h>

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "egret/executor/npy.h"
#include "python/src/bindings.h"
#include "python/src/call_scope.h"
#include "python/src/errors.h"
#include "python/src/graph.h"

namespace egret::python {
namespace {

// A Python callable held by C++ std::functions, which the optimizer copies
// and destroys without the GIL: the last owner takes the GIL to release it.
using Callable = std::shared_ptr<py::function>;

Callable Hold(py::function fn) {
  return Callable(new py::function(std::move(fn)), [](py::function* f) {
    py::gil_scoped_acquire gil;
    delete f;
  });
}

py::tuple OperandTuple(const api::Operand& x) {
  py::tuple type = TypeTuple(x.type);
  py::object npy = py::none();
  if (x.constant != nullptr) npy = py::bytes(EncodeNpy(*x.constant));
  return py::make_tuple(type[0], type[1], npy);
}

// The failure of a Python function, kept by the call's scope (which stops
// the run and raises it) and returned as egret's error for this rewrite.
absl::Status Failed(const std::string& name, py::error_already_set e) {
  absl::Status s = absl::InternalError(absl::StrCat("python function '", name, "': ", e.what()));
  if (CallScope* scope = CallScope::Current()) {
    scope->Fail(std::move(e));
  } else {
    e.discard_as_unraisable(name.c_str());
  }
  return s;
}

bool Stopped() {
  CallScope* scope = CallScope::Current();
  return scope != nullptr && scope->failed();
}

absl::StatusOr<api::Built> BuiltFrom(const py::handle& result, const std::string& name) {
  // A list of dims, or ("dtype", dims, raw little-endian bytes) for a constant.
  if (py::isinstance<py::tuple>(result) && py::len(result) == 3) {
    const std::string dtype = py::cast<std::string>(result[py::int_(0)]);
    const std::vector<int64_t> dims = py::cast<std::vector<int64_t>>(result[py::int_(1)]);
    const std::string bytes = py::cast<std::string>(result[py::int_(2)]);
    const std::optional<DType> t = ParseDType(dtype);
    if (!t) {
      return absl::InvalidArgumentError(
          absl::StrCat("python function '", name, "': unknown dtype '", dtype, "'"));
    }
    return Tensor::FromBytes(
        TensorType(*t, Dims(dims.begin(), dims.end())),
        absl::Span<const uint8_t>(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()));
  }
  const std::vector<int64_t> dims = py::cast<std::vector<int64_t>>(result);
  return api::Built(Dims(dims.begin(), dims.end()));
}

}  // namespace

void RegisterFunctions(py::module_& m) {
  py::class_<api::Functions>(m, "Functions")
      .def(py::init<>())
      .def("add_constraint",
           [](api::Functions& fns, const std::string& name, py::function fn) {
             Callable f = Hold(std::move(fn));
             fns.AddConstraint(
                 name, [f, name](const api::Operand& x, absl::Span<const double> args) -> bool {
                   py::gil_scoped_acquire gil;
                   if (Stopped()) return false;
                   try {
                     py::object r = (*f)(OperandTuple(x),
                                         py::cast(std::vector<double>(args.begin(), args.end())));
                     const int truth = PyObject_IsTrue(r.ptr());
                     if (truth < 0) throw py::error_already_set();
                     return truth == 1;
                   } catch (py::error_already_set& e) {
                     (void)Failed(name, std::move(e));
                     return false;
                   }
                 });
           })
      .def("add_replace",
           [](api::Functions& fns, const std::string& name, py::function fn) {
             Callable f = Hold(std::move(fn));
             fns.AddReplace(
                 name,
                 [f, name](const api::Operand& root) -> absl::StatusOr<std::optional<Tensor>> {
                   py::gil_scoped_acquire gil;
                   if (Stopped()) return std::nullopt;
                   try {
                     py::object r = (*f)(OperandTuple(root));
                     if (r.is_none()) return std::nullopt;
                     const std::string npy = py::cast<std::string>(r);
                     absl::StatusOr<Tensor> t =
                         DecodeNpy(npy, root.type, absl::StrCat("replacement of '", name, "'"));
                     if (!t.ok()) return t.status();
                     return std::optional<Tensor>(*std::move(t));
                   } catch (py::error_already_set& e) {
                     return Failed(name, std::move(e));
                   } catch (const py::cast_error& e) {
                     return absl::InvalidArgumentError(absl::StrCat(
                         "python function '", name, "': expected .npy bytes or None: ", e.what()));
                   }
                 });
           })
      .def("add_shape_fn",
           [](api::Functions& fns, const std::string& name, int num_args, py::function fn) {
             Callable f = Hold(std::move(fn));
             fns.AddShapeFn(
                 name, num_args,
                 [f, name](absl::Span<const api::Arg> args) -> absl::StatusOr<api::Built> {
                   py::gil_scoped_acquire gil;
                   if (Stopped()) return absl::CancelledError("stopped");
                   try {
                     py::list a;
                     for (const api::Arg& arg : args) {
                       if (arg.is_operand) {
                         a.append(OperandTuple(arg.operand));
                       } else {
                         a.append(arg.scalar);
                       }
                     }
                     return BuiltFrom((*f)(a), name);
                   } catch (py::error_already_set& e) {
                     return Failed(name, std::move(e));
                   } catch (const py::cast_error& e) {
                     return absl::InvalidArgumentError(absl::StrCat(
                         "python function '", name, "': expected dims or a constant: ", e.what()));
                   }
                 });
           })
      .def("load_plugin", [](api::Functions& fns, const std::string& path) {
        absl::Status s = fns.LoadPlugin(path);
        if (!s.ok()) ThrowStatus(s);
      });
}

}  // namespace egret::python
