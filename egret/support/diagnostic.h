// Diagnostics shared by every reader of user input (graphs, rule files, ONNX,
// options): a source location and the one-line "file:line:col: error: ..." form.
#ifndef EGRET_SUPPORT_DIAGNOSTIC_H_
#define EGRET_SUPPORT_DIAGNOSTIC_H_

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"

namespace egret {

// A place in a user's file. line and col are 1-based; 0 means "not known", and
// is left out of the printed form ("file: error: ..." or "file:12: error: ...").
struct SourceLocation {
  std::string file;
  int line = 0;
  int col = 0;

  std::string ToString() const;
};

enum class Severity { kError, kWarning, kNote };

// "file:line:col: error: message" (no trailing newline).
std::string FormatDiagnostic(const SourceLocation& loc, Severity severity,
                             std::string_view message);

// The status every reader returns for bad input: code kInvalidArgument and the
// formatted one-line diagnostic as its message. Callers print message() as is.
absl::Status BadInput(const SourceLocation& loc, std::string_view message);

// 1-based line and column of byte `offset` in `text` (offset past the end
// gives the position just after the last character).
SourceLocation LocationOf(std::string_view file, std::string_view text, size_t offset);

// One diagnostic: where, how bad, what, and optional notes ("in expansion of
// macro X", "previous definition is here", ...) printed as separate lines.
struct Diagnostic {
  Severity severity = Severity::kError;
  SourceLocation loc;
  std::string message;
  std::vector<std::pair<SourceLocation, std::string>> notes;

  // The diagnostic and its notes, one per line, no trailing newline.
  std::string ToString() const;
};

// Collects the diagnostics of one run (several errors per run, in the order
// found) so that a tool can print them all and then fail.
class DiagnosticList {
 public:
  void Add(Diagnostic d);
  void Error(SourceLocation loc, std::string message);
  void Warning(SourceLocation loc, std::string message);

  const std::vector<Diagnostic>& all() const { return diags_; }
  int error_count() const { return errors_; }
  int warning_count() const { return warnings_; }
  bool has_errors() const { return errors_ > 0; }
  // Every diagnostic, each on its own line(s), ending with a newline.
  std::string ToString() const;

 private:
  std::vector<Diagnostic> diags_;
  int errors_ = 0;
  int warnings_ = 0;
};

// Process exit codes of the egret tool, as documented in the README.
inline constexpr int kExitOk = 0;
inline constexpr int kExitCheckFailed = 1;
inline constexpr int kExitBadInput = 2;
// A verification that compared some outputs and found them within tolerance,
// but could not compare every output (backend/verify.h, VerifyVerdict::
// kIncomplete): neither a pass nor a failure.
inline constexpr int kExitUnverified = 3;

// Maps a status to an exit code: kInvalidArgument, kNotFound, kOutOfRange,
// kUnimplemented and kResourceExhausted (input over a limit) are bad input
// (2); everything else that is not OK is a failed check (1).
int ExitCodeFor(const absl::Status& status);

// `text` with every control character (newline, carriage return, NUL, ...)
// written as a C escape (\n, \r, \x00), so that a message quoting names
// taken from an input file stays on one line.
std::string EscapeControlChars(std::string_view text);

}  // namespace egret

#endif  // EGRET_SUPPORT_DIAGNOSTIC_H_
