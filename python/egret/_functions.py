"""External functions for rules written in Python, as the C++ API registers
C++ ones (egret/api/functions.h): the code a rule calls by name with
EXTERNAL_CONSTRAINT, EXTERNAL_REPLACE or SHAPEFN_APPLY.

    fns = egret.Functions()

    @fns.constraint("is_narrow")
    def is_narrow(x, args):          # EXTERNAL_CONSTRAINT(is_narrow, "x", 64)
        return x.dims[3] <= args[0]

    rules = egret.load_rules(MY_RULES, functions=fns, library=True)

The optimizer calls them from the thread running egret.optimize, with the
GIL held for the call only, possibly many times per rule and in any order:
they must not keep state that changes their answer. An exception a function
raises stops the optimization and is raised by egret.optimize.
"""

import dataclasses
from typing import Any, Optional, Tuple

from egret import _arrays, _egret


@dataclasses.dataclass(frozen=True)
class Operand:
    """One value of the graph being rewritten, as a function sees it:
    ``dtype`` (egret's spelling, "Float32", "QUInt8", ...), ``dims``, and for
    a constant its data (``constant``, a numpy array of the storage values;
    None for any other value)."""

    dtype: str
    dims: Tuple[int, ...]
    constant: Optional[Any] = None


def _operand(t):
    dtype, dims, npy = t
    return Operand(dtype, tuple(dims), None if npy is None else _arrays.from_npy(npy))


class Functions:
    """A set of external functions by name (``functions=`` of load_rules)."""

    def __init__(self):
        self._impl = _egret.Functions()

    def add_constraint(self, name, fn):
        """EXTERNAL_CONSTRAINT(name, "tag", exprs...): ``fn(operand, args)``
        gets the Operand the tag names and the expressions' values (a list of
        floats: integers, bools as 0/1, dtypes as their QNN number); a true
        result lets the rule fire."""
        self._impl.add_constraint(name, lambda x, args: bool(fn(_operand(x), list(args))))

    def add_replace(self, name, fn):
        """EXTERNAL_REPLACE(name): ``fn(root)`` returns a numpy array to
        merge with the matched root (of the root's dtype storage and dims),
        or None to leave the e-graph unchanged."""

        def call(root):
            value = fn(_operand(root))
            return None if value is None else _arrays.to_npy(value)

        self._impl.add_replace(name, call)

    def add_shape_fn(self, name, num_args, fn):
        """SHAPEFN_APPLY(name, params...) with ``num_args`` operands:
        ``fn(args)`` gets a list of Operands and floats (scalar expressions)
        and returns the dims of a shape parameter (a sequence of ints) or a
        numpy array for a constant."""

        def call(args):
            value = fn([a if isinstance(a, float) else _operand(a) for a in args])
            if hasattr(value, "dtype") and hasattr(value, "shape"):
                return _arrays.to_typed_bytes(value)
            return [int(d) for d in value]

        self._impl.add_shape_fn(name, num_args, call)

    def load_plugin(self, path):
        """Loads a function plugin (a shared library, docs/plugins.md)."""
        self._impl.load_plugin(str(path))

    def constraint(self, name):
        """Decorator form of add_constraint."""

        def register(fn):
            self.add_constraint(name, fn)
            return fn

        return register

    def replace(self, name):
        """Decorator form of add_replace."""

        def register(fn):
            self.add_replace(name, fn)
            return fn

        return register

    def shape_fn(self, name, num_args):
        """Decorator form of add_shape_fn."""

        def register(fn):
            self.add_shape_fn(name, num_args, fn)
            return fn

        return register
