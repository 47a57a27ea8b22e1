#!/usr/bin/python3
"""Variants of the latency model, fitted and cross-validated outside egret.

A replica of egret calibrate's fit (egret/cost/calibrate.cc: Huber loss of
log(predicted / measured), delta 0.2, a prior of weight 0.005 per sample and
parameter, Levenberg-Marquardt from the prior) and of its leave-one-
architecture-out validation, on the per-node work `egret calibrate --nodes`
writes. docs/cost-model-outliers.md gives the figures it produced.

  egret calibrate ../shared/aihub/latency.tsv --models ~/.cache/egret/aihub \\
      --chipset "Snapdragon 8 Gen 3" -o /tmp/d.json --float-io --nodes /tmp/nodes.tsv
  python3 docs/cost-model/variants.py /tmp/nodes.tsv base qio qio+fp-input ...

The dump must be made with --float-io (every node priced on the HTP): the
variants named qio... apply quantized graph I/O here, as
egret/cost/quantized_io.cc does. One dump serves all three chipsets (the
graphs do not depend on the device). Reads ../shared/aihub/latency.tsv only.

Variants added 2026-11-30 (docs/cost-model-outliers.md, "Tried on 2026-11-30"):
  pad32         activations of compute ops (not Reshape/Transpose/...) stored with
                their channels padded to 32 (the crouton block) for the spill term
  pad32-flat    with pad32: an op other than a convolution whose data inputs are
                all flat (graph inputs, data-movement outputs, or such ops'
                outputs) keeps them flat, unpadded (the layout propagates)
  spill-serial  an activation's spill not overlapped with compute:
                max(compute, weights) + spill
  nsat          the matrix unit fed by activations: a matrix op with n (output
                channels, padded to 32) below a fitted N0 runs at n / N0 of its rate

Variants added 2026-11-30, second round (docs/cost-model-outliers.md, "HVX by op
class, VTCM liveness, dispatch hiding"):
  rate-trans    transcendental ops (Sigmoid, Softmax, Gelu, LayerNorm, Swish) at an
                HVX rate of their own (fitted, prior 1 cycle per ns)
  rate-dw       depthwise convolutions (elements x taps on HVX) at a rate of their own
  rate-pool     pooling and reductions at a rate of their own
  rate-move     pure data movement (Concat, slices, Transpose, Reshape, Split, Pad,
                Resize) at a rate of their own; rate-trans+rate-pool+rate-move is
                the whole split by op class
  pool-taps     pooling priced by public HVX instruction counts instead of its rule
                cost: one vector instruction per kernel tap and output vector
  max3          a node's dispatch hidden under its own work: max(compute, memory,
                dispatch) instead of max(compute, memory) + dispatch
  live          VTCM residency by liveness: tensors up to half of VTCM stay resident
                from producer to last reader while the live ones fit in VTCM; when
                they do not, the one used furthest ahead is written to DDR and read
                back at its next reader (no parameter)
  outpass       the matrix unit's output read out through HVX at a fitted number of
                cycles per output vector: matrix time max(MACs / rate, that pass)
"""
import csv
import math
import os
import sys
from collections import defaultdict

import numpy as np

LATENCY = os.path.join(os.path.dirname(__file__), '..', '..', '..', 'shared', 'aihub', 'latency.tsv')
CHIPS = ['Snapdragon 8 Gen 3', 'Snapdragon 8 Elite', 'Snapdragon X Elite']
PRIOR = [22500, 11250, 1.0, 60, 2000, 160000]  # egret/cost/device_params.cc PublicPrior
BYTES = {'Float32': 2, 'Float16': 2, 'QUInt8': 1, 'QInt8': 1, 'Bool': 1, 'QUInt16': 2,
         'QInt16': 2, 'Int32': 4, 'QInt32': 4, 'Int64': 8}  # Float32 runs as fp16
HALF_VTCM = 4 << 20
DATA_MOVEMENT = {'Reshape', 'Transpose', 'Flatten', 'Squeeze', 'ExpandDims'}


def measured(chipset):
    with open(LATENCY) as f:
        rows = csv.DictReader([l for l in f if not l.startswith('#')], delimiter='\t')
        return {(r['model'], r['precision']): float(r['inference_ms']) for r in rows
                if r['chipset'] == chipset and r['runtime'] == 'qnn_dlc'
                and r['precision'] in ('float', 'w8a8')}


def type_bytes(t):
    dtype, dims = t.split('[', 1)
    n = 1
    for d in dims.rstrip(']').split(','):
        if d:
            n *= int(d)
    return n * BYTES.get(dtype, 4)


def padded_bytes(t):
    """Bytes of a rank-4 (NHWC) tensor with its channels padded to 32."""
    dtype, dims = t.split('[', 1)
    d = [int(x) for x in dims.rstrip(']').split(',') if x]
    b = type_bytes(t)
    if len(d) == 4 and d[-1] % 32:
        b = b * (-(-d[-1] // 32) * 32) / d[-1]
    return b


def producer(inp):
    return inp.split(':', 1)[0].split('#')[1]


def data_inputs(row):
    return [i for i in row['inputs'].split(' ') if i and not i.startswith('$')]


def index_nodes(rows):
    """Each node by id, and how many data operands read each node."""
    by_id = {r['node']: r for r in rows}
    readers = defaultdict(int)
    for r in rows:
        for i in data_inputs(r):
            if not i.startswith('*'):
                readers[producer(i)] += 1
    return by_id, readers


def base_op(row):
    return row['op'].split('.')[0]


# --- what each variant changes in a network's work --------------------------

def quantized_io(rows):
    """1 = off the graph, 0.5 = at 8-bit, 0 = as is (egret/cost/quantized_io.cc)."""
    out = {}
    if not any(base_op(r) in ('Quantize', 'Dequantize') for r in rows):
        return out
    by_id, readers = index_nodes(rows)
    for r in rows:
        ins = data_inputs(r)
        if base_op(r) == 'Quantize' and len(ins) == 1 and ins[0].startswith('*Input'):
            out[r['node']] = 1.0
    for r in rows:
        if readers[r['node']] or r['dispatched'] != '1':
            continue
        chain, n = [], r['node']
        while n in by_id and (base_op(by_id[n]) == 'Dequantize' or base_op(by_id[n]) in DATA_MOVEMENT):
            chain.append(n)
            ins = [i for i in data_inputs(by_id[n]) if not i.startswith('*')]
            if len(ins) != 1 or readers[producer(ins[0])] != 1:
                break
            n = producer(ins[0])
        seen = False
        for c in reversed(chain):
            if base_op(by_id[c]) == 'Dequantize':
                out[c], seen = 1.0, True
            elif seen:
                out[c] = 0.5
    return out


def channel_last(rows, outputs):
    """Layout Transposes at the graph's inputs (and outputs) taken off the graph."""
    out = {}
    by_id, readers = index_nodes(rows)
    for r in rows:
        if base_op(r) != 'Transpose':
            continue
        ins = data_inputs(r)
        perm = r['inputs'].split('Int32[')[-1].rstrip(']')
        src = by_id.get(producer(ins[0])) if ins and not ins[0].startswith('*') else None
        from_input = ins and (ins[0].startswith('*Input') or (
            src is not None and base_op(src) == 'Quantize' and data_inputs(src)[0].startswith('*Input')))
        if perm == '0,2,3,1' and from_input:
            out[r['node']] = 1.0
        if outputs and perm == '0,3,1,2':
            n = r['node']
            while readers[n] == 1:
                nxt = [x for x in rows if any(not i.startswith('*') and producer(i) == n for i in data_inputs(x))]
                if len(nxt) != 1 or base_op(nxt[0]) != 'Dequantize':
                    break
                n = nxt[0]['node']
            if readers[n] == 0:
                out[r['node']] = 1.0
    return out


def resize_fold(rows):
    """What-if: Quantize(Resize(Dequantize(x))) folded into a quantized Resize."""
    out = {}
    by_id = {r['node']: r for r in rows}
    readers = defaultdict(list)
    for r in rows:
        for i in data_inputs(r):
            if not i.startswith('*'):
                readers[producer(i)].append(r['node'])
    for r in rows:
        ins = [i for i in data_inputs(r) if not i.startswith('*')]
        cons = readers[r['node']]
        if (base_op(r) == 'Resize' and len(cons) == 1 and base_op(by_id[cons[0]]) == 'Quantize'
                and len(ins) == 1 and base_op(by_id[producer(ins[0])]) == 'Dequantize'):
            out[cons[0]], out[r['node']] = 1.0, 0.5
            if len(readers[producer(ins[0])]) == 1:
                out[producer(ins[0])] = 1.0
    return out


def liveness_spill(rows, capacity=8 << 20):
    """DDR bytes each node adds when the activations live at once do not fit in
    VTCM: tensors up to half of VTCM stay resident from producer to last reader
    unless evicted (furthest next use first: written once, read back at its next
    reader); larger ones stream as in the model and take no room."""
    pos = {r['node']: i for i, r in enumerate(rows)}
    size, uses = {}, defaultdict(list)
    for i, r in enumerate(rows):
        if r['constant_inputs'] == '1':
            continue
        b = sum(type_bytes(o) for o in r['outputs'].split(' '))
        if b <= capacity // 2:
            size[r['node']] = b
        for x in data_inputs(r):
            if not x.startswith('*') and producer(x) in pos:
                uses[producer(x)].append(i)
    extra = np.zeros(len(rows))
    resident, spilled = {}, set()

    def next_use(t, i):
        return next((u for u in uses[t] if u > i), None)
    for i, r in enumerate(rows):
        need = [producer(x) for x in data_inputs(r) if not x.startswith('*') and producer(x) in size]
        for t in need:
            if t in spilled:
                extra[i] += size[t]
                spilled.discard(t)
                resident[t] = size[t]
        if r['node'] in size:
            resident[r['node']] = size[r['node']]
        keep = set(need) | {r['node']}
        while sum(resident.values()) > capacity:
            cands = [t for t in resident if t not in keep]
            if not cands:
                break
            t = max(cands, key=lambda t: next_use(t, i) or 1 << 30)
            extra[i] += resident.pop(t)
            spilled.add(t)
        for t in [t for t in resident if next_use(t, i) is None]:
            del resident[t]
    return extra


def arrays(rows, v):
    f = lambda k: np.array([float(r[k]) for r in rows])
    a = {k: f(k) for k in ('matrix8_macs', 'matrix16_macs', 'vector_cycles', 'ddr_bytes')}
    a['disp'] = f('dispatched')
    spill, spill_pad, float_out = [], [], []
    flat = set()
    for r in rows:
        outs = r['outputs'].split(' ')
        ins = [i for i in data_inputs(r)]
        is_flat = base_op(r) in DATA_MOVEMENT or (
            'pad32-flat' in v and float(r['matrix8_macs']) == 0 and float(r['matrix16_macs']) == 0
            and base_op(r) not in ('Conv2d', 'DepthWiseConv2d', 'TransposeConv2d')
            and all(i.startswith('*Input') or producer(i) in flat for i in ins
                    if not i.startswith('$Const')))
        if is_flat:
            flat.add(r['node'])
        for tb, dst in ((type_bytes, spill), (padded_bytes, spill_pad)):
            if tb is padded_bytes and is_flat:
                tb = type_bytes
            ob = sum(tb(o) for o in outs)
            s = sum(tb(o) for o in outs if tb(o) > HALF_VTCM)
            for i in data_inputs(r):
                b = tb(i.split(':', 1)[1])
                if b > HALF_VTCM:
                    s += min(b, ob) if base_op(r) in ('Slice_shape', 'StridedSlice') else b
            dst.append(s)
        spill[-1] = min(spill[-1], float(r['ddr_bytes']))
        float_out.append(1.0 if outs[0].startswith('Float') else 0.0)
    a['spill'] = np.array(spill)
    a['weights'] = a['ddr_bytes'] - a['spill']
    if 'live' in v:
        lv = liveness_spill(rows)
        a['spill'] = a['spill'] + lv
        a['ddr_bytes'] = a['ddr_bytes'] + lv
    if 'pad32' in v:
        a['spill'] = np.maximum(np.array(spill_pad), a['spill'])
        a['ddr_bytes'] = a['weights'] + a['spill']
    a['float_out'] = np.array(float_out)
    a['out_vectors'] = np.array([sum(type_bytes(o) for o in r['outputs'].split(' ')) / 128 for r in rows])
    a['cls'] = np.array([HVX_CLASS.get(base_op(r), 'ew') for r in rows])
    taps = []
    for r in rows:
        shapes = [i for i in r['inputs'].split(' ') if i.startswith('$Shape')]
        k = 1
        if base_op(r) in ('PoolMax2d', 'PoolAvg2d') and shapes:
            d = [int(x) for x in shapes[0].split('[', 1)[1].rstrip(']').split(',') if x]
            k = d[1] * d[2] if len(d) == 4 else 1
        taps.append(k)
    outvec = [sum(type_bytes(o) for o in r['outputs'].split(' ')) / 128 for r in rows]
    a['pool_taps_cycles'] = np.array(taps, float) * np.array(outvec)
    npad = []
    for r in rows:
        d = [int(x) for x in r['outputs'].split(' ')[0].split('[', 1)[1].rstrip(']').split(',') if x]
        npad.append(-(-d[-1] // 32) * 32 if d else 32)
    a['npad'] = np.array(npad, float)
    marks = {}
    if 'qio' in v:
        marks.update(quantized_io(rows))
    if 'channel-last-in' in v or 'channel-last' in v:
        marks.update(channel_last(rows, outputs='channel-last' in v and 'channel-last-in' not in v))
    if 'resize-fold' in v:
        marks.update(resize_fold(rows))
    m = np.array([marks.get(r['node'], 0.0) for r in rows])
    a['disp'] = a['disp'] * np.where(m == 1.0, 0.0, 1.0)
    half = np.where(m == 0.5, 0.5, 1.0)
    for k in ('vector_cycles', 'ddr_bytes', 'spill', 'weights'):
        a[k] = a[k] * half
    consumed, in_bytes, seen = set(), 0, set()
    for r in rows:
        for i in data_inputs(r):
            if i.startswith('*Input'):
                if i not in seen:
                    seen.add(i)
                    in_bytes += 2 * type_bytes(i.split(':', 1)[1])  # fp32 in DDR
            else:
                consumed.add(producer(i))
    out_bytes = sum(2 * type_bytes(o) for r in rows if r['node'] not in consumed
                    and r['dispatched'] == '1' for o in r['outputs'].split(' '))
    is_float = rows[0]['precision'] == 'float'
    a['io'] = (in_bytes + (out_bytes if 'fp-output' in v else 0)) if is_float else 0.0
    if 'any-input' in v and not is_float:
        a['io'] = in_bytes / 4  # the quantized input: 1 byte an element, not 4
    return a


HVX_CLASS = {'Sigmoid': 'trans', 'Softmax': 'trans', 'Gelu': 'trans', 'LayerNorm': 'trans', 'Swish': 'trans',
             'DepthWiseConv2d': 'dw', 'PoolMax2d': 'pool', 'PoolAvg2d': 'pool', 'ReduceMax': 'pool',
             'ReduceMean': 'pool', 'Argmax': 'pool', 'Concat': 'move', 'Slice_shape': 'move',
             'StridedSlice': 'move', 'Reshape': 'move', 'Transpose': 'move', 'Split': 'move',
             'Resize': 'move', 'Pad': 'move'}
RATE_CLASSES = ('trans', 'dw', 'pool', 'move')


def node_ns(p, a, v):
    m8, m16, hvx, ddr, disp = p[:5]
    cyc = a['vector_cycles']
    if 'pool-taps' in v:
        cyc = np.where(a['cls'] == 'pool', np.where(a['pool_taps_cycles'] > 0, a['pool_taps_cycles'], cyc), cyc)
    vec = cyc / hvx
    extra0 = 6 + ('nsat' in v) + ('outpass' in v)
    for c in RATE_CLASSES:
        if 'rate-' + c in v:
            vec = np.where(a['cls'] == c, cyc / p[extra0], vec)
            extra0 += 1
    mat = a['matrix8_macs'] / m8 + a['matrix16_macs'] / m16
    extra = 6
    if 'nsat' in v:
        mat = mat * np.maximum(1.0, p[extra] / a['npad'])
        extra += 1
    if 'outpass' in v:  # the matrix unit's output read out through HVX at p[extra] cycles a vector
        mat = np.maximum(mat, a['out_vectors'] * p[extra] / hvx)
        extra += 1
    comp = np.where((a['matrix8_macs'] > 0) | (a['matrix16_macs'] > 0), np.minimum(mat, vec), vec)
    extra += sum(('rate-' + c) in v for c in RATE_CLASSES)
    mem = a['ddr_bytes'] / ddr
    if 'spill-serial' in v:
        comp = comp + a['spill'] / ddr
        mem = a['weights'] / ddr
    if 'weight-bw' in v:
        mem = a['spill'] / ddr + a['weights'] / p[extra]
        extra += 1
    dispatch = np.full_like(comp, disp)
    if 'fp16-dispatch' in v:
        dispatch = np.where(a['float_out'] > 0, p[extra], disp)
        extra += 1
    if 'prefetch' in v:
        total, slot = 0.0, 0.0
        for i in np.nonzero(a['disp'] > 0)[0]:
            w = a['weights'][i] / ddr
            s = a['spill'][i] / ddr
            own = s + w - min(w, slot)
            t = max(comp[i], own)
            slot = max(0.0, t - own)
            total += t + dispatch[i]
        return total, extra
    if 'max3' in v:
        t = np.maximum(np.maximum(comp, mem), dispatch)
    elif 'overlap' in v:
        t = np.maximum(comp + dispatch, mem)
    else:
        t = np.maximum(comp, mem) + dispatch
    return float(np.sum(t * a['disp'])), extra


def predict_ms(p, a, v):
    ns, extra = node_ns(p, a, v)
    if 'fp-input' in v or 'any-input' in v:
        ns += a['io'] / p[extra]
    return (p[5] + ns) / 1e6


def prior_of(v):
    return PRIOR + [128] * ('nsat' in v) + [1.0] * ('outpass' in v) + [1.0] * sum(('rate-' + c) in v for c in RATE_CLASSES) + [60] * ('weight-bw' in v) + [2000] * ('fp16-dispatch' in v) + [10] * ('fp-input' in v or 'any-input' in v)


# --- the fit and its validation (egret/cost/calibrate.cc) --------------------

def huber(r, d):
    return 0.5 * r * r if abs(r) <= d else d * (abs(r) - 0.5 * d)


def fit(predict, idx, meas, prior, delta=0.2, weight=0.005):
    t0 = np.log(np.array(prior, float))
    t, lam, mu = t0.copy(), weight * len(idx), 1e-3
    y = np.array([meas[i] for i in idx])
    res = lambda th: np.log(np.array([predict(np.exp(th), i) for i in idx]) / y)
    obj = lambda r, th: sum(huber(x, delta) for x in r) + 0.5 * lam * np.sum((th - t0) ** 2)
    r = res(t)
    f = obj(r, t)
    for _ in range(200):
        jac = np.zeros((len(r), len(t)))
        for j in range(len(t)):
            tj = t.copy()
            tj[j] += 1e-6
            jac[:, j] = (res(tj) - r) / 1e-6
        w = np.where(np.abs(r) <= delta, 1.0, delta / np.maximum(np.abs(r), 1e-300))
        a = (jac * w[:, None]).T @ jac + lam * np.eye(len(t))
        g = (jac * w[:, None]).T @ r + lam * (t - t0)
        improved = converged = False
        for _ in range(20):
            step = np.linalg.solve(a + np.diag(mu * np.maximum(np.diag(a), 1e-12)), -g)
            tn = t + np.clip(step, -3, 3)
            rn = res(tn)
            fn = obj(rn, tn)
            if np.isfinite(fn) and fn < f:
                converged = f - fn < 1e-9 * fn
                t, r, f, mu, improved = tn, rn, fn, max(mu / 3, 1e-9), True
                break
            mu *= 4
        if not improved or converged:
            break
    return np.exp(t)


def quantile(v, q):
    v = sorted(v)
    pos = q * (len(v) - 1)
    lo = int(math.floor(pos))
    hi = min(lo + 1, len(v) - 1)
    return v[lo] + (v[hi] - v[lo]) * (pos - lo)


def spearman(p, m):
    def ranks(x):
        order = sorted(range(len(x)), key=lambda i: x[i])
        rk, i = [0.0] * len(x), 0
        while i < len(order):
            j = i
            while j + 1 < len(order) and x[order[j + 1]] == x[order[i]]:
                j += 1
            for k in range(i, j + 1):
                rk[order[k]] = (i + j) / 2 + 1
            i = j + 1
        return rk
    rp, rm = ranks(p), ranks(m)
    mean = (len(p) + 1) / 2
    cov = sum((a - mean) * (b - mean) for a, b in zip(rp, rm))
    return cov / math.sqrt(sum((a - mean) ** 2 for a in rp) * sum((b - mean) ** 2 for b in rm))


def run(nodes_path, v, verbose):
    nets = {}
    with open(nodes_path) as f:
        for row in csv.DictReader(f, delimiter='\t'):
            nets.setdefault((row['model'], row['precision']), []).append(row)
    for chip in CHIPS:
        meas = measured(chip)
        keys = [k for k in nets if k in meas]
        work = [arrays(nets[k], v) for k in keys]
        m = [meas[k] for k in keys]
        predict = lambda p, i: predict_ms(p, work[i], v)
        held = [0.0] * len(keys)
        for arch in dict.fromkeys(k[0] for k in keys):
            train = [i for i, k in enumerate(keys) if k[0] != arch]
            p = fit(predict, train, m, prior_of(v))
            for i, k in enumerate(keys):
                if k[0] == arch:
                    held[i] = predict(p, i)
        line = []
        for prec in ('float', 'w8a8'):
            ii = [i for i, k in enumerate(keys) if k[1] == prec]
            rel = [abs(held[i] / m[i] - 1) for i in ii]
            line.append('%s %.1f / %.1f / %.2f' % (prec, 100 * quantile(rel, .5), 100 * quantile(rel, .9),
                                                   spearman([held[i] for i in ii], [m[i] for i in ii])))
        print('%-28s %-20s %s' % (v, chip, '   '.join(line)), flush=True)
        if verbose:
            for (arch, prec), h, mm in sorted(zip(keys, held, m), key=lambda x: x[1] / x[2]):
                print('    %-22s %-6s %.3f' % (arch, prec, h / mm))


if __name__ == '__main__':
    args = [a for a in sys.argv[1:] if a != '-v']
    if len(args) < 2:
        sys.exit(__doc__)
    for variant in args[1:]:
        run(args[0], variant, '-v' in sys.argv)
