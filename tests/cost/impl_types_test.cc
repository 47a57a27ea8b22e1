// The declared tensor types of implementations: template arguments as
// written (awkward spellings included), the HTP tensor type names, and the
// eligibility rule with its reasons.
#include "egret/cost/impl_types.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace egret::cost {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

TEST(ImplTypesTest, TemplateArgumentNamesAsWritten) {
  EXPECT_THAT(TemplateArgumentNames("(conv2dImpl<QUint8CroutonTensor>)"),
              ElementsAre("QUint8CroutonTensor"));
  EXPECT_THAT(TemplateArgumentNames("(addImpl<PlainFloatTensor, PlainFloatTensor>)"),
              ElementsAre("PlainFloatTensor", "PlainFloatTensor"));
  EXPECT_THAT(TemplateArgumentNames("reluImpl<Tensor>"), ElementsAre("Tensor"));
  EXPECT_THAT(TemplateArgumentNames("( conv2dImpl <  QUint8CroutonTensor_TCM ,Int32Tensor > )"),
              ElementsAre("QUint8CroutonTensor_TCM", "Int32Tensor"));
  // Qualifiers are dropped, the function's own is outside the brackets.
  EXPECT_THAT(TemplateArgumentNames("hnnx::convImpl<hnnx :: QUint8CroutonTensor, ::Int32Tensor>"),
              ElementsAre("QUint8CroutonTensor", "Int32Tensor"));
  // Nested templates, numbers, cv-qualifiers and pointers.
  EXPECT_THAT(TemplateArgumentNames(
                  "(f<Vector<const F16CroutonTensor *>, std::array<Int32Tensor, 4>, 3u>)"),
              ElementsAre("Vector", "const", "F16CroutonTensor", "array", "Int32Tensor"));
  EXPECT_THAT(TemplateArgumentNames("(g<A<B<QuantUint8Tensor>>>)"),
              ElementsAre("A", "B", "QuantUint8Tensor"));
  // No template; a macro-like spelling; unbalanced brackets.
  EXPECT_THAT(TemplateArgumentNames("reluRefImpl"), IsEmpty());
  EXPECT_THAT(TemplateArgumentNames("MY_RELU_IMPL(PlainFloatTensor)"), IsEmpty());
  EXPECT_THAT(TemplateArgumentNames("(f<PlainFloatTensor"), ElementsAre("PlainFloatTensor"));
  EXPECT_THAT(TemplateArgumentNames("(f>QuantUint8Tensor<Int32Tensor>)"),
              ElementsAre("Int32Tensor"));
  EXPECT_THAT(TemplateArgumentNames(""), IsEmpty());
}

TEST(ImplTypesTest, HtpTensorTypeNames) {
  struct Case {
    const char* name;
    DType dtype;
    TensorLayout layout;
  };
  const Case cases[] = {
      {"PlainFloatTensor", DType::kFloat32, TensorLayout::kPlain},
      {"PlainFloatTensor_TCM", DType::kFloat32, TensorLayout::kPlain},
      {"PlainFloatTensor5D_TCM", DType::kFloat32, TensorLayout::kPlain},
      {"PlainFloat16Tensor", DType::kFloat16, TensorLayout::kPlain},
      {"F16CroutonTensor_TCM", DType::kFloat16, TensorLayout::kBlocked},
      {"QuantUint8Tensor", DType::kQUInt8, TensorLayout::kPlain},
      {"QuantInt8Tensor", DType::kQInt8, TensorLayout::kPlain},
      {"QuantUint16Tensor", DType::kQUInt16, TensorLayout::kPlain},
      {"QuantInt16Tensor", DType::kQInt16, TensorLayout::kPlain},
      {"QuantInt32Tensor", DType::kQInt32, TensorLayout::kPlain},
      {"Int32Tensor", DType::kInt32, TensorLayout::kPlain},
      {"Int32Tensor6D", DType::kInt32, TensorLayout::kPlain},
      {"Int64Tensor", DType::kInt64, TensorLayout::kPlain},
      {"QUint8CroutonTensor", DType::kQUInt8, TensorLayout::kBlocked},
      {"QUint8CroutonTensor_TCM", DType::kQUInt8, TensorLayout::kBlocked},
      {"QUint8Crouton4x1Tensor", DType::kQUInt8, TensorLayout::kBlocked},
      {"QUint8WideCroutonTensor_TCM", DType::kQUInt8, TensorLayout::kBlocked},
      {"QInt8CroutonTensor", DType::kQInt8, TensorLayout::kBlocked},
      {"QUint16CroutonTensor", DType::kQUInt16, TensorLayout::kBlocked},
      {"QInt32WideCroutonTensor", DType::kQInt32, TensorLayout::kBlocked},
      {"D32FloatTensor", DType::kFloat32, TensorLayout::kBlocked},
      {"hnnx::QInt16CroutonTensor", DType::kQInt16, TensorLayout::kBlocked},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const HtpTensorType t = HtpTensorTypeOf(c.name);
    EXPECT_TRUE(t.known);
    ASSERT_TRUE(t.dtype.has_value());
    EXPECT_EQ(*t.dtype, c.dtype);
    EXPECT_EQ(t.layout, c.layout);
  }
  // Generic, and unknown names: any dtype and layout.
  for (const char* name : {"Tensor", "QFloatTensor", "MyVendorTensor", "Int32HashTableTensor"}) {
    SCOPED_TRACE(name);
    const HtpTensorType t = HtpTensorTypeOf(name);
    EXPECT_FALSE(t.dtype.has_value());
    EXPECT_EQ(t.layout, TensorLayout::kAny);
    EXPECT_EQ(t.known, std::string(name) == "Tensor");
  }
}

TEST(ImplTypesTest, DeclaredTypesOfImplementations) {
  ImplTypes t = ImplTypesOf("(conv2dImpl<QUint8CroutonTensor>)");
  EXPECT_THAT(t.dtypes, ElementsAre(DType::kQUInt8));
  EXPECT_TRUE(t.blocked);
  EXPECT_EQ(t.Describe(), "QUInt8 crouton");
  t = ImplTypesOf("(addImpl<PlainFloatTensor, PlainFloatTensor>)");
  EXPECT_THAT(t.dtypes, ElementsAre(DType::kFloat32));
  EXPECT_FALSE(t.blocked);
  EXPECT_EQ(t.Describe(), "Float32");
  t = ImplTypesOf("(quantizeImpl<QuantUint8Tensor_TCM, PlainFloatTensor>)");
  EXPECT_THAT(t.dtypes, ElementsAre(DType::kQUInt8, DType::kFloat32));
  EXPECT_EQ(t.Describe(), "QUInt8/Float32");
  // Generic: Tensor, no template, layouts and scalars only.
  for (const char* g : {"reluImpl<Tensor>", "reluRefImpl", "(reluImpl<Tensor, Crouton, float, 6>)",
                        "(f<MyTensorLayout>)"}) {
    SCOPED_TRACE(g);
    t = ImplTypesOf(g);
    EXPECT_TRUE(t.generic());
    EXPECT_THAT(t.unknown, IsEmpty());
    EXPECT_EQ(t.Describe(), "any dtype");
  }
  // Generic `Tensor` next to a typed argument constrains nothing.
  EXPECT_THAT(ImplTypesOf("(reluImpl<PlainFloatTensor, Tensor>)").dtypes,
              ElementsAre(DType::kFloat32));
  // An unknown tensor type is any dtype, and is reported.
  t = ImplTypesOf("(f<VendorTensor, QUint16CroutonTensor, VendorTensor>)");
  EXPECT_THAT(t.dtypes, ElementsAre(DType::kQUInt16));
  EXPECT_THAT(t.unknown, ElementsAre("VendorTensor"));
  EXPECT_TRUE(ImplTypesOf("(f<VendorTensor>)").generic());
}

NodeTypes Node(DType out, const std::vector<DType>& data, int rank = 4) {
  return NodeTypes{out, data, rank};
}

TEST(ImplTypesTest, EligibilityFollowsOutputAndOperandDtypes) {
  const ImplTypes qu8 = ImplTypesOf("(conv2dImpl<QUint8CroutonTensor>)");
  const ImplTypes f32 = ImplTypesOf("(conv2dImpl<PlainFloatTensor>)");
  const ImplTypes generic = ImplTypesOf("(conv2dImpl<Tensor>)");
  const std::vector<DType> q_in = {DType::kQUInt8, DType::kQInt8, DType::kInt32};
  const std::vector<DType> f_in = {DType::kFloat32, DType::kFloat32, DType::kFloat32};
  EXPECT_TRUE(IsEligible(qu8, Node(DType::kQUInt8, q_in)));  // Int32 bias, QInt8 weights
  EXPECT_FALSE(IsEligible(qu8, Node(DType::kFloat32, f_in)));
  EXPECT_FALSE(IsEligible(qu8, Node(DType::kFloat32, q_in)));  // output decides
  EXPECT_TRUE(IsEligible(f32, Node(DType::kFloat32, f_in)));
  EXPECT_FALSE(IsEligible(f32, Node(DType::kQUInt8, q_in)));
  EXPECT_FALSE(IsEligible(f32, Node(DType::kFloat16, {DType::kFloat16})));
  for (DType d : {DType::kQUInt8, DType::kFloat32, DType::kFloat16, DType::kInt32, DType::kBool}) {
    EXPECT_TRUE(IsEligible(generic, Node(d, {d}, 7)));
  }
  // Several declared dtypes: the others must come from the data operands.
  const ImplTypes quant = ImplTypesOf("(quantizeImpl<QuantUint8Tensor, PlainFloatTensor>)");
  EXPECT_TRUE(IsEligible(quant, Node(DType::kQUInt8, {DType::kFloat32})));
  EXPECT_FALSE(IsEligible(quant, Node(DType::kQUInt8, {DType::kFloat16})));
  EXPECT_FALSE(IsEligible(quant, Node(DType::kInt32, {DType::kFloat32})));
  // The rule does not say which declared type is the output's: this one also
  // fits a Float32 output from a QUInt8 operand.
  EXPECT_TRUE(IsEligible(quant, Node(DType::kFloat32, {DType::kQUInt8})));
  // An unknown output dtype (a multi-output e-class) matches everything.
  EXPECT_TRUE(IsEligible(qu8, Node(DType::kMulti, f_in)));
}

TEST(ImplTypesTest, CroutonsTakeRankFourAtMost) {
  const ImplTypes crouton = ImplTypesOf("(matMulImpl<QUint8CroutonTensor>)");
  const ImplTypes plain = ImplTypesOf("(matMulImpl<QuantUint8Tensor>)");
  const std::vector<DType> in = {DType::kQUInt8, DType::kQUInt8};
  EXPECT_TRUE(IsEligible(crouton, Node(DType::kQUInt8, in, 4)));
  EXPECT_TRUE(IsEligible(crouton, Node(DType::kQUInt8, in, 2)));
  EXPECT_FALSE(IsEligible(crouton, Node(DType::kQUInt8, in, 5)));
  EXPECT_TRUE(IsEligible(plain, Node(DType::kQUInt8, in, 6)));
}

TEST(ImplTypesTest, ReasonsNameTheNodesTypesAndTheRegisteredOnes) {
  const ImplTypes qu8 = ImplTypesOf("(conv2dImpl<QUint8CroutonTensor>)");
  const ImplTypes qu8_tcm = ImplTypesOf("(conv2dImpl<QUint8CroutonTensor_TCM>)");
  const ImplTypes f16 = ImplTypesOf("(conv2dImpl<F16CroutonTensor>)");
  const ImplTypes quant = ImplTypesOf("(quantizeImpl<QuantUint8Tensor, PlainFloatTensor>)");
  const std::vector<const ImplTypes*> convs = {&qu8, &f16, &qu8_tcm};
  EXPECT_EQ(IneligibleReason("Conv2d", convs, Node(DType::kFloat32, {DType::kFloat32})),
            "no Float32 implementation of Conv2d (registered: QUInt8 crouton, Float16 crouton)");
  const std::vector<const ImplTypes*> quants = {&quant};
  EXPECT_EQ(
      IneligibleReason("Quantize", quants, Node(DType::kQUInt8, {DType::kInt32, DType::kInt32})),
      "no implementation of Quantize for QUInt8 from Int32 (registered: QUInt8/Float32)");
  const std::vector<const ImplTypes*> one = {&qu8};
  EXPECT_EQ(IneligibleReason("MatMul", one, Node(DType::kQUInt8, {DType::kQUInt8}, 5)),
            "no implementation of MatMul for rank-5 QUInt8 tensors (registered: QUInt8 crouton; "
            "crouton implementations take rank <= 4)");
}

}  // namespace
}  // namespace egret::cost
