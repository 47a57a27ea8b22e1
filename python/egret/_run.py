"""egret.run: a model on egret's reference executor (`egret run`), numpy
arrays in and out."""

from egret import _arrays, _egret, _errors, _model


def run(model, inputs, *, threads=0, memory_limit=0, dims=None, default_dim=None,
        input_shapes=None):
    """Runs ``model`` (as egret.optimize takes it) on ``inputs``, a dict of
    graph input name -> numpy array (each of the input's ONNX shape and
    dtype: float32 for a float input, ...), and returns a dict of output name
    -> numpy array, in the graph's output order. ``threads``: the executor's
    threads (0: every core); ``memory_limit``: most bytes of computed values
    alive at once (0: none). A wrong name, shape or dtype raises
    egret.InvalidArgumentError naming the input; an op with no reference
    kernel raises an egret.Error naming the node. The GIL is released while
    the executor runs."""
    graph = _model.load(model, dims=dims, default_dim=default_dim, input_shapes=input_shapes)
    names = [name for name, _, _ in graph.inputs]
    unknown = sorted(set(inputs) - set(names))
    missing = [n for n in names if n not in inputs]
    if unknown or missing:
        raise _errors.InvalidArgumentError(
            f"inputs {unknown or ''}{' are not graph inputs' if unknown else ''}"
            f"{'; ' if unknown and missing else ''}"
            f"{'missing: ' + ', '.join(missing) if missing else ''} (graph inputs: {', '.join(names)})"
        )
    encoded = [_arrays.to_npy(inputs[n]) for n in names]
    outputs = _egret.run(graph._handle, encoded, int(threads), int(memory_limit))
    return {name: _arrays.from_npy(npy) for name, npy in outputs}
