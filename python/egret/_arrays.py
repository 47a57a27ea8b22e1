"""numpy arrays to and from what the C++ core exchanges: .npy bytes (egret's
own encoding, egret/executor/npy.h, so egret checks dtypes and shapes with
the messages of `egret run --inputs`), and raw bytes with egret's dtype name
for a constant the graph builder or a shape function makes."""

import io

# numpy dtype name -> egret dtype (its QNN spelling), for arrays that become
# egret tensors of their own type. Quantized types are not among them: a
# quantized value is made by an op (Quantize), not from an array.
_DTYPES = {
    "float32": "Float32",
    "float16": "Float16",
    "float64": "Float64",
    "int32": "Int32",
    "int64": "Int64",
    "uint32": "UInt32",
    "uint64": "UInt64",
    "bool": "Bool",
}


def to_npy(array):
    """The .npy bytes of ``array`` (C order, little-endian)."""
    import numpy as np

    buf = io.BytesIO()
    np.save(buf, np.ascontiguousarray(array), allow_pickle=False)
    return buf.getvalue()


def from_npy(data):
    """The numpy array of .npy bytes."""
    import numpy as np

    return np.load(io.BytesIO(data), allow_pickle=False)


def to_typed_bytes(array):
    """(egret dtype, dims, raw little-endian bytes) of ``array``."""
    import numpy as np

    a = np.ascontiguousarray(array)
    dtype = _DTYPES.get(a.dtype.name)
    if dtype is None:
        raise TypeError(f"arrays of {a.dtype} have no egret type; use one of {', '.join(_DTYPES)}")
    return dtype, tuple(int(d) for d in a.shape), a.astype(a.dtype.newbyteorder("<")).tobytes()
