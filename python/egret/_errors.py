"""egret's errors as Python exceptions.

Every error egret reports is an ``egret.Error`` whose ``str()`` is egret's own
one-line message ("model.onnx: error: ..." or "rules.cpp:3:7: error: ...",
as the CLI prints it) and whose ``status`` is the absl status code name
("INVALID_ARGUMENT", "NOT_FOUND", ...). The subclass says what kind of
failure it was; the C++ core (python/src/errors.cc) picks it with
``from_status``.
"""


class Error(Exception):
    """An error egret reported. ``status``: the status code's name;
    ``message``: egret's message (also ``str(error)``)."""

    status = "UNKNOWN"

    def __init__(self, message, status=None):
        super().__init__(message)
        self.message = message
        if status is not None:
            self.status = status


class InvalidArgumentError(Error, ValueError):
    """Malformed input: a model, rule text, option or name egret rejects."""

    status = "INVALID_ARGUMENT"


class NotFoundError(Error, FileNotFoundError):
    """A file that cannot be read."""

    status = "NOT_FOUND"


class ResourceExhaustedError(Error):
    """A size or memory limit was exceeded (a file over 1 GiB, --memory-limit)."""

    status = "RESOURCE_EXHAUSTED"


class UnimplementedError(Error):
    """A valid input egret cannot handle (an ONNX element type it lacks, ...)."""

    status = "UNIMPLEMENTED"


class FailedPreconditionError(Error):
    """The rules failed to compile, or a result cannot be written as asked."""

    status = "FAILED_PRECONDITION"


class CancelledError(Error):
    """The call was cancelled."""

    status = "CANCELLED"


class RulesError(InvalidArgumentError):
    """Rules that failed to check; ``diagnostics`` lists every diagnostic
    (egret.Diagnostic), the first error being the message."""

    def __init__(self, message, diagnostics=()):
        super().__init__(message)
        self.diagnostics = list(diagnostics)


class VerifyError(Error):
    """``optimize(verify=True)``: the optimized model computes different
    outputs from its input on the reference executor. ``report`` is the
    verify report as ``egret optimize --verify`` prints it."""

    status = "VERIFY_FAILED"

    def __init__(self, message, report=""):
        super().__init__(message)
        self.report = report


_BY_STATUS = {
    cls.status: cls
    for cls in (
        InvalidArgumentError,
        NotFoundError,
        ResourceExhaustedError,
        UnimplementedError,
        FailedPreconditionError,
        CancelledError,
    )
}


def from_status(status, message):
    """The exception for an absl status code name and egret's message."""
    cls = _BY_STATUS.get(status, Error)
    if cls is Error:
        return Error(message, status)
    return cls(message)
