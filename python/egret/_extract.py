"""egret.extract: the cheapest term of an egraph-serialize e-graph
(`egret extract EGRAPH.json --json`, docs/extraction.md)."""

import dataclasses
import os
from typing import Dict, Optional

from egret import _egret


@dataclasses.dataclass(frozen=True)
class ExtractResult:
    """The extracted term: its tree and DAG cost, the chosen node of each
    reachable class (class id -> node id), the time, and for an extractor
    that proves optimality (ilp) whether it did and its lower bound; for the
    others, the critical-path lower bound (None with negative costs): when it
    equals dag_cost, the choice is optimal."""

    extractor: str
    tree_cost: float
    dag_cost: float
    choices: Dict[str, str]
    time_ms: float
    optimal: Optional[bool] = None
    bound: Optional[float] = None
    lower_bound: Optional[float] = None


def extract(egraph_json, *, extractor="dag", time_limit=10.0):
    """Extracts from ``egraph_json``: a path of an egraph-serialize JSON file,
    its text (a str starting with "{"), or bytes. ``extractor``: "dag",
    "tree", "ilp", ... (--extractor); ``time_limit``: seconds, for
    extractors that take one (ilp). Malformed JSON raises
    egret.InvalidArgumentError with "file:line:col: error: ..."."""
    if isinstance(egraph_json, (bytes, bytearray)):
        text, name = bytes(egraph_json).decode("utf-8"), "<egraph>"
    elif isinstance(egraph_json, str) and egraph_json.lstrip().startswith("{"):
        text, name = egraph_json, "<egraph>"
    else:
        name = os.fspath(egraph_json)
        try:
            with open(name, encoding="utf-8") as f:
                text = f.read()
        except OSError as e:
            from egret import _errors

            raise _errors.NotFoundError(f"{name}: error: cannot read: {e.strerror}") from e
    r = _egret.extract(text, name, extractor, float(time_limit))
    return ExtractResult(**r)
