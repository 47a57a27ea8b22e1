#include "egret/support/diagnostic.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace egret {

std::string SourceLocation::ToString() const {
  std::string out = file.empty() ? std::string("<input>") : file;
  if (line > 0) {
    absl::StrAppend(&out, ":", line);
    if (col > 0) absl::StrAppend(&out, ":", col);
  }
  return out;
}

std::string FormatDiagnostic(const SourceLocation& loc, Severity severity,
                             std::string_view message) {
  std::string_view kind = severity == Severity::kError     ? "error"
                          : severity == Severity::kWarning ? "warning"
                                                           : "note";
  return absl::StrCat(loc.ToString(), ": ", std::string(kind), ": ", std::string(message));
}

absl::Status BadInput(const SourceLocation& loc, std::string_view message) {
  return absl::InvalidArgumentError(FormatDiagnostic(loc, Severity::kError, message));
}

SourceLocation LocationOf(std::string_view file, std::string_view text, size_t offset) {
  SourceLocation loc{std::string(file), 1, 1};
  if (offset > text.size()) offset = text.size();
  for (size_t i = 0; i < offset; ++i) {
    if (text[i] == '\n') {
      ++loc.line;
      loc.col = 1;
    } else {
      ++loc.col;
    }
  }
  return loc;
}

std::string Diagnostic::ToString() const {
  std::string out = FormatDiagnostic(loc, severity, message);
  for (const auto& [nloc, note] : notes) {
    absl::StrAppend(&out, "\n", FormatDiagnostic(nloc, Severity::kNote, note));
  }
  return out;
}

void DiagnosticList::Add(Diagnostic d) {
  if (d.severity == Severity::kError) ++errors_;
  if (d.severity == Severity::kWarning) ++warnings_;
  diags_.push_back(std::move(d));
}

void DiagnosticList::Error(SourceLocation loc, std::string message) {
  Add(Diagnostic{Severity::kError, std::move(loc), std::move(message), {}});
}

void DiagnosticList::Warning(SourceLocation loc, std::string message) {
  Add(Diagnostic{Severity::kWarning, std::move(loc), std::move(message), {}});
}

std::string DiagnosticList::ToString() const {
  std::string out;
  for (const Diagnostic& d : diags_) absl::StrAppend(&out, d.ToString(), "\n");
  return out;
}

int ExitCodeFor(const absl::Status& status) {
  switch (status.code()) {
    case absl::StatusCode::kOk:
      return kExitOk;
    case absl::StatusCode::kInvalidArgument:
    case absl::StatusCode::kNotFound:
    case absl::StatusCode::kOutOfRange:
    case absl::StatusCode::kUnimplemented:
    case absl::StatusCode::kResourceExhausted:
      return kExitBadInput;
    default:
      return kExitCheckFailed;
  }
}

std::string EscapeControlChars(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char ch : text) {
    const unsigned char c = static_cast<unsigned char>(ch);
    if (c == '\n') {
      out += "\\n";
    } else if (c == '\r') {
      out += "\\r";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c < 0x20 || c == 0x7f) {
      out += absl::StrFormat("\\x%02x", c);
    } else {
      out += ch;
    }
  }
  return out;
}

}  // namespace egret
