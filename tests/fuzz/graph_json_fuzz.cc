// libFuzzer target for egret's graph JSON reader with its binary sidecar. The
// input is the JSON text, optionally followed by kSidecarSeparator and the
// sidecar's bytes, which are written to "g.bin" in a private directory (the
// seeds name that file). A graph the reader accepts must pass Validate() and
// survive a write and a re-read.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "egret/graph/graph.h"
#include "egret/graph/graph_json.h"
#include "fuzz_util.h"

namespace {

constexpr std::string_view kSidecarSeparator = "\n--egret-sidecar--\n";
constexpr uint64_t kMaxFileBytes = uint64_t{1} << 20;

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using egret::fuzz::Check;
  std::string_view text = egret::fuzz::AsText(data, size);
  std::string_view sidecar;
  bool has_sidecar = false;
  if (size_t sep = text.find(kSidecarSeparator); sep != std::string_view::npos) {
    sidecar = text.substr(sep + kSidecarSeparator.size());
    text = text.substr(0, sep);
    has_sidecar = true;
  }
  const std::string& dir = egret::fuzz::TempDir();
  if (has_sidecar) egret::fuzz::WriteTempFile("g.bin", sidecar);
  absl::StatusOr<egret::Graph> g = egret::ParseGraphJson(text, "fuzz.json", dir, kMaxFileBytes);
  if (has_sidecar) std::remove((dir + "/g.bin").c_str());
  if (!g.ok()) {
    egret::fuzz::CheckErrorLine(std::string(g.status().message()));
    return 0;
  }
  Check(g->Validate().ok(), "an accepted graph fails Validate()");
  absl::StatusOr<std::string> out = egret::GraphToJsonString(*g);
  Check(out.ok(), "an accepted graph cannot be written");
  absl::StatusOr<egret::Graph> back = egret::ParseGraphJson(*out, "out.json", "", kMaxFileBytes);
  Check(back.ok(), "a written graph cannot be read back");
  Check(back->num_nodes() == g->num_nodes(), "node count changes across a round trip");
  return 0;
}
