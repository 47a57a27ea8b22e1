// One long call from Python into egret (optimize, run, extract): while egret
// works, the GIL is released so that other Python threads run; Ctrl-C stops
// the call; and an exception a Python callback raises (a constraint function)
// stops it too and is raised to the caller.
//
//   CallScope scope;                       // GIL held
//   absl::StatusOr<X> r;
//   {
//     py::gil_scoped_release release;
//     options.should_stop = [&] { return scope.ShouldStop(); };
//     r = egret::Something(..., options);
//   }
//   scope.RaiseIfStopped();                // the callback's error or KeyboardInterrupt
//
// A callback finds the scope of its thread with CallScope::Current().
#ifndef EGRET_PYTHON_SRC_CALL_SCOPE_H_
#define EGRET_PYTHON_SRC_CALL_SCOPE_H_

#include <pybind11/pybind11.h>

#include <atomic>
#include <chrono>
#include <memory>

namespace egret::python {

namespace py = pybind11;

class CallScope {
 public:
  CallScope();  // the GIL held; becomes this thread's Current()
  ~CallScope();
  CallScope(const CallScope&) = delete;
  CallScope& operator=(const CallScope&) = delete;

  // This thread's innermost scope, or null.
  static CallScope* Current();

  // Called without the GIL, often: true once a callback failed or, on the
  // main thread, Ctrl-C was pressed (Python's signal handlers are run, with
  // the GIL taken for the moment, at most every 20 ms).
  bool ShouldStop();
  // Called by a callback, with the GIL, inside its `catch`: keeps the first
  // exception and stops the call.
  void Fail(py::error_already_set error);
  bool failed() const { return stopped_; }

  // With the GIL, after the call: raises the kept exception, if any.
  void RaiseIfStopped();

 private:
  CallScope* previous_;
  std::atomic<bool> stopped_ = false;
  std::unique_ptr<py::error_already_set> error_;
  std::chrono::steady_clock::time_point last_check_;
};

}  // namespace egret::python

#endif  // EGRET_PYTHON_SRC_CALL_SCOPE_H_
