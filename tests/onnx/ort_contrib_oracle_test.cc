// ONNX Runtime as the oracle for its com.microsoft transformer ops, which the
// importer decomposes into standard ops (egret/onnx/import_contrib.cc): the
// activations (FastGelu, BiasGelu, Gelu, QuickGelu), BiasAdd, the
// normalizations (SkipLayerNormalization, SkipSimplifiedLayerNormalization,
// SimplifiedLayerNormalization in both domains, EmbedLayerNormalization),
// RotaryEmbedding and float16 nodes (the attentions:
// ort_contrib_attention_test.cc). Each supported form is a small model,
// imported (nothing may stay opaque), run by egret's reference executor and
// by ONNX Runtime on the same seeded random inputs, and compared. Also: an
// unsupported form stays opaque with its reason, malformed nodes do not
// crash, and an op nobody can type fails with a one-line error saying how to
// give the type.
//
// Skips the ONNX Runtime comparisons when node or onnxruntime-node is missing
// (scripts/fetch-models).
#include "tests/onnx/ort_contrib_test_util.h"

namespace egret {
namespace {

TEST(OrtContribOracle, Activations) {
  for (bool bias : {false, true}) {
    OnnxBuilder b = MsBuilder();
    b.Input("x", {2, 3, 8});
    std::vector<std::string> in = {"x"};
    if (bias) {
      b.Initializer("bias", {8}, Ramp(8, 0.1f));
      in.push_back("bias");
    }
    b.DomainNode(kMs, "FastGelu", in, {"fast"});
    b.Output("fast");
    if (bias) {
      b.DomainNode(kMs, "BiasGelu", in, {"erf"});
    } else {
      b.DomainNode(kMs, "Gelu", in, {"erf"});
    }
    b.Output("erf");
    b.DomainNode(kMs, "QuickGelu", {"x"}, {"quick"});
    b.Output("quick");
    OnnxBuilder::AttrFloat(b.DomainNode(kMs, "QuickGelu", {"x"}, {"silu"}), "alpha", 1.0f);
    b.Output("silu");
    CheckAgainstOrt(bias ? "activations_bias" : "activations", b);
  }
}

// ONNX Runtime has no CPU kernel for BiasAdd (only CUDA's): the oracle runs
// the same sum written in standard ops.
TEST(OrtContribOracle, BiasAdd) {
  if (const std::string why = OrtUnavailableReason(); !why.empty()) GTEST_SKIP() << why;
  auto build = [](bool contrib) {
    OnnxBuilder b = MsBuilder();
    b.Input("x", {2, 4, 8});
    b.Input("skip", {2, 4, 8});
    b.Initializer("bias", {8}, Ramp(8, 0.1f));
    if (contrib) {
      b.DomainNode(kMs, "BiasAdd", {"x", "bias", "skip"}, {"y"});
    } else {
      b.Node("Add", {"x", "bias"}, {"xb"});
      b.Node("Add", {"xb", "skip"}, {"y"});
    }
    b.Output("y");
    return b;
  };
  absl::StatusOr<Graph> g = ParseOnnx(build(true).Bytes(), "bias_add.onnx");
  ASSERT_TRUE(g.ok()) << g.status();
  for (const Node& n : g->nodes()) ASSERT_TRUE(IsKnownOp(n.op)) << n.op;
  const fs::path dir = fs::path(::testing::TempDir()) / "ort_contrib_bias_add";
  fs::create_directories(dir);
  const std::string reference = (dir / "reference.onnx").string();
  ASSERT_TRUE(WriteFileAtomically(reference, build(false).Bytes()).ok());
  absl::StatusOr<std::vector<Tensor>> inputs = MakeRandomInputs(*g, /*seed=*/17);
  ASSERT_TRUE(inputs.ok()) << inputs.status();
  absl::StatusOr<OracleComparison> c = CompareWithOrt(reference, *g, *inputs, {}, 1e-5, 1e-6);
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->verified, c->outputs);
  EXPECT_TRUE(c->mismatches.empty()) << absl::StrJoin(c->mismatches, "; ");
  fs::remove_all(dir);
}

TEST(OrtContribOracle, SkipLayerNormalization) {
  for (int form = 0; form < 3; ++form) {
    OnnxBuilder b = MsBuilder();
    b.Input("x", {2, 3, 16});
    b.Input("skip", form == 2 ? std::vector<int64_t>{3, 16} : std::vector<int64_t>{2, 3, 16});
    b.Initializer("gamma", {16}, Ramp(16, 0.2f));
    b.Initializer("beta", {16}, Ramp(16, 0.05f));
    b.Initializer("bias", {16}, Ramp(16, 0.03f));
    std::vector<std::string> in = {"x", "skip", "gamma"};
    if (form >= 1) in.insert(in.end(), {"beta", "bias"});
    auto* n = b.DomainNode(kMs, "SkipLayerNormalization", in, {"y", "", "", "sum"});
    OnnxBuilder::AttrFloat(n, "epsilon", 1e-5f);
    b.Output("y");
    b.Output("sum");
    CheckAgainstOrt(absl::StrCat("skip_layer_norm", form), b);
  }
}

TEST(OrtContribOracle, SimplifiedLayerNormalizations) {
  OnnxBuilder b = MsBuilder();
  b.Input("x", {2, 3, 16});
  b.Input("skip", {2, 3, 16});
  b.Initializer("gamma", {16}, Ramp(16, 0.2f));
  b.Initializer("bias", {16}, Ramp(16, 0.03f));
  auto* s = b.DomainNode(kMs, "SkipSimplifiedLayerNormalization", {"x", "skip", "gamma", "bias"},
                         {"y", "", "", "sum"});
  OnnxBuilder::AttrFloat(s, "epsilon", 1e-6f);
  b.Output("y");
  b.Output("sum");
  b.DomainNode(kMs, "SkipSimplifiedLayerNormalization", {"x", "skip", "gamma"}, {"y2"});
  b.Output("y2");
  // ONNX Runtime registers SimplifiedLayerNormalization in the default domain.
  auto* r = b.Node("SimplifiedLayerNormalization", {"x", "gamma"}, {"rms"});
  OnnxBuilder::AttrFloat(r, "epsilon", 1e-6f);
  b.Output("rms");
  CheckAgainstOrt("simplified_layer_norm", b);
}

TEST(OrtContribOracle, EmbedLayerNormalization) {
  for (bool full : {false, true}) {
    OnnxBuilder b = MsBuilder();
    b.Input("ids", {2, 5}, onnx::TensorProto::INT32);
    b.Initializer("word", {16, 8}, Ramp(16 * 8, 0.1f));
    b.Initializer("pos", {16, 8}, Ramp(16 * 8, 0.07f));
    b.Initializer("gamma", {8}, Ramp(8, 0.2f));
    b.Initializer("beta", {8}, Ramp(8, 0.05f));
    std::vector<std::string> in = {"ids", "", "word", "pos", "", "gamma", "beta"};
    if (full) {
      b.Input("segments", {2, 5}, onnx::TensorProto::INT32);
      b.Initializer("seg", {16, 8}, Ramp(16 * 8, 0.03f));
      b.Input("mask", {2, 5}, onnx::TensorProto::INT32);
      b.Input("position_ids", {1, 5}, onnx::TensorProto::INT32);
      in = {"ids", "segments", "word", "pos", "seg", "gamma", "beta", "mask", "position_ids"};
    }
    b.DomainNode(kMs, "EmbedLayerNormalization", in, {"y", "mask_index", "sum"});
    b.Output("y");
    b.Output("mask_index");
    b.Output("sum");
    std::map<std::string, std::vector<int32_t>> given;
    if (full) given["mask"] = {1, 1, 1, 0, 0, 1, 1, 1, 1, 1};
    CheckAgainstOrt(full ? "embed_layer_norm_full" : "embed_layer_norm", b, given);
  }
}

TEST(OrtContribOracle, RotaryEmbedding) {
  struct Case {
    std::string name;
    bool bnsh, interleaved, one_position, partial;
  };
  const std::vector<Case> cases = {
      {"bsh_rotate_half", false, false, false, false},
      {"bsh_interleaved", false, true, false, false},
      {"bnsh_rotate_half_first_position", true, false, true, false},
      {"bnsh_interleaved_first_position", true, true, true, false},
      {"bsh_partial", false, false, false, true},
      {"bsh_partial_interleaved", false, true, true, true},
  };
  for (const Case& k : cases) {
    const int64_t batch = 2, seq = 3, heads = 2, head = 8, rot = k.partial ? 4 : head;
    OnnxBuilder b = MsBuilder();
    b.Input("x", k.bnsh ? std::vector<int64_t>{batch, heads, seq, head}
                        : std::vector<int64_t>{batch, seq, heads * head});
    if (k.one_position) {
      b.Input("pos", {1}, onnx::TensorProto::INT64);
    } else {
      b.Input("pos", {batch, seq}, onnx::TensorProto::INT64);
    }
    b.Initializer("cos", {20, rot / 2}, Ramp(20 * rot / 2, 0.15f));
    b.Initializer("sin", {20, rot / 2}, Ramp(20 * rot / 2, -0.11f));
    auto* n = b.DomainNode(kMs, "RotaryEmbedding", {"x", "pos", "cos", "sin"}, {"y"});
    OnnxBuilder::AttrInt(n, "interleaved", k.interleaved);
    if (k.partial) {
      OnnxBuilder::AttrInt(n, "rotary_embedding_dim", rot);
      OnnxBuilder::AttrInt(n, "num_heads", heads);
    }
    b.Output("y");
    CheckAgainstOrt("rotary_" + k.name, b);
  }
}

// float16 nodes (those ONNX Runtime has float16 CPU kernels for) run in
// float32 between Casts, as ONNX Runtime computes them. Weights are inputs.
TEST(OrtContribOracle, Float16) {
  constexpr int kHalf = onnx::TensorProto::FLOAT16;
  {
    OnnxBuilder b = MsBuilder();
    b.Input("x", {2, 3, 16}, kHalf);
    b.Input("skip", {2, 3, 16}, kHalf);
    b.Input("gamma", {16}, kHalf);
    b.Input("beta", {16}, kHalf);
    b.Node("SimplifiedLayerNormalization", {"x", "gamma"}, {"rms"});
    b.DomainNode(kMs, "SkipSimplifiedLayerNormalization", {"x", "skip", "gamma"},
                 {"srms", "", "", "sum"});
    b.DomainNode(kMs, "SkipLayerNormalization", {"x", "skip", "gamma", "beta"}, {"sln"});
    for (const char* o : {"rms", "srms", "sum", "sln"}) b.Output(o);
    CheckAgainstOrt("float16_norms", b, {}, false, 1e-2);
  }
  {
    OnnxBuilder b = MsBuilder();
    b.Input("x", {1, 3, 32}, kHalf);
    b.Input("pos", {1, 3}, onnx::TensorProto::INT64);
    b.Input("cos", {16, 8}, kHalf);
    b.Input("sin", {16, 8}, kHalf);
    b.DomainNode(kMs, "RotaryEmbedding", {"x", "pos", "cos", "sin"}, {"y"});
    b.Output("y");
    CheckAgainstOrt("float16_rotary", b, {}, false, 1e-2);
  }
  {
    const int64_t heads = 4, kv_heads = 2, h = 16, past = 5;
    OnnxBuilder b = MsBuilder();
    b.Input("q", {1, 1, heads * h}, kHalf);
    b.Input("k", {1, 1, kv_heads * h}, kHalf);
    b.Input("v", {1, 1, kv_heads * h}, kHalf);
    b.Input("past_k", {1, kv_heads, past, h}, kHalf);
    b.Input("past_v", {1, kv_heads, past, h}, kHalf);
    b.InitializerInt32("seqlens_k", {1}, {static_cast<int32_t>(past)});
    b.InitializerInt32("total_len", {}, {static_cast<int32_t>(past + 1)});
    b.Input("cos", {16, h / 2}, kHalf);
    b.Input("sin", {16, h / 2}, kHalf);
    auto* n =
        b.DomainNode(kMs, "GroupQueryAttention",
                     {"q", "k", "v", "past_k", "past_v", "seqlens_k", "total_len", "cos", "sin"},
                     {"y", "present_k", "present_v"});
    OnnxBuilder::AttrInt(n, "num_heads", heads);
    OnnxBuilder::AttrInt(n, "kv_num_heads", kv_heads);
    OnnxBuilder::AttrInt(n, "do_rotary", 1);
    for (const char* o : {"y", "present_k", "present_v"}) b.Output(o);
    CheckAgainstOrt("float16_gqa", b, {}, false, 1e-2);
  }
}

// A form the decomposition does not cover stays opaque, with the reason, and
// typed as ONNX Runtime types it.
TEST(OrtContribImport, UnsupportedFormStaysOpaqueWithReason) {
  OnnxBuilder b = MsBuilder();
  b.Input("q", {2, 3, 8});
  b.Input("k", {2, 4, 8});
  b.Input("v", {2, 4, 8});
  b.Input("mask", {3 * 2 + 2}, onnx::TensorProto::INT32);  // (3B+2): packed-sequence offsets
  auto* n = b.DomainNode(kMs, "MultiHeadAttention", {"q", "k", "v", "", "mask"}, {"y"});
  OnnxBuilder::AttrInt(n, "num_heads", 2);
  b.Output("y");
  absl::StatusOr<Graph> g = ParseOnnx(b.Bytes(), "mha_mask.onnx");
  ASSERT_TRUE(g.ok()) << g.status();
  bool found = false;
  for (const Node& node : g->nodes()) {
    if (node.op != "onnx.com.microsoft.MultiHeadAttention") continue;
    found = true;
    auto it = node.attrs.find("onnx.unmapped");
    ASSERT_NE(it, node.attrs.end());
    EXPECT_EQ(std::get<std::string>(it->second), "the mask shape [8] is not mapped");
    ASSERT_EQ(node.outputs.size(), 1u);
    EXPECT_EQ(node.outputs[0].dims, (Dims{2, 3, 8}));
  }
  EXPECT_TRUE(found);
}

// Malformed contrib nodes (shapes that do not fit, missing inputs, bad
// attributes) give an error or an opaque node, never a crash.
TEST(OrtContribImport, MalformedNodesDoNotCrash) {
  struct Case {
    std::string op;
    std::vector<std::pair<std::string, std::vector<int64_t>>> inputs;
    std::vector<std::pair<std::string, int64_t>> attrs;
  };
  const std::vector<Case> cases = {
      {"Attention", {{"x", {1, 2, 8}}, {"w", {8, 7}}}, {{"num_heads", 2}}},
      {"Attention", {{"x", {1, 2, 8}}, {"w", {8, 0}}}, {{"num_heads", 2}}},
      {"Attention", {{"x", {1, 2, 8}}, {"w", {8, 24}}}, {{"num_heads", 0}}},
      {"Attention", {{"x", {2, 8}}, {"w", {8, 24}}}, {{"num_heads", 2}}},
      {"MultiHeadAttention",
       {{"q", {1, 2, 8}}, {"k", {1, 2, 8}}, {"v", {1, 2, 8}}, {"b", {3}}},
       {{"num_heads", 2}}},
      {"MultiHeadAttention",
       {{"q", {1, 2, 8}}, {"k", {1, 3, 6}}, {"v", {1, 2, 8}}},
       {{"num_heads", 2}}},
      {"MultiHeadAttention",
       {{"q", {1, 2, 0}}, {"k", {1, 2, 0}}, {"v", {1, 2, 0}}},
       {{"num_heads", 2}}},
      {"GroupQueryAttention", {{"q", {1, 1, 0}}}, {{"num_heads", 2}, {"kv_num_heads", 1}}},
      {"GroupQueryAttention",
       {{"q", {1, 1, 32}}, {"k", {1, 1, 16}}, {"v", {1, 1, 16}}},
       {{"num_heads", 3}, {"kv_num_heads", 2}}},
      {"RotaryEmbedding", {{"x", {1, 2, 8}}, {"p", {1}}, {"c", {4, 3}}, {"s", {4, 3}}}, {}},
      {"RotaryEmbedding", {{"x", {1, 2, 8}}, {"p", {1}}, {"c", {4, 0}}, {"s", {4, 0}}}, {}},
      {"RotaryEmbedding", {{"x", {8}}, {"p", {1}}, {"c", {4, 2}}, {"s", {4, 2}}}, {}},
      {"EmbedLayerNormalization", {{"ids", {4}}}, {}},
      {"SkipLayerNormalization", {{"x", {1, 2, 8}}, {"skip", {1, 2, 8}}}, {}},
      {"SkipSimplifiedLayerNormalization", {{"x", {1, 2, 8}}, {"skip", {1, 3, 8}}, {"g", {8}}}, {}},
      {"FastGelu", {{"x", {1, 2, 8}}, {"b", {3}}}, {}},
  };
  for (const Case& k : cases) {
    SCOPED_TRACE(k.op);
    OnnxBuilder b = MsBuilder();
    std::vector<std::string> names;
    for (const auto& [name, dims] : k.inputs) {
      b.Input(name, dims,
              k.op == "RotaryEmbedding" && name == "p" ? onnx::TensorProto::INT64
              : k.op == "EmbedLayerNormalization"      ? onnx::TensorProto::INT32
                                                       : onnx::TensorProto::FLOAT);
      names.push_back(name);
    }
    auto* n = b.DomainNode(kMs, k.op, names, {"y"});
    for (const auto& [name, v] : k.attrs) OnnxBuilder::AttrInt(n, name, v);
    b.Output("y", {1, 2, 8});
    absl::StatusOr<Graph> g = ParseOnnx(b.Bytes(), "malformed.onnx");
    if (!g.ok()) {
      EXPECT_NE(g.status().message().find("malformed.onnx: error:"), std::string::npos);
    }
  }
}

// An op whose output types nothing gives: one line naming the op and how to
// give the type.
TEST(OrtContribImport, UntypedUnknownOpSaysHowToGiveTheType) {
  OnnxBuilder b = MsBuilder();
  b.Input("x", {2, 3});
  b.DomainNode(kMs, "NotARealOp", {"x"}, {"g"});
  b.Output("g");
  absl::StatusOr<Graph> g = ParseOnnx(b.Bytes(), "untyped.onnx");
  ASSERT_FALSE(g.ok());
  const std::string msg(g.status().message());
  EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
  EXPECT_NE(msg.find("untyped.onnx: error:"), std::string::npos) << msg;
  EXPECT_NE(msg.find("NotARealOp"), std::string::npos) << msg;
  EXPECT_NE(msg.find("the type of output 'g' is unknown"), std::string::npos) << msg;
  EXPECT_NE(msg.find("declare its element type and static dims in the model's value_info"),
            std::string::npos)
      << msg;
}

}  // namespace
}  // namespace egret
