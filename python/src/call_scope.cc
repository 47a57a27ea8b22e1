#include "python/src/call_scope.h"

#include <utility>

namespace egret::python {
namespace {

thread_local CallScope* current = nullptr;

constexpr std::chrono::milliseconds kSignalCheckInterval(20);

}  // namespace

CallScope::CallScope() : previous_(current), last_check_(std::chrono::steady_clock::now()) {
  current = this;
}

CallScope::~CallScope() { current = previous_; }

CallScope* CallScope::Current() { return current; }

bool CallScope::ShouldStop() {
  if (stopped_) return true;
  const auto now = std::chrono::steady_clock::now();
  if (now - last_check_ < kSignalCheckInterval) return false;
  last_check_ = now;
  py::gil_scoped_acquire gil;
  // Runs the Python-level handler of a pending signal (SIGINT raises
  // KeyboardInterrupt); a no-op off the main thread.
  if (PyErr_CheckSignals() != 0) Fail(py::error_already_set());
  return stopped_;
}

void CallScope::Fail(py::error_already_set error) {
  if (!error_) error_ = std::make_unique<py::error_already_set>(std::move(error));
  stopped_ = true;
}

void CallScope::RaiseIfStopped() {
  if (!error_) return;
  std::unique_ptr<py::error_already_set> error = std::move(error_);
  error->restore();
  throw py::error_already_set();
}

}  // namespace egret::python
