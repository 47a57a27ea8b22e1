// ONNX Runtime's own transformer test models (tests/onnx/testdata/
// ort_transformers/, README.md there names their source): graphs as ONNX
// Runtime's transformer optimizer writes them, with its com.microsoft ops
// (Attention, MultiHeadAttention, SkipLayerNormalization, BiasGelu, FastGelu,
// QuickGelu, EmbedLayerNormalization). Each is imported with its symbolic
// dims at the sizes stated below (nothing may stay opaque), optimized with
// the shipped rule library, and the optimized graph is run by egret's
// reference executor and compared with ONNX Runtime running the model on the
// same random inputs.
//
// Imported only (ModelsImportedOnly): gpt2_megatron_opt_skiplayernorm.onnx,
// which ONNX Runtime's CPU provider cannot run (its Attention takes a 4-D
// mask: "4D mask in attention cpu kernel is not supported"), imports with that
// Attention opaque; mlm_bert_e2e.onnx ends in SoftmaxCrossEntropyLossInternal, a training op
// (ONNX Runtime's training build only, outside the ops decomposed here),
// whose untypeable output fails the import with the value_info hint.
//
// Skips the comparisons when node or onnxruntime-node is missing
// (scripts/fetch-models).
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/str_join.h"
#include "egret/executor/test_data.h"
#include "egret/graph/op_table.h"
#include "egret/onnx/onnx_reader.h"
#include "egret/onnx/onnx_writer.h"
#include "egret/pipeline/optimize.h"
#include "ort_oracle.h"
#include "tests/lib/shipped_library.h"

namespace egret {
namespace {

using testing::CompareWithOrt;
using testing::OracleComparison;
using testing::OrtUnavailableReason;

std::string ModelPath(const std::string& file) {
  return std::string(EGRET_SOURCE_DIR) + "/tests/onnx/testdata/ort_transformers/" + file;
}

struct ModelCase {
  std::string file;
  std::map<std::string, int64_t, std::less<>> dims;  // symbolic dim sizes
  // A 0/1 attention mask input, given as ones but for its second element
  // (random values would mask whole rows, whose scores then differ only by
  // the rounding of score - 10000).
  std::string mask = "";
  // The absolute tolerance. The GPT-2 layers' weights are all ones: the
  // attention block adds about 4100 to every element of the residual before
  // the last layer normalization, whose float32 rounding (about 5e-4) that
  // normalization then scales up, in any order of summation.
  double atol = 1e-4;
  // Integer inputs given one value for every element (the default: 0 and 1
  // alternating).
  std::map<std::string, double, std::less<>> ints = {};
};

// The models ONNX Runtime runs, with their symbolic dims' sizes.
const std::vector<ModelCase>& Models() {
  static const auto* const kModels = new std::vector<ModelCase>{
      {"gpt2_one_layer.onnx", {{"batch_size", 2}, {"seq_len", 3}}},
      {"gpt2_past_one_layer.onnx", {{"batch_size", 2}, {"seq_len", 3}, {"past_seq_len", 4}}},
      {"gpt2_past_mask_one_layer.onnx",
       {{"batch_size", 2}, {"seq_len", 3}, {"past_seq_len", 4}, {"past_seq_len+seq_len", 7}},
       "attention_mask"},
      {"attention_past_unidir.onnx",
       {{"batch_size", 2}, {"seq_len", 3}, {"past_seq_len", 4}, {"total_seq_len", 7}},
       "attention_mask"},
      {"embed_layer_norm_format3.onnx", {{"batch", 2}}, "input_mask"},
      {"embed_layer_norm_multiple.onnx", {{"batch", 2}}},
      {"test_dangling_input_segment_ids.onnx", {}},
      {"bart_mlp_megatron_basic_test.onnx", {{"batch", 2}, {"seqlen", 3}}},
      {"attention_opt.onnx", {}},
      {"attention_mha.onnx", {}},
      {"attention_with_varied_qkv_opt.onnx", {}},
      {"bert_3d_attention_opt.onnx", {}},
      {"pruned_attention_opt.onnx", {}},
      {"gpt2_attention_opt_skiplayernorm.onnx",
       {{"batch_size", 2},
        {"sequence_length", 3},
        {"past_sequence_length", 4},
        {"past_sequence_length + sequence_length", 7}},
       "input_mask",
       5e-3},
      {"gpt2_attention_add_opt_no_skiplayernorm.onnx",
       {{"batch_size", 2},
        {"sequence_length", 3},
        {"past_sequence_length", 4},
        {"past_sequence_length + sequence_length", 7}},
       "input_mask",
       5e-3},
      {"whisper_oai_fp32_encoder_self_attention.onnx", {}},
      {"whisper_hf_fp32_decoder_attention_no_past.onnx", {}},
      {"whisper_hf_fp32_decoder_attention_with_past_split_bias.onnx", {}},
      {"whisper_oai_fp32_decoder_attention_with_past.onnx", {}},
      {"phi-3.5-v-instruct-vision-attention.onnx", {}},
      {"phi-3.5-v-instruct-vision-quickgelu.onnx", {}},
      {"phi-4-v-instruct-vision-attention.onnx", {{"batch", 2}, {"seq", 5}}},
      {"gemma3-vision-attention_fp32.onnx", {}},
      // One new token over a shared KV buffer with cache indirection: 3 of
      // the 8 slots filled, one beam.
      {"dmmha_inside_mha_self_attn.onnx",
       {{"batch_size", 2}, {"sequence_length", 1}, {"max_sequence_length", 8}, {"num_beams", 1}},
       "",
       1e-4,
       {{"past_seq_len", 3}, {"cache_indir", 0}}},
      {"microbench_fast_gelu_fp32.onnx", {{"batch", 2}, {"seq_len", 4}, {"inter_dim", 32}}},
      {"microbench_skip_layer_norm_fp32.onnx", {{"batch", 2}, {"seq_len", 4}, {"hidden_size", 32}}},
      {"microbench_attention_fp32.onnx",
       {{"batch_size", 2}, {"seq_len", 4}, {"hidden_size", 24}, {"len", 72}}},
  };
  return *kModels;
}

// The model imported at its case's sizes, and optimized with the shipped
// rule library.
struct Optimized {
  Graph input;
  OptimizeResult result;
};
absl::StatusOr<Optimized> ImportAndOptimize(const ModelCase& m) {
  OnnxImportOptions import;
  import.dim_params = m.dims;
  absl::StatusOr<Graph> g = ReadOnnx(ModelPath(m.file), import);
  if (!g.ok()) return g.status();
  DiagnosticList diags;
  absl::StatusOr<OptimizeResult> r = Optimize(*g, testing::ShippedLibrary(), {}, &diags);
  if (!r.ok()) return r.status();
  return Optimized{*std::move(g), *std::move(r)};
}

TEST(OrtTransformers, ImportOptimizeAndVerifyAgainstOrt) {
  for (const ModelCase& m : Models()) {
    SCOPED_TRACE(m.file);
    absl::StatusOr<Optimized> o = ImportAndOptimize(m);
    ASSERT_TRUE(o.ok()) << o.status();
    const Graph* g = &o->input;
    const OptimizeResult* r = &o->result;
    for (const Node& n : g->nodes()) EXPECT_TRUE(IsKnownOp(n.op)) << m.file << ": " << n.op;
    EXPECT_LE(r->output_cost, r->input_cost);
    if (const std::string why = OrtUnavailableReason(); !why.empty()) GTEST_SKIP() << why;
    absl::StatusOr<std::vector<Tensor>> inputs = MakeRandomInputs(*g, /*seed=*/5);
    ASSERT_TRUE(inputs.ok()) << inputs.status();
    // Integer inputs (token, position and segment ids) are 0 or 1, in range
    // of the smallest embedding table; the mask is as ModelCase says.
    for (size_t i = 0; i < g->inputs().size(); ++i) {
      Tensor& t = (*inputs)[i];
      const std::string& name = g->node(g->inputs()[i]).name;
      const bool mask = !m.mask.empty() && name == m.mask;
      if (!mask && !IsPlainInteger(t.type().dtype)) continue;
      const auto given = m.ints.find(name);
      for (int64_t e = 0; e < t.num_elements(); ++e) {
        t.SetReal(e, given != m.ints.end() ? given->second
                     : mask                ? (e == 1 ? 0.0 : 1.0)
                                           : static_cast<double>(e % 2));
      }
    }
    // ONNX Runtime computes each node as written: with its graph optimizer
    // on, the GPT-2 layers' results move by up to 2e-3 more (its fusions
    // rewrite their Add + LayerNormalization, whose epsilon attribute is
    // misspelled "epsion").
    testing::OrtRunOptions ort;
    ort.optimize = false;
    for (const Graph* graph : {&*g, &r->graph}) {
      absl::StatusOr<OracleComparison> c =
          CompareWithOrt(ModelPath(m.file), *graph, *inputs, {}, 1e-3, m.atol, ort);
      ASSERT_TRUE(c.ok()) << c.status();
      EXPECT_EQ(c->verified, c->outputs) << absl::StrJoin(c->not_verified, "; ");
      EXPECT_TRUE(c->mismatches.empty()) << absl::StrJoin(c->mismatches, "; ");
    }
  }
}

// Every optimized model written as ONNX passes ONNX's checker (the writer's
// tidy pass once left whisper_hf_fp32_decoder_attention_no_past with a
// Reshape reading a tensor no node made: write_tidy_test.cc). Needs no
// ONNX Runtime.
TEST(OrtTransformers, OptimizedModelsWriteAsCheckedOnnx) {
  for (const ModelCase& m : Models()) {
    SCOPED_TRACE(m.file);
    absl::StatusOr<Optimized> o = ImportAndOptimize(m);
    ASSERT_TRUE(o.ok()) << o.status();
    absl::StatusOr<std::string> bytes = WriteOnnxBytes(o->result.graph, m.file);
    EXPECT_TRUE(bytes.ok()) << bytes.status();
  }
}

// The models imported only (ONNX Runtime cannot run them, or they use a
// form kept opaque): the node left opaque (op and reason), or the import's
// error.
TEST(OrtTransformers, ModelsImportedOnly) {
  struct Case {
    std::string file;
    std::map<std::string, int64_t, std::less<>> dims;
    std::string opaque_op, reason, error;
  };
  const std::vector<Case> cases = {
      // Its Attention takes a 4-D mask, which ONNX Runtime's CPU kernel rejects
      // ("4D mask in attention cpu kernel is not supported").
      {"gpt2_megatron_opt_skiplayernorm.onnx",
       {{"batch_size", 1}, {"seq_len", 4}, {"past_seq_len", 3}},
       "onnx.com.microsoft.Attention",
       "the mask shape [1,1,64,64] is not mapped",
       ""},
      // Ends in SoftmaxCrossEntropyLossInternal, a training op of ONNX
      // Runtime's training build (not in onnxruntime-node), which nothing types.
      {"mlm_bert_e2e.onnx",
       {{"batch_size", 1}, {"sequence_length", 4}, {"batch_size*sequence_length", 4}},
       "",
       "",
       "node 'sceloss0' (SoftmaxCrossEntropyLossInternal): unmapped op (kept opaque): the type "
       "of output 'sce_out0' is unknown"},
  };
  for (const Case& k : cases) {
    SCOPED_TRACE(k.file);
    OnnxImportOptions import;
    import.dim_params = k.dims;
    absl::StatusOr<Graph> g = ReadOnnx(ModelPath(k.file), import);
    if (!k.error.empty()) {
      ASSERT_FALSE(g.ok());
      EXPECT_NE(g.status().message().find(k.error), std::string::npos) << g.status();
      continue;
    }
    ASSERT_TRUE(g.ok()) << g.status();
    int opaque = 0;
    for (const Node& n : g->nodes()) {
      if (IsKnownOp(n.op)) continue;
      ++opaque;
      EXPECT_EQ(n.op, k.opaque_op);
      auto it = n.attrs.find("onnx.unmapped");
      ASSERT_NE(it, n.attrs.end());
      EXPECT_EQ(std::get<std::string>(it->second), k.reason);
    }
    EXPECT_EQ(opaque, 1);
  }
}

}  // namespace
}  // namespace egret
