// architecture_doc: renders docs/architecture.md's stages block from the
// stage manifest (architecture_doc.h).
//
//   architecture_doc [--manifest FILE]                prints the block
//   architecture_doc [--manifest FILE] --write DOC    replaces DOC's block
//   architecture_doc [--manifest FILE] --check DOC    exit 1 when DOC is stale
//
// FILE defaults to the build's egret_stages.txt.
#include <iostream>
#include <string>
#include <string_view>

#include "egret/support/file_io.h"
#include "tests/layering/architecture_doc.h"
#include "tests/layering/layering_check.h"

int main(int argc, char** argv) {
  using namespace egret::layering;
  std::string manifest_path = EGRET_BINARY_DIR "/egret_stages.txt";
  std::string write_path;
  std::string check_path;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (i + 1 < argc && arg == "--manifest") {
      manifest_path = argv[++i];
    } else if (i + 1 < argc && arg == "--write") {
      write_path = argv[++i];
    } else if (i + 1 < argc && arg == "--check") {
      check_path = argv[++i];
    } else {
      std::cerr << "usage: architecture_doc [--manifest FILE] [--write DOC | --check DOC]\n";
      return 2;
    }
  }
  absl::StatusOr<Manifest> manifest = ReadManifest(manifest_path);
  if (!manifest.ok()) {
    std::cerr << manifest.status().message() << "\n";
    return 1;
  }
  if (write_path.empty() && check_path.empty()) {
    std::cout << RenderStagesBlock(*manifest);
    return 0;
  }
  const std::string& doc_path = write_path.empty() ? check_path : write_path;
  absl::StatusOr<std::string> doc = egret::ReadFile(doc_path);
  if (!doc.ok()) {
    std::cerr << "architecture_doc: " << doc.status().message() << "\n";
    return 1;
  }
  if (!check_path.empty()) {
    absl::Status status = CheckArchitectureDoc(*doc, doc_path, *manifest);
    if (!status.ok()) std::cerr << status.message() << "\n";
    return status.ok() ? 0 : 1;
  }
  absl::StatusOr<std::string> updated = ReplaceStagesBlock(*doc, RenderStagesBlock(*manifest));
  if (!updated.ok()) {
    std::cerr << doc_path << ": " << updated.status().message() << "\n";
    return 1;
  }
  if (*updated == *doc) return 0;
  absl::Status written = egret::WriteFileAtomically(doc_path, *updated);
  if (!written.ok()) {
    std::cerr << "architecture_doc: " << written.message() << "\n";
    return 1;
  }
  std::cout << "architecture_doc: updated " << doc_path << "\n";
  return 0;
}
