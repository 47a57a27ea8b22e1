// ONNX Runtime as the oracle for its com.microsoft attention ops, which the
// importer decomposes into standard ops (egret/onnx/import_contrib.cc):
// Attention, MultiHeadAttention (with a shared KV buffer and beams) and
// GroupQueryAttention, each over small models on seeded random inputs (integer
// inputs that must hold particular values are given); and a Llama-style
// decoder layer, also optimized with the shipped rules.
//
// Skips the ONNX Runtime comparisons when node or onnxruntime-node is missing
// (scripts/fetch-models).
#include "tests/onnx/ort_contrib_test_util.h"

namespace egret {
namespace {

TEST(OrtContribOracle, Attention) {
  struct Case {
    std::string name;
    int mask_rank;  // 0: none; -1: [2B] end and start positions
    bool unidirectional, past, varied_v, attention_bias;
  };
  const std::vector<Case> cases = {
      {"plain", 0, false, false, false, false},
      {"mask2d", 2, false, false, false, false},
      {"mask3d", 3, false, false, false, false},
      {"mask1d_end", 1, false, false, false, false},
      {"mask1d_end_start", -1, false, false, false, false},
      {"unidirectional", 0, true, false, false, false},
      {"unidirectional_mask2d_bias", 2, true, false, false, true},
      {"past_present", 2, true, true, false, false},
      {"varied_v", 0, false, false, true, false},
  };
  for (const Case& k : cases) {
    const int64_t batch = 2, seq = 3, in_hidden = 8, heads = 2, h = 4, past = k.past ? 4 : 0;
    const int64_t vh = k.varied_v ? 12 : 8, total = past + seq;
    OnnxBuilder b = MsBuilder();
    b.Input("x", {batch, seq, in_hidden});
    b.Initializer("w", {in_hidden, 16 + vh}, Ramp(in_hidden * (16 + vh), 0.05f));
    b.Initializer("bias", {16 + vh}, Ramp(16 + vh, 0.02f));
    std::vector<std::string> in = {"x", "w", "bias", "", "", ""};
    std::map<std::string, std::vector<int32_t>> given;
    if (k.mask_rank == 2) {
      b.Input("mask", {batch, total}, onnx::TensorProto::INT32);
      given["mask"] = std::vector<int32_t>(static_cast<size_t>(batch * total), 1);
      given["mask"][1] = 0;
      given["mask"][static_cast<size_t>(total + 2)] = 0;
    } else if (k.mask_rank == 3) {
      b.Input("mask", {batch, seq, total}, onnx::TensorProto::INT32);
    } else if (k.mask_rank == 1) {
      b.Input("mask", {batch}, onnx::TensorProto::INT32);
      given["mask"] = {2, 3};
    } else if (k.mask_rank == -1) {  // [2B]: ends, then starts
      b.Input("mask", {2 * batch}, onnx::TensorProto::INT32);
      given["mask"] = {3, 2, 1, 0};
    }
    if (k.mask_rank != 0) in[3] = "mask";
    if (k.past) {
      b.Input("past", {2, batch, heads, past, h});
      in[4] = "past";
    }
    if (k.attention_bias) {
      b.Input("attn_bias", {1, heads, seq, total});
      in[5] = "attn_bias";
    }
    while (in.back().empty()) in.pop_back();
    auto* n = b.DomainNode(kMs, "Attention", in, {"y", k.past ? "present" : ""});
    if (!k.past) n->mutable_output()->RemoveLast();
    OnnxBuilder::AttrInt(n, "num_heads", heads);
    if (k.unidirectional) OnnxBuilder::AttrInt(n, "unidirectional", 1);
    if (k.varied_v) OnnxBuilder::AttrInts(n, "qkv_hidden_sizes", {8, 8, vh});
    b.Output("y");
    if (k.past) b.Output("present");
    CheckAgainstOrt("attention_" + k.name, b, given);
  }
}

TEST(OrtContribOracle, MultiHeadAttention) {
  struct Case {
    std::string name;
    bool bias, mask, attention_bias, past, unidirectional, cross_bnsh;
  };
  const std::vector<Case> cases = {
      {"plain", false, false, false, false, false, false},
      {"bias_mask", true, true, false, false, false, false},
      {"attention_bias_causal", true, false, true, false, true, false},
      {"past_present", true, true, false, true, true, false},
      {"cross_bnsh", true, false, false, false, false, true},
  };
  for (const Case& k : cases) {
    const int64_t batch = 2, seq = 3, kv = k.past ? 1 : 4, heads = 2, h = 4, hidden = 8;
    const int64_t past = k.past ? 5 : 0, total = past + (k.past ? seq : kv);
    OnnxBuilder b = MsBuilder();
    b.Input("q", {batch, seq, hidden});
    const int64_t kv_len = k.past ? seq : kv;
    if (k.cross_bnsh) {
      b.Input("k", {batch, heads, kv_len, h});
      b.Input("v", {batch, heads, kv_len, h});
    } else {
      b.Input("k", {batch, kv_len, hidden});
      b.Input("v", {batch, kv_len, hidden});
    }
    std::vector<std::string> in = {"q", "k", "v", "", "", "", "", ""};
    std::map<std::string, std::vector<int32_t>> given;
    if (k.bias) {
      b.Initializer("bias", {3 * hidden}, Ramp(3 * hidden, 0.02f));
      in[3] = "bias";
    }
    if (k.mask) {
      b.Input("mask", {batch, total}, onnx::TensorProto::INT32);
      given["mask"] = std::vector<int32_t>(static_cast<size_t>(batch * total), 1);
      given["mask"][0] = 0;
      in[4] = "mask";
    }
    if (k.attention_bias) {
      b.Input("attn_bias", {batch, 1, seq, total});
      in[5] = "attn_bias";
    }
    if (k.past) {
      b.Input("past_k", {batch, heads, past, h});
      b.Input("past_v", {batch, heads, past, h});
      in[6] = "past_k";
      in[7] = "past_v";
    }
    while (in.back().empty()) in.pop_back();
    std::vector<std::string> out = {"y"};
    if (k.past) out.insert(out.end(), {"present_k", "present_v"});
    auto* n = b.DomainNode(kMs, "MultiHeadAttention", in, out);
    OnnxBuilder::AttrInt(n, "num_heads", heads);
    if (k.unidirectional) OnnxBuilder::AttrInt(n, "unidirectional", 1);
    for (const auto& o : out) b.Output(o);
    CheckAgainstOrt("mha_" + k.name, b, given);
  }
}

// One new token over a shared KV buffer with cache indirection (ONNX
// Runtime's decoder-masked path): 2 batches of 2 beams, 6 slots of which the
// first 3 are filled; the beams read crossed slots of each other's past.
TEST(OrtContribOracle, MultiHeadAttentionSharedBufferWithBeams) {
  const int64_t batch = 2, beams = 2, bb = batch * beams, heads = 2, h = 4, hidden = 8, slots = 6;
  OnnxBuilder b = MsBuilder();
  for (const char* x : {"q", "k", "v"}) b.Input(x, {bb, 1, hidden});
  b.Initializer("bias", {3 * hidden}, Ramp(3 * hidden, 0.02f));
  b.Input("past_k", {bb, heads, slots, h});
  b.Input("past_v", {bb, heads, slots, h});
  b.Input("past_len", {1}, onnx::TensorProto::INT32);
  b.Input("cache_indir", {batch, beams, slots}, onnx::TensorProto::INT32);
  std::map<std::string, std::vector<int32_t>> given;
  given["past_len"] = {3};
  // Beam i of a batch reads slot j from beam (i + j) % 2; the unfilled slots
  // hold an index out of range, which nothing may read.
  for (int64_t i = 0; i < bb; ++i) {
    for (int64_t j = 0; j < slots; ++j) given["cache_indir"].push_back(j < 3 ? (j + i) % beams : 9);
  }
  auto* n =
      b.DomainNode(kMs, "MultiHeadAttention",
                   {"q", "k", "v", "bias", "", "", "past_k", "past_v", "past_len", "cache_indir"},
                   {"y", "present_k", "present_v"});
  OnnxBuilder::AttrInt(n, "num_heads", heads);
  for (const char* o : {"y", "present_k", "present_v"}) b.Output(o);
  CheckAgainstOrt("mha_shared_buffer_beams", b, given, /*optimize=*/true);
}

TEST(OrtContribOracle, GroupQueryAttention) {
  struct Case {
    std::string name;
    int64_t past, seq;
    bool rotary, interleaved, packed, inputs;  // inputs: seqlens as graph inputs
    int64_t window = -1;                       // local_window_size
    float softcap = 0;
    int sink = 0;  // 1: smooth_softmax; 2: head_sink
    bool position_ids = false;
  };
  const std::vector<Case> cases = {
      {"prefill", 0, 4, false, false, false, false},
      {"prefill_empty_past", -1, 4, true, false, false, true},
      {"prefill_rotary", 0, 4, true, false, false, true},
      {"decode_rotary", 5, 1, true, false, false, true},
      {"decode_rotary_interleaved", 5, 1, true, true, false, false},
      {"decode_packed", 3, 1, false, false, true, false},
      {"prefill_local_window", 0, 6, true, false, false, false, 3},
      {"decode_local_window", 5, 1, false, false, false, false, 3},
      {"prefill_softcap", 0, 4, false, false, false, false, -1, 0.5f},
      {"decode_softcap_window", 5, 2, true, true, false, false, 4, 0.7f},
      {"prefill_smooth_softmax", 0, 4, false, false, false, false, -1, 0, 1},
      {"decode_head_sink", 5, 1, true, false, false, false, -1, 0, 2},
      {"prefill_position_ids", 0, 4, true, false, false, false, -1, 0, 0, true},
      {"decode_position_ids", 5, 1, true, false, false, false, -1, 0, 0, true},
  };
  for (const Case& k : cases) {
    // past -1: past_key/past_value of length 0, as GenAI feeds the prefill.
    const int64_t past = std::max<int64_t>(k.past, 0);
    const int64_t batch = 1, heads = 4, kv_heads = 2, h = 16, total = past + k.seq;
    OnnxBuilder b = MsBuilder();
    std::vector<std::string> in = {"q", "k", "v", "past_k", "past_v", "seqlens_k", "total_len"};
    if (k.packed) {
      b.Input("q", {batch, k.seq, (heads + 2 * kv_heads) * h});
      in[1] = in[2] = "";
    } else {
      b.Input("q", {batch, k.seq, heads * h});
      b.Input("k", {batch, k.seq, kv_heads * h});
      b.Input("v", {batch, k.seq, kv_heads * h});
    }
    if (k.past != 0) {
      b.Input("past_k", {batch, kv_heads, past, h});
      b.Input("past_v", {batch, kv_heads, past, h});
    } else {
      in[3] = in[4] = "";
    }
    std::map<std::string, std::vector<int32_t>> given;
    if (k.inputs) {
      b.Input("seqlens_k", {batch}, onnx::TensorProto::INT32);
      b.Input("total_len", {}, onnx::TensorProto::INT32);
      given["seqlens_k"] = {static_cast<int32_t>(total - 1)};
      given["total_len"] = {static_cast<int32_t>(total)};
    } else {
      b.InitializerInt32("seqlens_k", {batch}, {static_cast<int32_t>(total - 1)});
      b.InitializerInt32("total_len", {}, {static_cast<int32_t>(total)});
    }
    if (k.rotary) {
      b.Initializer("cos", {16, h / 2}, Ramp(16 * h / 2, 0.15f));
      b.Initializer("sin", {16, h / 2}, Ramp(16 * h / 2, -0.11f));
      in.insert(in.end(), {"cos", "sin"});
    }
    if (k.position_ids) {
      while (in.size() < 9) in.push_back("");
      b.Input("position_ids", {batch, k.seq}, onnx::TensorProto::INT64);
      in.push_back("position_ids");
      given["position_ids"] = {2, 7, 1, 9};
      given["position_ids"].resize(static_cast<size_t>(k.seq));
    }
    if (k.sink == 2) {
      while (in.size() < 11) in.push_back("");
      b.Initializer("head_sink", {heads}, {0.5f, -1.0f, 2.0f, 0.0f});
      in.push_back("head_sink");
    }
    auto* n = b.DomainNode(kMs, "GroupQueryAttention", in, {"y", "present_k", "present_v"});
    if (k.sink == 1) OnnxBuilder::AttrInt(n, "smooth_softmax", 1);
    OnnxBuilder::AttrInt(n, "num_heads", heads);
    OnnxBuilder::AttrInt(n, "kv_num_heads", kv_heads);
    if (k.rotary) OnnxBuilder::AttrInt(n, "do_rotary", 1);
    if (k.interleaved) OnnxBuilder::AttrInt(n, "rotary_interleaved", 1);
    if (k.window >= 0) OnnxBuilder::AttrInt(n, "local_window_size", k.window);
    if (k.softcap > 0) OnnxBuilder::AttrFloat(n, "softcap", k.softcap);
    b.Output("y");
    b.Output("present_k");
    b.Output("present_v");
    CheckAgainstOrt("gqa_" + k.name, b, given);
  }
}

// One Llama-style decoder layer as ONNX Runtime GenAI writes it: embedding
// Gather, SimplifiedLayerNormalization, Q/K/V MatMuls, GroupQueryAttention
// with rotary caches and a KV cache (seqlens_k and total_sequence_length
// computed from the attention mask, as GenAI's graphs do), the output
// projection, SkipSimplifiedLayerNormalization, a SiLU-gated MLP and the
// residual Add. Prefill (no past) and one decode step; then optimized with
// the shipped rules and verified again against ONNX Runtime.
TEST(OrtContribOracle, LlamaStyleDecoderLayer) {
  for (int64_t past : {0, 5}) {
    const int64_t batch = 1, seq = past == 0 ? 4 : 1, hidden = 64, heads = 4, kv_heads = 2;
    const int64_t h = hidden / heads, ffn = 96, vocab = 16;
    OnnxBuilder b = MsBuilder();
    b.Input("input_ids", {batch, seq}, onnx::TensorProto::INT64);
    b.Input("attention_mask", {batch, past + seq}, onnx::TensorProto::INT64);
    b.Initializer("embed", {vocab, hidden}, Ramp(vocab * hidden, 0.05f));
    b.Node("Gather", {"embed", "input_ids"}, {"x"});
    // seqlens_k = ReduceSum(mask) - 1, total = mask's length, both int32.
    b.InitializerInt64("axes1", {1}, {1});
    b.Node("ReduceSum", {"attention_mask", "axes1"}, {"mask_sum"});
    b.InitializerInt64("one", {}, {1});
    b.Node("Sub", {"mask_sum", "one"}, {"seqlens64"});
    OnnxBuilder::AttrInt(b.Node("Cast", {"seqlens64"}, {"seqlens_k"}), "to",
                         onnx::TensorProto::INT32);
    b.Node("Shape", {"attention_mask"}, {"mask_shape"});
    b.InitializerInt64("idx1", {}, {1});
    OnnxBuilder::AttrInt(b.Node("Gather", {"mask_shape", "idx1"}, {"total64"}), "axis", 0);
    OnnxBuilder::AttrInt(b.Node("Cast", {"total64"}, {"total_len"}), "to",
                         onnx::TensorProto::INT32);
    b.Initializer("ln1", {hidden}, Ramp(hidden, 0.1f));
    OnnxBuilder::AttrFloat(b.Node("SimplifiedLayerNormalization", {"x", "ln1"}, {"xn"}), "epsilon",
                           1e-5f);
    for (const char* p : {"q", "k", "v"}) {
      const int64_t out = std::string(p) == "q" ? hidden : kv_heads * h;
      b.Initializer(absl::StrCat("w", p), {hidden, out}, Ramp(hidden * out, 0.01f));
      b.Node("MatMul", {"xn", absl::StrCat("w", p)}, {p});
    }
    std::vector<std::string> in = {"q", "k", "v", "", "", "seqlens_k", "total_len", "cos", "sin"};
    if (past > 0) {
      b.Input("past_k", {batch, kv_heads, past, h});
      b.Input("past_v", {batch, kv_heads, past, h});
      in[3] = "past_k";
      in[4] = "past_v";
    }
    b.Initializer("cos", {32, h / 2}, Ramp(32 * h / 2, 0.15f));
    b.Initializer("sin", {32, h / 2}, Ramp(32 * h / 2, -0.11f));
    auto* gqa = b.DomainNode(kMs, "GroupQueryAttention", in, {"attn", "present_k", "present_v"});
    OnnxBuilder::AttrInt(gqa, "num_heads", heads);
    OnnxBuilder::AttrInt(gqa, "kv_num_heads", kv_heads);
    OnnxBuilder::AttrInt(gqa, "do_rotary", 1);
    b.Initializer("wo", {hidden, hidden}, Ramp(hidden * hidden, 0.01f));
    b.Node("MatMul", {"attn", "wo"}, {"o"});
    b.Initializer("ln2", {hidden}, Ramp(hidden, 0.1f));
    b.DomainNode(kMs, "SkipSimplifiedLayerNormalization", {"o", "x", "ln2"},
                 {"hn", "", "", "residual"});
    b.Initializer("wg", {hidden, ffn}, Ramp(hidden * ffn, 0.01f));
    b.Initializer("wu", {hidden, ffn}, Ramp(hidden * ffn, 0.013f));
    b.Initializer("wd", {ffn, hidden}, Ramp(ffn * hidden, 0.01f));
    b.Node("MatMul", {"hn", "wg"}, {"gate"});
    b.Node("Sigmoid", {"gate"}, {"gate_sig"});
    b.Node("Mul", {"gate", "gate_sig"}, {"silu"});
    b.Node("MatMul", {"hn", "wu"}, {"up"});
    b.Node("Mul", {"silu", "up"}, {"act"});
    b.Node("MatMul", {"act", "wd"}, {"down"});
    b.Node("Add", {"residual", "down"}, {"y"});
    b.Output("y");
    b.Output("present_k");
    b.Output("present_v");
    std::map<std::string, std::vector<int32_t>> given;
    given["attention_mask"] = std::vector<int32_t>(static_cast<size_t>(past + seq), 1);
    given["input_ids"] = {3, 1, 4, 1};
    given["input_ids"].resize(static_cast<size_t>(seq));
    CheckAgainstOrt(absl::StrCat("llama_layer_past", past), b, given, /*optimize=*/true);
  }
}

}  // namespace
}  // namespace egret
