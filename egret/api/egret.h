// egret as a library: everything a compiler needs to optimize a graph.
//
//   api/graph_builder.h  build a Graph in code (graph/graph.h is the IR)
//   api/graph_files.h    read and write graphs (JSON, ONNX, DOT)
//   api/functions.h      external functions rules call (EXTERNAL_CONSTRAINT, ...)
//   api/rules.h          load rules from files or strings
//   api/optimize.h       optimize with options; the typed result; extractors
//   api/verify.h         check a result against its input on the reference executor
//
// docs/library.md walks through examples/consumer, a complete use. These
// headers (and those they include) are the ones `cmake --install` installs;
// the rest of egret is internal and may change without notice.
#ifndef EGRET_API_EGRET_H_
#define EGRET_API_EGRET_H_

#include "egret/api/functions.h"
#include "egret/api/graph_builder.h"
#include "egret/api/graph_files.h"
#include "egret/api/optimize.h"
#include "egret/api/rules.h"
#include "egret/api/verify.h"
#include "egret/graph/graph.h"
#include "egret/support/diagnostic.h"

#endif  // EGRET_API_EGRET_H_
