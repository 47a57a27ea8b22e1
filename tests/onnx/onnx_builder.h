// Test helper: builds small onnx::ModelProto graphs in code.
#ifndef EGRET_TESTS_ONNX_ONNX_BUILDER_H_
#define EGRET_TESTS_ONNX_ONNX_BUILDER_H_

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "onnx/onnx_pb.h"

namespace egret::testing {

class OnnxBuilder {
 public:
  explicit OnnxBuilder(int opset = 13, int ir_version = 7) {
    model_.set_ir_version(ir_version);
    auto* os = model_.add_opset_import();
    os->set_domain("");
    os->set_version(opset);
    model_.mutable_graph()->set_name("test");
  }

  // Imports another operator set (domain "com.microsoft" for ONNX Runtime's
  // contrib ops).
  void Opset(const std::string& domain, int version) {
    auto* os = model_.add_opset_import();
    os->set_domain(domain);
    os->set_version(version);
  }
  // A node of another domain than ONNX's.
  onnx::NodeProto* DomainNode(const std::string& domain, const std::string& op,
                              const std::vector<std::string>& inputs,
                              const std::vector<std::string>& outputs) {
    onnx::NodeProto* n = Node(op, inputs, outputs);
    n->set_domain(domain);
    return n;
  }

  void Input(const std::string& name, const std::vector<int64_t>& dims,
             int elem = onnx::TensorProto::FLOAT) {
    SetType(model_.mutable_graph()->add_input(), name, dims, elem);
  }
  void InputSymbolic(const std::string& name, const std::string& dim_param, int64_t rest) {
    auto* vi = model_.mutable_graph()->add_input();
    vi->set_name(name);
    auto* tt = vi->mutable_type()->mutable_tensor_type();
    tt->set_elem_type(onnx::TensorProto::FLOAT);
    tt->mutable_shape()->add_dim()->set_dim_param(dim_param);
    tt->mutable_shape()->add_dim()->set_dim_value(rest);
  }
  void Output(const std::string& name) { model_.mutable_graph()->add_output()->set_name(name); }
  // An output with its type declared (for ops ONNX's shape inference cannot
  // type).
  void Output(const std::string& name, const std::vector<int64_t>& dims,
              int elem = onnx::TensorProto::FLOAT) {
    SetType(model_.mutable_graph()->add_output(), name, dims, elem);
  }
  void Initializer(const std::string& name, const std::vector<int64_t>& dims,
                   const std::vector<float>& values) {
    auto* t = model_.mutable_graph()->add_initializer();
    t->set_name(name);
    t->set_data_type(onnx::TensorProto::FLOAT);
    for (int64_t d : dims) t->add_dims(d);
    for (float v : values) t->add_float_data(v);
  }
  void InitializerInt64(const std::string& name, const std::vector<int64_t>& dims,
                        const std::vector<int64_t>& values) {
    auto* t = model_.mutable_graph()->add_initializer();
    t->set_name(name);
    t->set_data_type(onnx::TensorProto::INT64);
    for (int64_t d : dims) t->add_dims(d);
    std::string raw(values.size() * 8, '\0');
    if (!values.empty()) std::memcpy(raw.data(), values.data(), raw.size());
    t->set_raw_data(raw);
  }
  void InitializerInt32(const std::string& name, const std::vector<int64_t>& dims,
                        const std::vector<int32_t>& values) {
    auto* t = model_.mutable_graph()->add_initializer();
    t->set_name(name);
    t->set_data_type(onnx::TensorProto::INT32);
    for (int64_t d : dims) t->add_dims(d);
    for (int32_t v : values) t->add_int32_data(v);
  }
  onnx::NodeProto* Node(const std::string& op, const std::vector<std::string>& inputs,
                        const std::vector<std::string>& outputs, const std::string& name = "") {
    auto* n = model_.mutable_graph()->add_node();
    n->set_op_type(op);
    n->set_name(name);
    for (const auto& i : inputs) n->add_input(i);
    for (const auto& o : outputs) n->add_output(o);
    return n;
  }
  static void AttrInt(onnx::NodeProto* n, const std::string& name, int64_t v) {
    auto* a = n->add_attribute();
    a->set_name(name);
    a->set_type(onnx::AttributeProto::INT);
    a->set_i(v);
  }
  static void AttrFloat(onnx::NodeProto* n, const std::string& name, float v) {
    auto* a = n->add_attribute();
    a->set_name(name);
    a->set_type(onnx::AttributeProto::FLOAT);
    a->set_f(v);
  }
  static void AttrInts(onnx::NodeProto* n, const std::string& name, const std::vector<int64_t>& v) {
    auto* a = n->add_attribute();
    a->set_name(name);
    a->set_type(onnx::AttributeProto::INTS);
    for (int64_t x : v) a->add_ints(x);
  }

  static void AttrFloats(onnx::NodeProto* n, const std::string& name, const std::vector<float>& v) {
    auto* a = n->add_attribute();
    a->set_name(name);
    a->set_type(onnx::AttributeProto::FLOATS);
    for (float x : v) a->add_floats(x);
  }
  static void AttrString(onnx::NodeProto* n, const std::string& name, const std::string& v) {
    auto* a = n->add_attribute();
    a->set_name(name);
    a->set_type(onnx::AttributeProto::STRING);
    a->set_s(v);
  }
  static void AttrStrings(onnx::NodeProto* n, const std::string& name,
                          const std::vector<std::string>& v) {
    auto* a = n->add_attribute();
    a->set_name(name);
    a->set_type(onnx::AttributeProto::STRINGS);
    for (const std::string& x : v) a->add_strings(x);
  }

  onnx::ModelProto& model() { return model_; }
  std::string Bytes() const { return model_.SerializeAsString(); }

  // Subgraphs (If branches, Loop bodies): build one with another OnnxBuilder
  // and attach its graph().
  const onnx::GraphProto& graph() const { return model_.graph(); }
  static void AttrGraph(onnx::NodeProto* n, const std::string& name, const onnx::GraphProto& g) {
    auto* a = n->add_attribute();
    a->set_name(name);
    a->set_type(onnx::AttributeProto::GRAPH);
    *a->mutable_g() = g;
  }
  // An initializer of any element type from its little-endian bytes.
  void InitializerRaw(const std::string& name, const std::vector<int64_t>& dims, int elem,
                      const std::string& raw) {
    auto* t = model_.mutable_graph()->add_initializer();
    t->set_name(name);
    t->set_data_type(elem);
    for (int64_t d : dims) t->add_dims(d);
    t->set_raw_data(raw);
  }

 private:
  static void SetType(onnx::ValueInfoProto* vi, const std::string& name,
                      const std::vector<int64_t>& dims, int elem) {
    vi->set_name(name);
    auto* tt = vi->mutable_type()->mutable_tensor_type();
    tt->set_elem_type(elem);
    auto* shape = tt->mutable_shape();
    for (int64_t d : dims) shape->add_dim()->set_dim_value(d);
  }

  onnx::ModelProto model_;
};

}  // namespace egret::testing

#endif  // EGRET_TESTS_ONNX_ONNX_BUILDER_H_
