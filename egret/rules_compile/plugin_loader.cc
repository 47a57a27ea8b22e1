#include "egret/rules_compile/plugin_loader.h"

#include <dlfcn.h>
#include <sys/stat.h>

#include <cmath>
#include <cstring>
#include <memory>
#include <optional>
#include <string_view>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "egret/graph/graph.h"
#include "egret/rules_compile/plugin_abi.h"

namespace egret::rules {
namespace {

constexpr size_t kErrorSize = 512;
// Room for the values of a constant a shape function returns.
constexpr int64_t kShapeFnCapacity = 1 << 16;

using Handle = std::shared_ptr<void>;

// The first line of a callback's NUL-terminated message (or a stand-in).
std::string MessageOf(const char* buf, const std::string& fallback) {
  std::string m(buf, strnlen(buf, kErrorSize));
  m = m.substr(0, m.find('\n'));
  return m.empty() ? std::string(fallback) : m;
}

bool IsIdentifier(const std::string& s) {
  if (s.empty() || absl::ascii_isdigit(static_cast<unsigned char>(s[0]))) return false;
  for (char c : s) {
    if (!absl::ascii_isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  }
  return true;
}

// An operand as the ABI shows it; owns the arrays `info` points into.
struct OperandData {
  std::string dtype;
  std::vector<int64_t> dims;
  std::vector<double> values;
  egret_tensor_info info{};

  void Fill(const EGraph& g, Id cls) {
    cls = g.Find(cls);
    const TensorType& t = g.TypeOf(cls);
    dtype = std::string(DTypeName(t.dtype));
    dims.assign(t.dims.begin(), t.dims.end());
    info.value_kind = EGRET_VALUE_NONE;
    if (ConstTensorPtr c = g.ConstantOf(cls)) {
      info.value_kind = EGRET_VALUE_CONST;
      values.resize(c->num_elements());
      for (int64_t i = 0; i < c->num_elements(); ++i) values[i] = c->GetValue(i);
    } else {
      static const Symbol shape = Symbol::Intern(kShapeOp);
      if (!g.ClassNodesWithOp(cls, shape).empty()) {
        info.value_kind = EGRET_VALUE_SHAPE;
        values.assign(t.dims.begin(), t.dims.end());
      }
    }
    info.dtype = dtype.c_str();
    info.rank = static_cast<int32_t>(dims.size());
    info.dims = dims.data();
    info.stepsize = t.stepsize;
    info.zero_offset = t.zero_offset;
    info.values = info.value_kind == EGRET_VALUE_NONE ? nullptr : values.data();
    info.num_values = info.value_kind == EGRET_VALUE_NONE ? 0 : static_cast<int64_t>(values.size());
  }
};

// The arguments of one call, as the ABI shows them.
struct CallArgs {
  std::vector<std::unique_ptr<OperandData>> operands;
  std::vector<egret_arg> args;

  CallArgs(const EGraph& g, absl::Span<const FnArg> in) {
    for (const FnArg& a : in) {
      egret_arg out{};
      out.is_operand = a.is_operand ? 1 : 0;
      if (a.is_operand) {
        operands.push_back(std::make_unique<OperandData>());
        operands.back()->Fill(g, a.operand);
        out.operand = operands.back()->info;
      } else {
        out.scalar = a.scalar.AsFloat();
      }
      args.push_back(out);
    }
  }
};

// A result buffer with room for `capacity` values.
struct ResultData {
  std::vector<double> values;
  egret_result result{};

  ResultData(int32_t kind, int64_t capacity) : values(static_cast<size_t>(capacity)) {
    result.kind = kind;
    result.values = values.data();
    result.values_capacity = capacity;
  }

  absl::StatusOr<Dims> ResultDims() const {
    if (result.rank < 0 || result.rank > EGRET_PLUGIN_MAX_RANK) {
      return absl::InvalidArgumentError(absl::StrFormat("returned rank %d (0 to %d allowed)",
                                                        result.rank, EGRET_PLUGIN_MAX_RANK));
    }
    Dims d;
    for (int i = 0; i < result.rank; ++i) {
      if (result.dims[i] < 0) {
        return absl::InvalidArgumentError(
            absl::StrFormat("returned dim %d = %d (dims must be >= 0)", i, result.dims[i]));
      }
      d.push_back(result.dims[i]);
    }
    return d;
  }

  // A constant of `type` from the returned values; Int32 values must be
  // integers in range.
  absl::StatusOr<Tensor> Constant(const TensorType& type) const {
    const int64_t n = type.num_elements();
    if (n > result.values_capacity) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "returned a constant of %d elements (at most %d)", n, result.values_capacity));
    }
    if (type.dtype == DType::kInt32) {
      for (int64_t i = 0; i < n; ++i) {
        const double v = values[i];
        if (!(v == std::floor(v) && v >= -2147483648.0 && v <= 2147483647.0)) {
          return absl::InvalidArgumentError(
              absl::StrFormat("returned Int32 value %g at element %d", v, i));
        }
      }
    }
    return Tensor::FromValues(type, absl::Span<const double>(values.data(), n));
  }
};

// The class of a shape function's result, added to `g`.
absl::StatusOr<Id> AddResult(EGraph& g, const ResultData& r) {
  absl::StatusOr<Dims> dims = r.ResultDims();
  if (!dims.ok()) return dims.status();
  switch (r.result.kind) {
    case EGRET_RESULT_SHAPE:
      return g.AddShape(*dims);
    case EGRET_RESULT_CONST_INT32:
    case EGRET_RESULT_CONST_FLOAT32: {
      const DType dt = r.result.kind == EGRET_RESULT_CONST_INT32 ? DType::kInt32 : DType::kFloat32;
      absl::StatusOr<Tensor> t = r.Constant(TensorType(dt, *dims));
      if (!t.ok()) return t.status();
      return g.AddConstant(std::make_shared<const Tensor>(*std::move(t)));
    }
    default:
      return absl::InvalidArgumentError(
          absl::StrFormat("returned result kind %d (a shape function returns SHAPE, CONST_INT32 or "
                          "CONST_FLOAT32)",
                          r.result.kind));
  }
}

absl::Status CallFailed(const std::string& name, const char* error) {
  return absl::InvalidArgumentError(MessageOf(error, absl::StrCat(name, " failed")));
}

// Registrations made during egret_plugin_register, applied when it succeeds.
struct Pending {
  Handle handle;
  std::string path;
  std::string bad;  // the first bad registration, if any
  std::vector<std::pair<std::string, std::function<void(FunctionLibrary*)>>> library;
  std::vector<ExternalFunction> declarations;
  std::vector<std::string> names;

  bool Check(const char* name, bool has_fn, int32_t num_operands, const std::string& kind) {
    if (!bad.empty()) return false;
    if (name == nullptr || !IsIdentifier(name)) {
      bad = absl::StrFormat("registers a %s function with a bad name '%s' (not a C identifier)",
                            kind, name == nullptr ? "(null)" : name);
    } else if (!has_fn) {
      bad = absl::StrFormat("registers %s function '%s' with a null callback", kind, name);
    } else if (num_operands < -1) {
      bad = absl::StrFormat("registers %s function '%s' with %d operands (-1 for any)", kind, name,
                            num_operands);
    }
    return bad.empty();
  }

  void Declare(const std::string& name, std::string return_type, int32_t num_operands,
               const std::string& kind) {
    ExternalFunction f;
    f.name = name;
    f.return_type = std::move(return_type);
    f.variadic = num_operands < 0;
    if (num_operands > 0) f.params.assign(num_operands, "auto");
    declarations.push_back(std::move(f));
    names.push_back(absl::StrCat(kind, " ", name));
  }
};

int RegisterConstraint(void* context, const char* name, egret_constraint_fn fn, void* user) {
  Pending* p = static_cast<Pending*>(context);
  if (!p->Check(name, fn != nullptr, 0, "constraint")) return 1;
  std::string n = name;
  ConstraintFn impl = [h = p->handle, fn, user](const EGraph& g, Id operand,
                                                absl::Span<const Scalar> args) {
    OperandData x;
    x.Fill(g, operand);
    std::vector<double> values;
    values.reserve(args.size());
    for (const Scalar& a : args) values.push_back(a.AsFloat());
    int32_t result = 0;
    char error[kErrorSize] = {0};
    if (fn(user, &x.info, values.data(), static_cast<int32_t>(values.size()), &result, error,
           kErrorSize) != 0) {
      return false;
    }
    return result != 0;
  };
  p->library.emplace_back(n, [n, impl](FunctionLibrary* lib) { lib->RegisterConstraint(n, impl); });
  p->Declare(n, "bool", -1, "constraint");
  return 0;
}

int RegisterShapeFn(void* context, const char* name, int32_t num_operands, egret_shape_fn fn,
                    void* user) {
  Pending* p = static_cast<Pending*>(context);
  if (!p->Check(name, fn != nullptr, num_operands, "shape")) return 1;
  std::string n = name;
  ShapeFn impl = [h = p->handle, fn, user, n](EGraph& g,
                                              absl::Span<const FnArg> in) -> absl::StatusOr<Id> {
    CallArgs args(g, in);
    ResultData r(EGRET_RESULT_SHAPE, kShapeFnCapacity);
    char error[kErrorSize] = {0};
    if (fn(user, args.args.data(), static_cast<int32_t>(args.args.size()), &r.result, error,
           kErrorSize) != 0) {
      return CallFailed(n, error);
    }
    return AddResult(g, r);
  };
  p->library.emplace_back(n, [n, impl](FunctionLibrary* lib) { lib->RegisterShapeFn(n, impl); });
  p->Declare(n, "OpRef", num_operands, "shapefn");
  return 0;
}

int RegisterAutoSplitShapeFn(void* context, const char* name, int32_t num_operands,
                             egret_autosplit_shape_fn fn, void* user) {
  Pending* p = static_cast<Pending*>(context);
  if (!p->Check(name, fn != nullptr, num_operands, "autosplit shape")) {
    return 1;
  }
  std::string n = name;
  AutoSplitShapeFn impl = [h = p->handle, fn, user, n](
                              EGraph& g, const SplitContext& split,
                              absl::Span<const FnArg> in) -> absl::StatusOr<Id> {
    CallArgs args(g, in);
    egret_split s{split.dim, split.start, split.size};
    ResultData r(EGRET_RESULT_SHAPE, kShapeFnCapacity);
    char error[kErrorSize] = {0};
    if (fn(user, &s, args.args.data(), static_cast<int32_t>(args.args.size()), &r.result, error,
           kErrorSize) != 0) {
      return CallFailed(n, error);
    }
    return AddResult(g, r);
  };
  p->library.emplace_back(
      n, [n, impl](FunctionLibrary* lib) { lib->RegisterAutoSplitShapeFn(n, impl); });
  p->Declare(n, "OpRef", num_operands, "autosplit_shapefn");
  return 0;
}

int RegisterReplace(void* context, const char* name, egret_replace_fn fn, void* user) {
  Pending* p = static_cast<Pending*>(context);
  if (!p->Check(name, fn != nullptr, 0, "replace")) return 1;
  std::string n = name;
  ReplaceFn impl = [h = p->handle, fn, user, n](
                       EGraph& g, const ReplaceContext& ctx) -> absl::StatusOr<std::optional<Id>> {
    OperandData root;
    root.Fill(g, ctx.root);
    ResultData r(EGRET_RESULT_UNCHANGED, ctx.root_type.num_elements());
    char error[kErrorSize] = {0};
    if (fn(user, &root.info, &r.result, error, kErrorSize) != 0) return CallFailed(n, error);
    if (r.result.kind == EGRET_RESULT_UNCHANGED) return std::nullopt;
    if (r.result.kind != EGRET_RESULT_CONST_ROOT) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "returned result kind %d (a replace function returns UNCHANGED or CONST_ROOT)",
          r.result.kind));
    }
    absl::StatusOr<Tensor> t = r.Constant(ctx.root_type);
    if (!t.ok()) return t.status();
    return g.AddConstant(std::make_shared<const Tensor>(*std::move(t)));
  };
  p->library.emplace_back(n, [n, impl](FunctionLibrary* lib) { lib->RegisterReplace(n, impl); });
  p->Declare(n, "OpRef", 0, "replace");
  return 0;
}

absl::Status Bad(const std::string& path, const std::string& what) {
  return absl::InvalidArgumentError(absl::StrCat(path, ": error: ", what));
}

}  // namespace

absl::StatusOr<PluginInfo> LoadPlugin(const std::string& path, FunctionLibrary* library,
                                      ExternalFunctionRegistry* declared) {
  if (path.find('/') != std::string::npos) {
    struct stat st;
    if (stat(path.c_str(), &st) != 0) {
      return absl::NotFoundError(absl::StrCat(path, ": error: cannot open plugin: no such file"));
    }
    if (S_ISDIR(st.st_mode)) return Bad(path, "cannot load plugin: it is a directory");
  }
  dlerror();
  void* raw = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (raw == nullptr) {
    const char* why = dlerror();
    std::string reason = why != nullptr ? why : "unknown error";
    // dlerror's message starts with the path; keep only the reason.
    if (reason.rfind(path + ": ", 0) == 0) reason = reason.substr(path.size() + 2);
    return Bad(path, absl::StrCat("cannot load plugin (not a loadable shared library?): ",
                                  reason.substr(0, reason.find('\n'))));
  }
  Handle handle(raw, [](void* h) { dlclose(h); });
  auto version_fn =
      reinterpret_cast<egret_plugin_abi_version_fn>(dlsym(raw, "egret_plugin_abi_version"));
  auto register_fn =
      reinterpret_cast<egret_plugin_register_fn>(dlsym(raw, "egret_plugin_register"));
  if (version_fn == nullptr || register_fn == nullptr) {
    return Bad(path, absl::StrCat("not an egret plugin: it does not export ",
                                  version_fn == nullptr ? "egret_plugin_abi_version"
                                                        : "egret_plugin_register",
                                  " (see egret/rules_compile/plugin_abi.h)"));
  }
  const uint32_t version = version_fn();
  if (version != EGRET_PLUGIN_ABI_VERSION) {
    return Bad(path, absl::StrFormat("plugin ABI version %u, but this egret loads version %u "
                                     "(rebuild the plugin against this egret's plugin_abi.h)",
                                     version, EGRET_PLUGIN_ABI_VERSION));
  }
  Pending pending;
  pending.handle = handle;
  pending.path = path;
  egret_plugin_host host{};
  host.abi_version = EGRET_PLUGIN_ABI_VERSION;
  host.context = &pending;
  host.register_constraint = RegisterConstraint;
  host.register_shape_fn = RegisterShapeFn;
  host.register_autosplit_shape_fn = RegisterAutoSplitShapeFn;
  host.register_replace = RegisterReplace;
  char error[kErrorSize] = {0};
  if (register_fn(&host, error, kErrorSize) != 0) {
    return Bad(path,
               absl::StrCat("egret_plugin_register failed: ", MessageOf(error, "(no message)")));
  }
  if (!pending.bad.empty()) return Bad(path, pending.bad);
  for (auto& [name, apply] : pending.library) apply(library);
  if (declared != nullptr) {
    for (ExternalFunction& f : pending.declarations) declared->Register(std::move(f));
  }
  return PluginInfo{path, std::move(pending.names)};
}

}  // namespace egret::rules
