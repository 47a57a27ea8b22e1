"""Loading and checking rules (egret/api/rules.h, docs/rule-language.md).

A source is a path (str or os.PathLike) of a rule file (an op package's C++
source or a .rules file), a rule text (a str that names no file and holds a
newline or a "(", named "<rules>" in diagnostics), or a (name, text) pair; ``sources`` is one source
or a list of them. ``library=True`` loads egret's shipped library
(docs/rule-library.md) first: a rule text alone registers no op
implementations, so the optimizer could price nothing.
"""

import dataclasses
import os
import threading

from egret import _data, _egret, _errors
from egret._functions import Functions


@dataclasses.dataclass(frozen=True)
class Diagnostic:
    """One diagnostic of the rule checker: ``severity`` ("error",
    "warning", "note"), where (``file``, ``line``, ``column``), ``message``,
    and ``text``, the line(s) egret prints ("file:line:col: error: message"
    and its notes), which is also ``str()``."""

    severity: str
    file: str
    line: int
    column: int
    message: str
    text: str

    def __str__(self):
        return self.text


class Rules:
    """A loaded, checked set of rules and op implementations, bound to the
    functions it was loaded with. ``diagnostics``: the warnings of loading."""

    def __init__(self, handle, diagnostics):
        self._handle = handle
        self.diagnostics = diagnostics

    @property
    def num_rules(self):
        return self._handle.num_rules

    @property
    def num_implementations(self):
        return self._handle.num_implementations

    def __repr__(self):
        return f"egret.Rules({self.num_rules} rules, {self.num_implementations} implementations)"


def _is_text(s):
    """A str source is a rule text unless it names a file or looks like a path."""
    return isinstance(s, str) and not os.path.exists(s) and ("\n" in s or "(" in s)


def _sources(sources, library):
    if isinstance(sources, (str, os.PathLike, tuple)):
        sources = [sources]
    out = []
    if library:
        out += [(path, None) for path in _egret.shipped_rule_files(_data.rules_dir())]
    texts = [s for s in sources if _is_text(s)]
    for s in sources:
        if isinstance(s, tuple):
            name, text = s
            out.append((str(name), str(text)))
        elif _is_text(s):
            name = "<rules>" if len(texts) == 1 else f"<rules {texts.index(s) + 1}>"
            out.append((name, s))
        elif isinstance(s, (str, os.PathLike)):
            out.append((os.fspath(s), None))
        else:
            raise TypeError(f"a rule source is a path, a text or a (name, text) pair, not {s!r}")
    return out


# egret::Severity's values, by number (egret/support/diagnostic.h).
_SEVERITIES = ("error", "warning", "note")


def _load(sources, functions, library, include_dirs, defines):
    fns = (functions or Functions())._impl
    handle, diags, status = _egret.load_rules(
        _sources(sources, library), fns, [str(d) for d in include_dirs], list(defines)
    )
    return handle, [Diagnostic(_SEVERITIES[d[0]], *d[1:]) for d in diags], status


def load_rules(sources, *, functions=None, library=False, include_dirs=(), defines=()):
    """Loads and checks ``sources`` (see the module docstring) against
    ``functions`` (an egret.Functions; the built-ins when None), with
    #include search directories and -D macro definitions ("NAME",
    "NAME=VALUE"). Returns an egret.Rules; raises egret.RulesError (its
    ``diagnostics`` list every one) when a source has an error, and
    egret.NotFoundError for a file that cannot be read."""
    handle, diags, status = _load(sources, functions, library, include_dirs, defines)
    if handle is not None:
        return Rules(handle, diags)
    code, message = status
    if code == "INVALID_ARGUMENT":
        raise _errors.RulesError(message, diags)
    raise _errors.from_status(code, message)


def check_rules(sources, *, functions=None, library=False, include_dirs=(), defines=()):
    """Checks ``sources`` as load_rules does and returns every diagnostic
    (errors and warnings, in order) instead of raising for them; a file that
    cannot be read still raises egret.NotFoundError."""
    handle, diags, status = _load(sources, functions, library, include_dirs, defines)
    if handle is None and status[0] != "INVALID_ARGUMENT":
        raise _errors.from_status(*status)
    return diags


_library = None
_library_lock = threading.Lock()


def shipped_library():
    """egret's shipped rule library, loaded once per process (what
    ``egret optimize`` uses without --rules)."""
    global _library
    with _library_lock:
        if _library is None:
            _library = load_rules([], library=True)
        return _library
