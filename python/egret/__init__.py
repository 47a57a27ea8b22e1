"""egret from Python: optimize neural networks for Qualcomm's Hexagon HTP by
equality saturation, ONNX in and ONNX out, with the results of the `egret`
command (docs/python.md).

    import egret, onnx
    result = egret.optimize(onnx.load("model.onnx"))
    print(result.input_cost, "->", result.output_cost, result.changes_text)
    onnx.save(result.model, "model.opt.onnx")

optimize        the optimizer (`egret optimize`); returns an OptimizeResult
load_rules      rule files and texts, checked (egret.Rules); check_rules lists diagnostics
Functions       external functions for rules, written in Python
run             a model on the reference executor, numpy arrays in and out (`egret run`)
extract         extraction from an egraph-serialize JSON e-graph (`egret extract`)
GraphBuilder    an egret graph written in code
Error           the base of every egret error (InvalidArgumentError, NotFoundError, ...)
"""

from egret._builder import GraphBuilder
from egret._egret import version as __version__
from egret._errors import (
    CancelledError,
    Error,
    FailedPreconditionError,
    InvalidArgumentError,
    NotFoundError,
    ResourceExhaustedError,
    RulesError,
    UnimplementedError,
    VerifyError,
)
from egret._extract import ExtractResult, extract
from egret._functions import Functions, Operand
from egret._model import Graph
from egret._optimize import (
    Change,
    OffHtpOp,
    OpCount,
    OptimizeResult,
    UnverifiedWarning,
    VerifyOutcome,
    optimize,
)
from egret._rules import Diagnostic, Rules, check_rules, load_rules
from egret._run import run


def load(model, **sizes):
    """The egret.Graph of ``model`` (an onnx.ModelProto, bytes or a path;
    ``dims=``, ``default_dim=``, ``input_shapes=``, ``input_values=`` as for
    optimize), for inspecting its inputs and outputs or running it."""
    from egret import _model

    return _model.load(model, **sizes)


__all__ = [
    "CancelledError", "Change", "Diagnostic", "Error", "ExtractResult", "FailedPreconditionError",
    "Functions", "Graph", "GraphBuilder", "InvalidArgumentError", "NotFoundError", "OffHtpOp",
    "OpCount", "Operand", "OptimizeResult", "ResourceExhaustedError", "Rules", "RulesError",
    "UnimplementedError", "UnverifiedWarning", "VerifyError", "VerifyOutcome", "check_rules",
    "extract", "load", "load_rules", "optimize", "run",
]
