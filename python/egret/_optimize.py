"""egret.optimize: `egret optimize MODEL -o OUT.onnx --report R.json --verify`
as one call, with the same defaults, so that both give the same result
(docs/python.md). The result's fields are the report's (docs/rewrite-semantics.md,
"Report"), typed; ``report`` is the whole report as a dict.
"""

import dataclasses
import json
import os
import warnings
from typing import Any, Dict, List, Optional

from egret import _data, _egret, _errors, _model, _rules


class UnverifiedWarning(UserWarning):
    """optimize(verify=True) could not compare some output on the reference
    executor (an op it has no kernel for): the result is not checked."""


@dataclasses.dataclass(frozen=True)
class OpCount:
    """Nodes of one op in the input model and in the result."""

    before: int
    after: int


@dataclasses.dataclass(frozen=True)
class OffHtpOp:
    """Nodes of the result no HTP implementation computes (run on the CPU),
    and why."""

    nodes: int
    reasons: List[str]


@dataclasses.dataclass(frozen=True)
class Change:
    """``count`` result nodes of ``kind`` ("fused", "recognized", "folded",
    "rewrote", "tiled") with op ``op``, standing for input nodes of
    ``from_ops`` (OptimizeResult.changes_text says it in words)."""

    kind: str
    op: str
    from_ops: List[str]
    count: int


@dataclasses.dataclass(frozen=True)
class VerifyOutcome:
    """The reference executor's check of the result against the input:
    ``status`` "ok" or "incomplete" (a failure raises egret.VerifyError),
    one dict per output (the report's "verify" "outputs"), and ``text``, the
    report as `egret optimize --verify` prints it."""

    status: str
    outputs: List[Dict[str, Any]]
    text: str

    @property
    def ok(self):
        return self.status == "ok"


@dataclasses.dataclass
class OptimizeResult:
    """What egret.optimize returns.

    model: the optimized model, an onnx.ModelProto (bytes when onnx is not
        importable), as `egret optimize -o OUT.onnx` writes it.
    graph: the same as an egret.Graph (for egret.run).
    input_cost, output_cost: the cost model's estimate of the input and the
        result (HVX cycles; predicted ns with a device).
    ops: op -> OpCount (before, after), computing ops only.
    off_htp: op -> OffHtpOp, the result's ops that run off the HTP.
    changes: what the rewrites did, most frequent first; changes_text says
        it as the CLI's "changes:" line ("fused Relu into Conv2d x1, ...").
    provenance: the report's provenance summary: "by_rule" (rule -> nodes),
        "merged_input_nodes", "nodes".
    verify: the VerifyOutcome, None with verify=False.
    stop_reason: how saturation ended ("Saturated", "TimeLimit", ...).
    warnings: the rule checker's warnings and the rules' run-time issues.
    report: the whole --report JSON as a dict.
    """

    model: Any
    graph: _model.Graph
    input_cost: float
    output_cost: float
    ops: Dict[str, OpCount]
    off_htp: Dict[str, OffHtpOp]
    changes: List[Change]
    provenance: Dict[str, Any]
    verify: Optional[VerifyOutcome]
    stop_reason: str
    warnings: List[str]
    report: Dict[str, Any]
    changes_text: str


def _default_memory_limit():
    """The CLI's default --memory-limit: 75% of physical memory (0: none)."""
    try:
        return int(os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE") * 0.75)
    except (ValueError, OSError):
        return 0


def optimize(
    model,
    *,
    rules=None,
    flags=(),
    extractor="dag",
    device=None,
    verify=True,
    time_limit=None,
    memory_limit=None,
    iter_limit=30,
    node_limit=100_000,
    options=None,
    dims=None,
    default_dim=None,
    input_shapes=None,
    input_values=None,
    for_other_runtimes=True,
    constant_folding=True,
    htp_only=False,
    phase_mode="keep",
    seed=0,
    rtol=1e-4,
    atol=1e-5,
    threads=0,
):
    """Optimizes ``model`` (an onnx.ModelProto, its bytes, a path or an
    egret.Graph; ``dims``, ``default_dim``, ``input_shapes``,
    ``input_values`` size its symbolic inputs as the CLI's --dim,
    --default-dim, --input-shape and --input-value do) and returns an
    OptimizeResult.

    rules: None for egret's shipped library (as the CLI without --rules), an
        egret.Rules, or sources for egret.load_rules.
    flags: switches that let gated rules run (--flag: "relaxed_precision", ...).
    extractor: "dag" (default), "tree", "ilp", ... (--extractor).
    device: a device name or file (--device): price in predicted ns.
    verify: check the result on the reference executor on seeded random
        inputs (seed, rtol, atol, threads as --seed, --rtol, --atol,
        --threads): a mismatch raises egret.VerifyError; an output that
        cannot be compared gives status "incomplete" and an
        egret.UnverifiedWarning.
    time_limit: seconds for the whole optimization (default 30; inf: none).
    memory_limit: bytes of resident memory (default 75% of physical; 0: none).
    iter_limit, node_limit: iterations per phase and e-nodes (0: none).
    options: values for the rules' OPTION_* (--option NAME=VALUE).
    for_other_runtimes: the result is an ONNX model for another runtime, as
        with -o OUT.onnx (the HTP's tiling and memory-placement rules left
        out); False keeps them (as -o OUT.json).
    constant_folding, htp_only, phase_mode: --no-fold, --htp-only, --phase-mode.

    The GIL is released while egret works; Ctrl-C raises KeyboardInterrupt.
    Errors raise egret.Error subclasses with egret's message.
    """
    graph = _model.load(
        model, dims=dims, default_dim=default_dim, input_shapes=input_shapes,
        input_values=input_values,
    )
    if rules is None:
        rules = _rules.shipped_library()
    elif not isinstance(rules, _rules.Rules):
        rules = _rules.load_rules(rules)
    if time_limit is None:
        time_limit = 30.0
    if time_limit == float("inf"):
        time_limit = 0.0
    elif not time_limit > 0:
        raise _errors.InvalidArgumentError(f"time_limit must be positive seconds, not {time_limit!r}")
    if memory_limit is None:
        memory_limit = _default_memory_limit()
    out = _egret.optimize(
        graph._handle, rules._handle, list(flags), extractor, device or "",
        _data.devices_dir(), phase_mode, dict(options or {}), int(iter_limit), int(node_limit),
        float(time_limit), int(memory_limit), bool(for_other_runtimes), bool(constant_folding),
        bool(htp_only), bool(verify), int(seed), float(rtol), float(atol), int(threads),
    )
    report = json.loads(out["report"])
    outcome = None
    if verify:
        v = report["verify"]
        outcome = VerifyOutcome(v["status"], v["outputs"], out["verify_text"])
        if v["status"] == "failed":
            raise _errors.VerifyError(
                "the optimized model computes different outputs (verify):\n" + out["verify_text"],
                out["verify_text"],
            )
        if v["status"] == "incomplete":
            warnings.warn(
                "some outputs could not be verified on the reference executor:\n"
                + out["verify_text"], UnverifiedWarning, stacklevel=2,
            )
    result_graph = _model.Graph(out["graph"])
    return OptimizeResult(
        model=result_graph.to_onnx() if for_other_runtimes else None,
        graph=result_graph,
        input_cost=report["input_cost"],
        output_cost=report["output_cost"],
        ops={op: OpCount(c["before"], c["after"]) for op, c in report["ops"].items()},
        off_htp={op: OffHtpOp(o["nodes"], o["reasons"]) for op, o in report["off_htp"].items()},
        changes=[Change(c["kind"], c["op"], c["from_ops"], c["count"]) for c in report["changes"]],
        provenance=report["provenance"],
        verify=outcome,
        stop_reason=report["stop_reason"],
        warnings=list(out["warnings"]),
        report=report,
        changes_text=out["changes_text"],
    )
