#include "fuzz_util.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>

namespace egret::fuzz {

void Check(bool ok, const char* what) {
  if (!ok) {
    std::fprintf(stderr, "contract broken: %s\n", what);
    std::abort();
  }
}

void CheckErrorLine(const std::string& message) {
  if (message.empty() || message.find('\n') != std::string::npos) {
    std::fprintf(stderr, "error message: [%.*s]\n", static_cast<int>(message.size()),
                 message.data());
    Check(!message.empty(), "error without a message");
    Check(false, "multi-line error");
  }
}

namespace {

void RemoveTempDir() {
  std::error_code ec;
  std::filesystem::remove_all(TempDir(), ec);
}

}  // namespace

const std::string& TempDir() {
  static const std::string* dir = [] {
    const char* base = std::getenv("TMPDIR");
    std::string pattern =
        std::string(base != nullptr && *base != '\0' ? base : "/tmp") + "/egret-fuzz-XXXXXX";
    Check(::mkdtemp(pattern.data()) != nullptr, "mkdtemp failed");
    auto* d = new std::string(pattern);
    std::atexit(RemoveTempDir);
    return d;
  }();
  return *dir;
}

std::string WriteTempFile(std::string_view name, std::string_view bytes) {
  std::string path = TempDir() + "/" + std::string(name);
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  out.close();
  Check(static_cast<bool>(out), "cannot write a temporary file");
  return path;
}

}  // namespace egret::fuzz
