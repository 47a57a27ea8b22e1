// Helpers shared by the fuzz targets (tests/fuzz/): contract checks that abort
// (so libFuzzer reports them) and a private temporary directory for readers
// that only take a path.
#ifndef EGRET_TESTS_FUZZ_FUZZ_UTIL_H_
#define EGRET_TESTS_FUZZ_FUZZ_UTIL_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace egret::fuzz {

// Aborts with "contract broken: <what>" when !ok.
void Check(bool ok, const char* what);

// Checks the reader contract for an error: a non-empty, one-line message.
// Prints the message when it is broken.
void CheckErrorLine(const std::string& message);

// A directory made once per process (mkdtemp under $TMPDIR or /tmp) and
// removed with its files at exit.
const std::string& TempDir();

// Writes `bytes` to TempDir()/name, replacing it; aborts when it cannot.
std::string WriteTempFile(std::string_view name, std::string_view bytes);

// The input as text.
inline std::string_view AsText(const uint8_t* data, size_t size) {
  return std::string_view(reinterpret_cast<const char*>(data), size);
}

}  // namespace egret::fuzz

#endif  // EGRET_TESTS_FUZZ_FUZZ_UTIL_H_
