#!/usr/bin/env python3
"""A float64 NumPy reference for Boo's ops, for the lit integration tests.

It is written independently of Boo's C++ (it parses layout letters itself,
and formulates the backward convolutions as scatters, the adjoints of the
forward's gather), so that it can catch the compiler's mistakes rather than
share them. docs/Numerics.md explains the tolerance model, which is the same
as the C++ sweeps': inputs are exact in their storage type, products are
summed in f32 (|error| <= gamma_n * sum|terms|, gamma_n = n u / (1 - n u),
u = 2^-24) and the result is rounded once to the storage type (u_out * |v|).

Usage:
  numerics_ref.py gen DIR SEED NAME=SHAPE:DTYPE[:LO:HI] ...
      Writes DIR/NAME.npy with uniform random values already representable in
      DTYPE: f32 and f16 files hold their own type; bf16 files are f32 with
      the low 16 bits zero (NumPy has no bf16; boo-run-module reads them
      exactly).
  numerics_ref.py conv DIR DTYPE DIRECTION [options]
      DIRECTION is fwd, bwd_data, bwd_weight or bwd_bias. Reads the operands
      from DIR (x.npy, w.npy, b.npy, dy.npy as the direction needs) and the
      result DIR/out.npy, and compares.
  numerics_ref.py layer_norm DIR DTYPE [options]
  numerics_ref.py layer_norm_bwd DIR DTYPE [options]
  numerics_ref.py activation DIR DTYPE KIND [options]
Each check prints "PASS ..." or "FAIL ..." with the first mismatching index,
and exits 1 on failure.
"""

import argparse
import itertools
import math
import os
import sys

import numpy as np

U32 = 2.0**-24
UNIT_ROUNDOFF = {"f32": 2.0**-24, "f16": 2.0**-11, "bf16": 2.0**-8}
SUBNORMAL_HALF = {"f32": 2.0**-150, "f16": 2.0**-25, "bf16": 2.0**-134}


def gamma(n):
    return n * U32 / (1 - n * U32)


# --- Storage types ----------------------------------------------------------


def round_bf16(a):
    """Rounds f32 values to bf16 (nearest, ties to even), kept as f32."""
    bits = np.asarray(a, np.float32).view(np.uint32).astype(np.uint64)
    bits = (bits + 0x7FFF + ((bits >> 16) & 1)) & 0xFFFF0000
    return bits.astype(np.uint32).view(np.float32)


def to_storage(a, dtype):
    if dtype == "f32":
        return np.asarray(a, np.float32)
    if dtype == "f16":
        return np.asarray(a, np.float16)
    if dtype == "bf16":
        return round_bf16(np.asarray(a, np.float32))
    raise ValueError(dtype)


def cmd_gen(argv):
    out_dir, seed = argv[0], int(argv[1])
    rng = np.random.default_rng(seed)
    os.makedirs(out_dir, exist_ok=True)
    for spec in argv[2:]:
        name, rest = spec.split("=")
        fields = rest.split(":")
        shape = tuple(int(d) for d in fields[0].split("x")) if fields[0] else ()
        lo, hi = (float(fields[2]), float(fields[3])) if len(fields) > 2 else (-1, 1)
        values = to_storage(rng.uniform(lo, hi, shape), fields[1])
        np.save(os.path.join(out_dir, name + ".npy"), values)


def load(d, name):
    return np.load(os.path.join(d, name + ".npy")).astype(np.float64)


# --- Layouts ----------------------------------------------------------------


def layout_perm(layout, filter_role, rank):
    """perm[i] = position of canonical dim i: (N|K, C, spatial outermost
    first). Activations: N C D H W. Filters: K (or F, or N as MIOpen spells
    it), C, Z/D, Y/H, X/W."""
    spatial = [("D", "Z"), ("H", "Y"), ("W", "X")][3 - rank:]
    names = [("K", "F", "N") if filter_role else ("N",), ("C",)]
    names += [s if filter_role else (s[0],) for s in spatial]
    layout = layout.upper()
    assert len(layout) == rank + 2, layout
    perm = [None] * (rank + 2)
    for pos, letter in enumerate(layout):
        dims = [i for i, n in enumerate(names) if letter in n]
        assert len(dims) == 1 and perm[dims[0]] is None, (layout, letter)
        perm[dims[0]] = pos
    return perm


def to_canonical(a, perm):
    return np.transpose(a, perm)


def from_canonical(a, perm):
    return np.transpose(a, np.argsort(perm))


# --- Convolution --------------------------------------------------------------


class Conv:
    def __init__(self, args, x_shape_canon, w_shape_canon):
        self.rank = len(w_shape_canon) - 2
        r = self.rank
        ints = lambda s, d: [int(v) for v in s.split(",")] if s else [d] * r
        self.strides = ints(args.strides, 1)
        self.dil = ints(args.dilations, 1)
        self.pad_lo = ints(args.pad_low, 0)
        self.pad_hi = ints(args.pad_high, 0)
        self.groups = args.groups
        self.n, self.c = x_shape_canon[:2]
        self.k = w_shape_canon[0]
        self.insp = list(x_shape_canon[2:])
        self.fsp = list(w_shape_canon[2:])
        self.outsp = [
            (i + lo + hi - d * (f - 1) - 1) // s + 1
            for i, lo, hi, d, f, s in zip(
                self.insp, self.pad_lo, self.pad_hi, self.dil, self.fsp, self.strides
            )
        ]

    def tap_slice(self, tap):
        """The padded-input positions tap `tap` reads, for every output."""
        return tuple(
            slice(f * d, f * d + (o - 1) * s + 1, s)
            for f, d, o, s in zip(tap, self.dil, self.outsp, self.strides)
        )

    def padded_shape(self):
        return [i + lo + hi for i, lo, hi in zip(self.insp, self.pad_lo, self.pad_hi)]

    def grouped(self, a):  # (N, C, ...) -> (N, G, C/G, ...)
        return a.reshape((a.shape[0], self.groups, a.shape[1] // self.groups) + a.shape[2:])

    def forward(self, x, w, b=None):
        g = self.groups
        xp = np.zeros((self.n, self.c) + tuple(self.padded_shape()))
        xp[(slice(None), slice(None)) + tuple(
            slice(lo, lo + i) for lo, i in zip(self.pad_lo, self.insp))] = x
        wg = w.reshape((g, self.k // g) + w.shape[1:])
        y = np.zeros((self.n, g, self.k // g) + tuple(self.outsp))
        for tap in itertools.product(*[range(f) for f in self.fsp]):
            xs = self.grouped(xp[(slice(None), slice(None)) + self.tap_slice(tap)])
            y += np.einsum("ngc...,gkc->ngk...", xs, wg[(Ellipsis,) + tap])
        y = y.reshape((self.n, self.k) + tuple(self.outsp))
        if b is not None:
            y += b.reshape((1, self.k) + (1,) * self.rank)
        return y

    def bwd_data(self, dy, w):
        # Scatter: every forward term x[i] w[f] -> y[o] adds dy[o] w[f] to dx[i].
        g = self.groups
        dxp = np.zeros((self.n, self.c) + tuple(self.padded_shape()))
        wg = w.reshape((g, self.k // g) + w.shape[1:])
        dyg = self.grouped(dy)
        for tap in itertools.product(*[range(f) for f in self.fsp]):
            contrib = np.einsum("ngk...,gkc->ngc...", dyg, wg[(Ellipsis,) + tap])
            dxp[(slice(None), slice(None)) + self.tap_slice(tap)] += contrib.reshape(
                (self.n, self.c) + contrib.shape[3:])
        return dxp[(slice(None), slice(None)) + tuple(
            slice(lo, lo + i) for lo, i in zip(self.pad_lo, self.insp))]

    def bwd_weight(self, dy, x):
        g = self.groups
        xp = np.zeros((self.n, self.c) + tuple(self.padded_shape()))
        xp[(slice(None), slice(None)) + tuple(
            slice(lo, lo + i) for lo, i in zip(self.pad_lo, self.insp))] = x
        dw = np.zeros((g, self.k // g, self.c // g) + tuple(self.fsp))
        dyg = self.grouped(dy)
        sp = "xyz"[:self.rank]
        for tap in itertools.product(*[range(f) for f in self.fsp]):
            xs = self.grouped(xp[(slice(None), slice(None)) + self.tap_slice(tap)])
            dw[(Ellipsis,) + tap] = np.einsum(f"ngk{sp},ngc{sp}->gkc", dyg, xs)
        return dw.reshape((self.k, self.c // g) + tuple(self.fsp))


# --- Comparison ---------------------------------------------------------------


def compare(name, got, ref, bound):
    got = np.asarray(got, np.float64)
    if got.shape != ref.shape:
        print(f"FAIL {name}: shape {got.shape}, expected {ref.shape}")
        return False
    err = np.abs(got - ref)
    bad = ~(err <= bound)  # NaN counts as bad
    ratio = float(np.max(err / bound)) if got.size else 0.0
    if bad.any():
        i = tuple(int(v) for v in np.argwhere(bad)[0])
        print(f"FAIL {name}: {int(bad.sum())} of {got.size} elements outside "
              f"the bound; first at {list(i)}: got {got[i]!r}, expected "
              f"{ref[i]!r} +- {bound[i]!r}")
        return False
    print(f"PASS {name}: {got.size} elements, max |err|/bound = {ratio:.3f}")
    return True


def reduction_bound(ref, abs_sum, n, dtype):
    u = UNIT_ROUNDOFF[dtype]
    return (1 + u) * gamma(n + 1) * abs_sum + u * np.abs(ref) + SUBNORMAL_HALF[dtype]


def cmd_conv(argv):
    p = argparse.ArgumentParser(prog="numerics_ref.py conv")
    p.add_argument("dir")
    p.add_argument("dtype")
    p.add_argument("direction")
    p.add_argument("--layouts", default="", help="input,filter,output")
    p.add_argument("--strides", default="")
    p.add_argument("--dilations", default="")
    p.add_argument("--pad-low", default="")
    p.add_argument("--pad-high", default="")
    p.add_argument("--groups", type=int, default=1)
    p.add_argument("--bias", action="store_true")
    p.add_argument("--x-shape", default="", help="for bwd_data: the input shape")
    p.add_argument("--w-shape", default="", help="for bwd_weight: the filter shape")
    p.add_argument("--activation", default="", help="forward epilogue")
    a = p.parse_args(argv)
    d, dt = a.dir, a.dtype
    shape = lambda s: tuple(int(v) for v in s.split("x"))
    if a.direction in ("fwd", "bwd_data"):
        w = load(d, "w")
        rank = w.ndim - 2
    elif a.direction == "bwd_weight":
        rank = len(shape(a.w_shape)) - 2
    else:
        rank = load(d, "dy").ndim - 2
    lay = a.layouts.split(",") if a.layouts else [
        "NC" + "DHW"[3 - rank:], "KC" + "ZYX"[3 - rank:], "NC" + "DHW"[3 - rank:]]
    pin, pfil, pout = (layout_perm(lay[0], False, rank),
                       layout_perm(lay[1], True, rank),
                       layout_perm(lay[2], False, rank))
    got = load(d, "out")

    if a.direction == "bwd_bias":
        dy = to_canonical(load(d, "dy"), pout)
        axes = tuple(i for i in range(dy.ndim) if i != 1)
        ref = dy.sum(axis=axes)
        n = dy.size // dy.shape[1]
        bound = reduction_bound(ref, np.abs(dy).sum(axis=axes), n, dt)
        return compare("conv_bwd_bias", got, ref, bound)

    if a.direction == "fwd":
        x = to_canonical(load(d, "x"), pin)
        wc = to_canonical(w, pfil)
        conv = Conv(a, x.shape, wc.shape)
        b = load(d, "b") if a.bias else None
        ref = conv.forward(x, wc, b)
        abs_sum = conv.forward(np.abs(x), np.abs(wc), None if b is None else np.abs(b))
        n = conv.c // conv.groups * math.prod(conv.fsp) + 1
        bound = reduction_bound(ref, abs_sum, n, dt)
        if a.activation:
            ref, bound = activation_bounded(a.activation, ref, bound, dt)
        return compare("conv", got, from_canonical(ref, pout),
                       from_canonical(bound, pout))
    if a.direction == "bwd_data":
        dy = to_canonical(load(d, "dy"), pout)
        wc = to_canonical(w, pfil)
        xshape = to_canonical(np.zeros(shape(a.x_shape)), pin).shape
        conv = Conv(a, xshape, wc.shape)
        ref = conv.bwd_data(dy, wc)
        abs_sum = conv.bwd_data(np.abs(dy), np.abs(wc))
        n = conv.k // conv.groups * math.prod(conv.fsp)
        return compare("conv_bwd_data", got, from_canonical(ref, pin),
                       from_canonical(reduction_bound(ref, abs_sum, n, dt), pin))
    if a.direction == "bwd_weight":
        dy = to_canonical(load(d, "dy"), pout)
        x = to_canonical(load(d, "x"), pin)
        wshape = to_canonical(np.zeros(shape(a.w_shape)), pfil).shape
        conv = Conv(a, x.shape, wshape)
        ref = conv.bwd_weight(dy, x)
        abs_sum = conv.bwd_weight(np.abs(dy), np.abs(x))
        n = conv.n * math.prod(conv.outsp)
        return compare("conv_bwd_weight", got, from_canonical(ref, pfil),
                       from_canonical(reduction_bound(ref, abs_sum, n, dt), pfil))
    raise ValueError(a.direction)


# --- Element-wise -------------------------------------------------------------

ERF = np.vectorize(math.erf)
LIPSCHITZ = {"relu": 1, "sigmoid": 0.25, "tanh": 1, "gelu": 1.13,
             "gelu_tanh": 1.13, "silu": 1.13, "leaky_relu": 1, "clamp": 1}


def activation(kind, x, alpha=0.0, lo=0.0, hi=0.0):
    if kind == "relu":
        return np.maximum(x, 0)
    if kind == "sigmoid":
        return 1 / (1 + np.exp(-x))
    if kind == "tanh":
        return np.tanh(x)
    if kind == "gelu":
        return 0.5 * x * (1 + ERF(x / math.sqrt(2)))
    if kind == "gelu_tanh":
        return 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x**3)))
    if kind == "silu":
        return x / (1 + np.exp(-x))
    if kind == "leaky_relu":
        return np.where(x >= 0, x, alpha * x)
    if kind == "clamp":
        return np.minimum(np.maximum(x, lo), hi)
    raise ValueError(kind)


def activation_bounded(kind, x, x_bound, dtype, alpha=0.0, lo=0.0, hi=0.0):
    """f(x) and its bound: the input's error through f's Lipschitz constant,
    32 f32 ulps of evaluation error (relative to |x| + |f(x)|), and the
    rounding to `dtype`."""
    u = UNIT_ROUNDOFF[dtype]
    y = activation(kind, x, alpha, lo, hi)
    lip = max(LIPSCHITZ[kind], abs(alpha))
    err = lip * x_bound + 32 * U32 * (np.abs(x) + x_bound + np.abs(y))
    return y, (1 + u) * err + u * np.abs(y) + SUBNORMAL_HALF[dtype]


def cmd_activation(argv):
    p = argparse.ArgumentParser(prog="numerics_ref.py activation")
    p.add_argument("dir")
    p.add_argument("dtype")
    p.add_argument("kind")
    p.add_argument("--alpha", type=float, default=0.0)
    p.add_argument("--min", type=float, default=0.0)
    p.add_argument("--max", type=float, default=0.0)
    a = p.parse_args(argv)
    x = load(a.dir, "x")
    y, bound = activation_bounded(a.kind, x, np.zeros_like(x), a.dtype,
                                  a.alpha, a.min, a.max)
    return compare(a.kind, load(a.dir, "out"), y, bound)


# --- Layer norm ---------------------------------------------------------------


def cmd_layer_norm(argv, backward):
    p = argparse.ArgumentParser(prog="numerics_ref.py layer_norm")
    p.add_argument("dir")
    p.add_argument("dtype")
    p.add_argument("--normalized-rank", type=int, default=1)
    p.add_argument("--epsilon", type=float, default=1e-5)
    p.add_argument("--weight", action="store_true")
    p.add_argument("--bias", action="store_true")
    a = p.parse_args(argv)
    d, dt, nr = a.dir, a.dtype, a.normalized_rank
    u = UNIT_ROUNDOFF[dt]
    x = load(d, "x")
    axes = tuple(range(x.ndim - nr, x.ndim))
    m = math.prod(x.shape[x.ndim - nr:])
    gm = gamma(m + 4)
    w = load(d, "w") if a.weight else np.ones(x.shape[x.ndim - nr:])
    eps = float(np.float32(a.epsilon))  # the kernel's epsilon is an f32
    if not backward:
        mean = x.mean(axis=axes, keepdims=True)
        var = ((x - mean) ** 2).mean(axis=axes, keepdims=True)
        rstd = 1 / np.sqrt(var + eps)
        xhat = (x - mean) * rstd
        b = load(d, "b") if a.bias else np.zeros_like(w)
        y = xhat * w + b
        # First-order bounds (docs/Numerics.md), with a factor 2 of slack.
        err_mean = gm * np.abs(x).mean(axis=axes, keepdims=True)
        rel_rstd = 0.5 * ((gm + 3 * U32) * var + err_mean**2) / (var + eps) + 3 * U32
        err_xhat = rstd * err_mean + np.abs(xhat) * (rel_rstd + 2 * U32)
        err_y = np.abs(w) * err_xhat + 2 * U32 * (np.abs(xhat * w) + np.abs(y))
        ok = compare("y", load(d, "y"), y,
                     (1 + u) * 2 * err_y + u * np.abs(y) + SUBNORMAL_HALF[dt])
        us = UNIT_ROUNDOFF["f32"]
        ok &= compare("mean", load(d, "mean"), mean.squeeze(axes),
                      (2 * err_mean + us * np.abs(mean)).squeeze(axes))
        ok &= compare("rstd", load(d, "rstd"), rstd.squeeze(axes),
                      ((2 * rel_rstd + us) * rstd).squeeze(axes))
        return ok
    dy = load(d, "dy")
    mean = load(d, "mean").reshape(x.shape[:x.ndim - nr] + (1,) * nr)
    rstd = load(d, "rstd").reshape(mean.shape)
    xhat = (x - mean) * rstd
    g = dy * w
    dx = rstd * (g - g.mean(axis=axes, keepdims=True)
                 - xhat * (g * xhat).mean(axis=axes, keepdims=True))
    rows = tuple(range(x.ndim - nr))
    dweight = (dy * xhat).sum(axis=rows)
    dbias = dy.sum(axis=rows)
    abs_dx = rstd * (np.abs(g) + np.abs(g).mean(axis=axes, keepdims=True)
                     + np.abs(xhat) * np.abs(g * xhat).mean(axis=axes, keepdims=True))
    nrows = x.size // m
    gr = gamma(nrows + 4)
    fin = lambda err, v: (1 + u) * 2 * err + u * np.abs(v) + SUBNORMAL_HALF[dt]
    ok = compare("dx", load(d, "dx"), dx, fin((gm + 10 * U32) * abs_dx, dx))
    ok &= compare("dweight", load(d, "dweight"), dweight,
                  fin((gr + 3 * U32) * np.abs(dy * xhat).sum(axis=rows), dweight))
    ok &= compare("dbias", load(d, "dbias"), dbias,
                  fin(gr * np.abs(dy).sum(axis=rows), dbias))
    return ok


def main():
    cmd, argv = sys.argv[1], sys.argv[2:]
    if cmd == "gen":
        cmd_gen(argv)
        return 0
    ok = {"conv": cmd_conv,
          "activation": cmd_activation,
          "layer_norm": lambda v: cmd_layer_norm(v, False),
          "layer_norm_bwd": lambda v: cmd_layer_norm(v, True)}[cmd](argv)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
