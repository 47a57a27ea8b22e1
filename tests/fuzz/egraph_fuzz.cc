// libFuzzer target for the egraph-serialize JSON reader (extraction-gym's
// format, egret/extract/egraph_serialize.h). Bad input must give one error
// line; an accepted problem must be consistent (every node in a class, every
// child a class).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "egret/extract/egraph_serialize.h"
#include "fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using egret::fuzz::Check;
  absl::StatusOr<egret::extract::ExtractionProblem> p =
      egret::extract::ParseEgraphSerialize(egret::fuzz::AsText(data, size), "fuzz.json");
  if (!p.ok()) {
    egret::fuzz::CheckErrorLine(std::string(p.status().message()));
    return 0;
  }
  size_t nodes = 0;
  for (egret::extract::ClassId c = 0; c < p->num_classes(); ++c) {
    nodes += p->class_size(c);
    for (egret::extract::ENodeId n = p->class_begin(c); n < p->class_end(c); ++n) {
      Check(p->node_class(n) == c, "a node outside its class's range");
      for (egret::extract::ClassId k : p->children(n)) {
        Check(k < p->num_classes(), "a child class out of range");
      }
    }
  }
  Check(nodes == p->num_nodes(), "the classes do not cover the nodes");
  for (egret::extract::ClassId r : p->roots()) Check(r < p->num_classes(), "a root out of range");
  return 0;
}
