// A compiler's use of egret (docs/library.md walks through it): build a
// convolution block in code, load two rules from a string, one guarded by an
// external constraint this program implements, optimize, and read the typed
// result. Prints a short summary; exits 0 when all is well.
#include <cstdint>
#include <iostream>
#include <string>
#include <vector>

#include "egret/api/egret.h"

namespace {

// The block's rules, in the HTP optimization grammar (docs/rule-language.md).
// EARLY folds the Batchnorm into the convolution's filter and bias; LATE
// lets the convolution compute the Relu, where this program's target says
// its fused kernel supports the output (the external constraint). The
// implementations give the optimizer the ops' costs (cycles per 128-byte
// output vector).
constexpr char kRules[] = R"(
DEF_PACKAGE_OPTIMIZATION(EARLY,
  Op("Batchnorm", Op("Conv2d", "in", LET("f", Op("$Const")), LET("b", Op("$Const")), "s", "p"),
     LET("sc", Op("$Const")), LET("of", Op("$Const"))),
  AND(IS_FLOAT32("f"), IS_FLOAT32("sc")),
  Op("Conv2d", "in",
     WITH_SAME_OUTPUT("f", Op("ElementWiseMultiply", "f", "sc")),
     WITH_SAME_OUTPUT("b", Op("ElementWiseAdd", WITH_SAME_OUTPUT("b", Op("ElementWiseMultiply", "b", "sc")), "of")),
     "s", "p"))

DEF_PACKAGE_OPTIMIZATION(LATE,
  Op("Relu", Op("Conv2d", "in", "f", "b", "s", "p")),
  EXTERNAL_CONSTRAINT(fused_relu_supported, "*", 64),
  Op("Conv2d", "in", "f", "b", "s", "p", gen_Shape(1, 1, 1, 1),
     gen_ConstScalar_f32(0.0f), gen_ConstScalar_f32(INF)))

DEF_PACKAGE_OP_AND_COST_AND_FLAGS((conv2dImpl<Tensor>), "Conv2d", 1024, RESOURCE_HVX)
DEF_PACKAGE_OP_AND_COST_AND_FLAGS((batchnormImpl<Tensor>), "Batchnorm", 4, RESOURCE_HVX)
DEF_PACKAGE_OP_AND_COST_AND_FLAGS((reluImpl<Tensor>), "Relu", 2, RESOURCE_HVX)
DEF_PACKAGE_OP_AND_COST_AND_FLAGS((addImpl<Tensor>), "ElementWiseAdd", 4, RESOURCE_HVX)
DEF_PACKAGE_OP_AND_COST_AND_FLAGS((mulImpl<Tensor>), "ElementWiseMultiply", 4, RESOURCE_HVX)
)";

egret::Tensor Filled(egret::Dims dims, double first, double step) {
  egret::TensorType type(egret::DType::kFloat32, std::move(dims));
  std::vector<double> values(static_cast<size_t>(type.num_elements()));
  for (size_t i = 0; i < values.size(); ++i) values[i] = first + step * static_cast<double>(i % 7);
  return egret::Tensor::FromValues(type, values);
}

// conv 3x3 (16 -> 16 channels) -> batchnorm -> relu on a 1x8x8x16 input.
absl::StatusOr<egret::Graph> BuildBlock() {
  egret::api::GraphBuilder b("consumer");
  egret::ValueRef x = b.Input("x", egret::TensorType(egret::DType::kFloat32, {1, 8, 8, 16}));
  egret::ValueRef conv = b.Op(
      "Conv2d",
      {x, b.Constant("filter", Filled({3, 3, 16, 16}, -0.3, 0.1)),
       b.Constant("bias", Filled({16}, 0.0, 0.01)), b.Shape({1, 1, 1, 1}), b.Shape({1, 1, 1, 1})},
      std::nullopt, "conv");
  egret::ValueRef bn = b.Op("Batchnorm",
                            {conv, b.Constant("scale", Filled({16}, 0.5, 0.1)),
                             b.Constant("offset", Filled({16}, -0.1, 0.05))},
                            std::nullopt, "bn");
  b.Output(b.Op("Relu", {bn}, std::nullopt, "relu"), "y");
  return std::move(b).Build();
}

}  // namespace

int main() {
  absl::StatusOr<egret::Graph> graph = BuildBlock();
  if (!graph.ok()) {
    std::cerr << "consumer: " << graph.status().message() << "\n";
    return 1;
  }

  // The target's fused convolution computes a Relu for outputs of at most
  // args[0] channels.
  int64_t constraint_calls = 0;
  egret::api::Functions functions;
  functions.AddConstraint(
      "fused_relu_supported",
      [&constraint_calls](const egret::api::Operand& out, absl::Span<const double> args) {
        ++constraint_calls;
        return !args.empty() && static_cast<double>(out.type.dim(3)) <= args[0];
      });

  egret::DiagnosticList diags;
  absl::StatusOr<egret::api::Rules> rules = egret::api::Rules::Load(
      {egret::api::RuleSource::Text("<consumer rules>", kRules)}, functions, {}, &diags);
  if (!rules.ok()) {
    std::cerr << diags.ToString() << "consumer: " << rules.status().message() << "\n";
    return 1;
  }

  egret::api::OptimizeOptions options;
  options.extractor = "dag";
  absl::StatusOr<egret::api::OptimizeResult> result =
      egret::api::Optimize(*graph, *rules, options, &diags);
  if (!result.ok()) {
    std::cerr << diags.ToString() << "consumer: " << result.status().message() << "\n";
    return 1;
  }

  std::cout << "graph " << result->graph.name() << ": " << rules->num_rules() << " rules, cost "
            << result->input_cost << " -> " << result->output_cost << " (" << result->extractor
            << ", " << result->stop_reason << ")\n";
  for (const egret::api::OptimizeResult::OpCount& op : result->ops) {
    std::cout << "  op " << op.op << ": " << op.before << " -> " << op.after << "\n";
  }
  // This program's rules (result->rules also lists egret's built-in rewrites).
  for (const egret::api::OptimizeResult::RuleUse& r : result->rules) {
    if (r.rule.find("@<consumer rules>:") == std::string::npos) continue;
    std::cout << "  rule " << r.rule << ": " << r.applications << " applied\n";
  }
  std::cout << "  fused_relu_supported called: " << (constraint_calls > 0 ? "yes" : "no") << "\n";
  return result->rule_issues.empty() ? 0 : 1;
}
