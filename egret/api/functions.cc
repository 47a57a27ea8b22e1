#include "egret/api/functions.h"

#include <utility>
#include <vector>

#include "egret/api/functions_internal.h"
#include "egret/rules_compile/plugin_loader.h"

namespace egret::api {
namespace {

Operand OperandOf(const EGraph& g, Id cls) {
  cls = g.Find(cls);
  return Operand{g.TypeOf(cls), g.ConstantOf(cls)};
}

// The class of what a function built, added to `g`.
Id Add(EGraph& g, Built built) {
  if (Dims* dims = std::get_if<Dims>(&built)) return g.AddShape(*dims);
  return g.AddConstant(std::make_shared<const Tensor>(std::get<Tensor>(std::move(built))));
}

void Declare(rules::ExternalFunctionRegistry& registry, std::string name, std::string return_type,
             int num_args, bool variadic) {
  rules::ExternalFunction f;
  f.name = std::move(name);
  f.return_type = std::move(return_type);
  f.params.assign(num_args, "auto");
  f.variadic = variadic;
  registry.Register(std::move(f));
}

}  // namespace

Functions::Functions() : impl_(std::make_unique<Impl>()) {}
Functions::~Functions() = default;
Functions::Functions(const Functions& other) : impl_(std::make_unique<Impl>(*other.impl_)) {}
Functions& Functions::operator=(const Functions& other) {
  if (this != &other) impl_ = std::make_unique<Impl>(*other.impl_);
  return *this;
}
Functions::Functions(Functions&&) noexcept = default;
Functions& Functions::operator=(Functions&&) noexcept = default;

void Functions::AddConstraint(std::string name, ConstraintFn fn) {
  Declare(impl_->declared, name, "bool", 0, /*variadic=*/true);
  impl_->library.RegisterConstraint(
      std::move(name),
      [fn = std::move(fn)](const EGraph& g, Id operand, absl::Span<const rules::Scalar> args) {
        std::vector<double> values;
        values.reserve(args.size());
        for (const rules::Scalar& a : args) values.push_back(a.AsFloat());
        return fn(OperandOf(g, operand), values);
      });
}

void Functions::AddShapeFn(std::string name, int num_args, ShapeFn fn) {
  Declare(impl_->declared, name, "OpRef", num_args, /*variadic=*/false);
  impl_->library.RegisterShapeFn(
      std::move(name),
      [fn = std::move(fn)](EGraph& g, absl::Span<const rules::FnArg> args) -> absl::StatusOr<Id> {
        std::vector<Arg> values;
        values.reserve(args.size());
        for (const rules::FnArg& a : args) {
          Arg v;
          v.is_operand = a.is_operand;
          if (a.is_operand) {
            v.operand = OperandOf(g, a.operand);
          } else {
            v.scalar = a.scalar.AsFloat();
          }
          values.push_back(std::move(v));
        }
        absl::StatusOr<Built> built = fn(values);
        if (!built.ok()) return built.status();
        return Add(g, *std::move(built));
      });
}

void Functions::AddReplace(std::string name, ReplaceFn fn) {
  Declare(impl_->declared, name, "OpRef", 0, /*variadic=*/false);
  impl_->library.RegisterReplace(
      std::move(name),
      [fn = std::move(fn)](EGraph& g,
                           const rules::ReplaceContext& ctx) -> absl::StatusOr<std::optional<Id>> {
        absl::StatusOr<std::optional<Tensor>> value = fn(OperandOf(g, ctx.root));
        if (!value.ok()) return value.status();
        if (!value->has_value()) return std::nullopt;
        return Add(g, **std::move(value));
      });
}

absl::Status Functions::LoadPlugin(const std::string& path) {
  absl::StatusOr<rules::PluginInfo> info =
      rules::LoadPlugin(path, &impl_->library, &impl_->declared);
  return info.ok() ? absl::OkStatus() : info.status();
}

}  // namespace egret::api
