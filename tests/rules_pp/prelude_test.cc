// -D definitions and egret's prelude (rules_pp/prelude.h): its helper
// macros defined quietly, their expansions, and a replaceable prelude.
#include "egret/rules_pp/prelude.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "egret/rules_pp/preprocessor.h"
#include "egret/support/diagnostic.h"
#include "tests/rules_pp/preprocessor_test_util.h"

namespace egret::rules {
namespace {

// ---- -D and the prelude ----

TEST(PreprocessorTest, CommandLineDefines) {
  PreprocessOptions o = NoPrelude();
  o.defines = {"A", "B=2", "C=x y", "F(x)=x+1", "E="};
  EXPECT_EQ(Clean("A B C F(2) [E]", o), "1 2 x y 2 + 1 [ ]");
  o.defines = {"OK=1", "3=4"};
  EXPECT_EQ(Diags("", o), "<command line>:2:9: error: macro names must be identifiers\n");
}

TEST(PreprocessorTest, PreludeIsUsedAndReplaceable) {
  PreprocessOptions o;  // prelude on
  Pp r = RunPp("CHANNEL_SPLIT_SIZE", o);
  EXPECT_EQ(r.diags, "");
  EXPECT_EQ(r.joined, "256");
  EXPECT_TRUE(IsPreludeLocation(Find(r.file, "256").loc));
  EXPECT_EQ(Find(r.file, "256").expansion_loc.ToString(), "t.cc:1:1");
  // A user's definition replaces the prelude's without a warning.
  EXPECT_EQ(Clean("#define CHANNEL_SPLIT_SIZE 128\nCHANNEL_SPLIT_SIZE", o), "128");
  EXPECT_EQ(Clean("CHANNEL_SPLIT_SIZE"), "CHANNEL_SPLIT_SIZE");
  o.defines = {"CHANNEL_SPLIT_SIZE=64"};
  EXPECT_EQ(Clean("CHANNEL_SPLIT_SIZE", o), "64");
}

// ---- The prelude ----

TEST(PreludeTest, DefinesEveryHelperQuietly) {
  PreprocessOptions o;
  std::string src;
  for (const char* name : {"IS_QUANT_TYPE",
                           "IS_QUANT_SIGNED",
                           "IS_SIGNED_SYMM",
                           "IS_QINT8_SYMM",
                           "IS_QINT16_SYMM",
                           "IS_QINT32_SYMM",
                           "SAME_QUANT",
                           "SAME_DTYPE_QUANT",
                           "MIN_QU8",
                           "MAX_QU8",
                           "OPCONST",
                           "FROM_DEFAULT_PACKAGE",
                           "IS_SCALAR",
                           "IS_NOT_SCALAR",
                           "IS_SHAPE_1x1x1xd",
                           "FLAT_TENSOR_SIZE",
                           "SUBS",
                           "CHANNEL_SPLIT_SIZE",
                           "MIN_CHANNEL_SPLIT_SIZE",
                           "MAX_DIMENSIONS",
                           "TILE_HEIGHT",
                           "TCM_MAXTENSOR_SIZE",
                           "AUTOTHREAD_ENABLED",
                           "CAST_TO_DTYPE",
                           "CAST_TO_FP16",
                           "CAST_TO_FP32",
                           "MAKE_OP_FP16_AND_INSERT_CAST",
                           "IS_BINARY_FP16",
                           "IS_BINARY_FP32",
                           "CONST_ZERO_OFF",
                           "TYPICAL_CONV_SLICE",
                           "SHOULD_TILE"}) {
    src += std::string("#ifndef ") + name + "\nmissing_" + name + "\n#endif\n";
  }
  // Grammar names are not prelude macros: the parser knows them.
  for (const char* name : {"GLACIAL", "FAST", "EARLY", "LATE", "IS_QUINT8", "DIM_BATCHES",
                           "SAME_SHAPE", "RESOURCE_HVX"}) {
    src += std::string("#ifdef ") + name + "\ndefined_" + name + "\n#endif\n";
  }
  Pp r = RunPp(src, o);
  EXPECT_EQ(r.diags, "");
  EXPECT_EQ(r.joined, "");
}

TEST(PreludeTest, Expansions) {
  PreprocessOptions o;
  auto expand = [&](std::string_view src) { return RunPp(src, o).joined; };
  EXPECT_EQ(expand("IS_QUANT_SIGNED(\"x\")"),
            "OR ( IS_QINT8 ( \"x\" ) , IS_QINT16 ( \"x\" ) , IS_QINT32 ( \"x\" ) )");
  EXPECT_EQ(expand("IS_QINT8_SYMM(\"x\")"),
            "AND ( IS_QINT8 ( \"x\" ) , EQ ( ZERO_OFFSET_OF ( \"x\" ) , 0 ) )");
  EXPECT_EQ(expand("MAX_QU8(\"in\")"),
            "MUL ( STEPSIZE_OF ( \"in\" ) , FLOAT ( SUB ( 255 , ZERO_OFFSET_OF ( \"in\" ) ) ) )");
  EXPECT_EQ(expand("SUBS(DIM_DEPTH(\"a\"), 32)"),
            "SELECT ( GT ( DIM_DEPTH ( \"a\" ) , 32 ) , SUB ( DIM_DEPTH ( \"a\" ) , 32 ) , 0 )");
  EXPECT_EQ(expand("OPCONST(\"w\")"), "LET ( \"w\" , Op ( \"$Const\" ) )");
  // FROM_DEFAULT_PACKAGE is never expanded: the parser reads it.
  EXPECT_EQ(expand("Op(FROM_DEFAULT_PACKAGE(\"Relu\"), \"x\")"),
            "Op ( FROM_DEFAULT_PACKAGE ( \"Relu\" ) , \"x\" )");
  EXPECT_EQ(expand("TILE_HEIGHT AUTOTHREAD_ENABLED"),
            "OPTION_UINT ( \"tile_height\" ) OPTION_INT ( \"enable_autothread\" )");
  EXPECT_EQ(expand("CAST_TO_FP16(\"x\")"),
            "WITH_SIZE ( \"x\" , WITH_OUTPUT_TYPE ( DType :: Float16 , 0 , 1.0f , "
            "Op ( FROM_DEFAULT_PACKAGE ( \"QNN_Cast\" ) , \"x\" ) ) )");
  EXPECT_EQ(expand("MAKE_OP_FP16_AND_INSERT_CAST(Op(\"Add\", \"a\", \"b\"))"),
            "WITH_OUTPUT_TYPE ( DType :: Float32 , 0 , 1.0f , Op ( FROM_DEFAULT_PACKAGE ( "
            "\"QNN_Cast\" ) , WITH_SIZE ( "
            "\"*\" , WITH_OUTPUT_TYPE ( DType :: Float16 , 0 , 1.0f , Op ( \"Add\" , \"a\" , "
            "\"b\" ) ) ) ) )");
  EXPECT_EQ(expand("CONST_ZERO_OFF(\"x\")"), "gen_ConstScalar_i32 ( ZERO_OFFSET_OF ( \"x\" ) )");
  EXPECT_EQ(expand("TYPICAL_CONV_SLICE(\"in\", \"I\", 2, 3)"),
            "AUTOSPLIT_SLICE ( \"in\" , AUTOSPLIT_SHAPEFN_APPLY ( conv_valid_split_start , \"I\" , "
            "\"in\" , 2 , 3 , 1 ) , AUTOSPLIT_SHAPEFN_APPLY ( conv_valid_split_size , \"I\" , "
            "\"in\" , 2 , 3 , 1 ) )");
  EXPECT_EQ(expand("TYPICAL_CONV_SLICE(\"in\", \"I\", 1, 3, 2)"),
            "AUTOSPLIT_SLICE ( \"in\" , AUTOSPLIT_SHAPEFN_APPLY ( conv_valid_split_start , \"I\" , "
            "\"in\" , 1 , 3 , 2 ) , AUTOSPLIT_SHAPEFN_APPLY ( conv_valid_split_size , \"I\" , "
            "\"in\" , 1 , 3 , 2 ) )");
  EXPECT_EQ(expand("SHOULD_TILE()"), "OR ( OPTION_BOOL ( \"central_tiler\" ) )");
  EXPECT_EQ(expand("SHOULD_TILE(IS_FLOAT(\"x\"), GT(DIM_DEPTH(\"x\"), 64))"),
            "OR ( OPTION_BOOL ( \"central_tiler\" ) , AND ( IS_FLOAT ( \"x\" ) , GT ( DIM_DEPTH ( "
            "\"x\" ) , 64 ) ) )");
}

TEST(PreludeTest, PreludeTextHasOnlyDirectivesAndComments) {
  DiagnosticList diags;
  PreprocessOptions o = NoPrelude();
  absl::StatusOr<PreprocessedFile> f =
      PreprocessText(PreludeText(), std::string(kPreludeFileName), o, &diags);
  ASSERT_TRUE(f.ok());
  EXPECT_EQ(diags.ToString(), "");
  EXPECT_EQ(f->tokens.size(), 1u);
}

}  // namespace
}  // namespace egret::rules
