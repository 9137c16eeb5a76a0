"""The project's tolerance model (docs/Numerics.md) for the Python tests.

References are computed by PyTorch in float64 from the very values Boo read
(inputs are exact in their storage type). A reduction of n terms summed in
f32 errs by at most gamma_{n+1} * sum|term|, and the one rounding to the
storage type adds u_out * |value|. sum|term| is the same op applied to
|operands|. Layer-norm bounds follow test/Integration/Inputs/numerics_ref.py
(a first-order analysis with a factor 2 of slack).
"""

import math

import torch

U32 = 2.0**-24
UNIT_ROUNDOFF = {torch.float32: 2.0**-24, torch.float16: 2.0**-11, torch.bfloat16: 2.0**-8}
SUBNORMAL_HALF = {torch.float32: 2.0**-150, torch.float16: 2.0**-25, torch.bfloat16: 2.0**-134}


def gamma(n: int) -> float:
    return n * U32 / (1 - n * U32)


def reduction_bound(ref, abs_sum, n, dtype):
    u = UNIT_ROUNDOFF[dtype]
    return (1 + u) * gamma(n + 1) * abs_sum + u * ref.abs() + SUBNORMAL_HALF[dtype]


def assert_within(name, got, ref, bound):
    """got (any dtype) within bound of the float64 ref, element by element."""
    assert tuple(got.shape) == tuple(ref.shape), f"{name}: shape {tuple(got.shape)}, expected {tuple(ref.shape)}"
    err = (got.double() - ref).abs()
    bad = ~(err <= bound)  # NaN counts as bad
    if bad.any():
        i = tuple(int(v) for v in bad.nonzero()[0])
        raise AssertionError(
            f"{name}: {int(bad.sum())} of {got.numel()} elements outside the bound; "
            f"first at {list(i)}: got {got.double()[i].item()!r}, expected "
            f"{ref[i].item()!r} +- {bound[i].item()!r}"
        )
    return float((err / bound).max()) if got.numel() else 0.0


def conv_reference(x, w, b, dy, stride, padding, dilation, groups):
    """float64 (out, grads) and the same ops on |operands| (sums of |terms|),
    all in PyTorch's order. grads are (dx, dw, db) of <conv(x, w, b), dy>."""
    conv = {3: torch.nn.functional.conv1d, 4: torch.nn.functional.conv2d, 5: torch.nn.functional.conv3d}[x.dim()]

    def run(xs, ws, bs, dys):
        xs, ws = xs.double().requires_grad_(), ws.double().requires_grad_()
        bs = None if bs is None else bs.double().requires_grad_()
        out = conv(xs, ws, bs, stride=stride, padding=padding, dilation=dilation, groups=groups)
        if dys is None:
            return out.detach(), None
        grads = torch.autograd.grad(out, [t for t in (xs, ws, bs) if t is not None], dys.double())
        return out.detach(), grads

    ref = run(x, w, b, dy)
    absolute = run(x.abs(), w.abs(), None if b is None else b.abs(), None if dy is None else dy.abs())
    return ref, absolute


def check_conv_forward(y, x, w, b, stride, padding, dilation, groups):
    (ref, _), (abs_sum, _) = conv_reference(x, w, b, None, stride, padding, dilation, groups)
    n = w.shape[1] * math.prod(w.shape[2:]) + (b is not None)
    return assert_within("output", y, ref, reduction_bound(ref, abs_sum, n, y.dtype))


def check_conv_backward(grads, x, w, b, dy, stride, padding, dilation, groups):
    """grads: (dx, dw, db) with None for the ones not computed."""
    (_, ref), (_, abs_sum) = conv_reference(x, w, b, dy, stride, padding, dilation, groups)
    k = w.shape[0] // groups
    terms = [k * math.prod(w.shape[2:]), dy.shape[0] * math.prod(dy.shape[2:]), dy.shape[0] * math.prod(dy.shape[2:])]
    ratios = []
    for name, got, r, s, n in zip(("grad_input", "grad_weight", "grad_bias"), grads, ref, abs_sum, terms):
        if got is not None:
            ratios.append(assert_within(name, got, r, reduction_bound(r, s, n, got.dtype)))
    return max(ratios, default=0.0)


def check_layer_norm_forward(y, mean, rstd, x, normalized_rank, weight, bias, eps):
    dt = y.dtype
    u = UNIT_ROUNDOFF[dt]
    x = x.double()
    axes = tuple(range(x.dim() - normalized_rank, x.dim()))
    m = math.prod(x.shape[x.dim() - normalized_rank:])
    gm = gamma(m + 4)
    w = weight.double() if weight is not None else torch.ones(x.shape[x.dim() - normalized_rank:], dtype=torch.float64)
    b = bias.double() if bias is not None else torch.zeros_like(w)
    eps = float(torch.tensor(eps, dtype=torch.float32))  # the kernel's epsilon is an f32
    mu = x.mean(dim=axes, keepdim=True)
    var = ((x - mu) ** 2).mean(dim=axes, keepdim=True)
    rs = 1 / torch.sqrt(var + eps)
    xhat = (x - mu) * rs
    ref = xhat * w + b
    err_mean = gm * x.abs().mean(dim=axes, keepdim=True)
    rel_rstd = 0.5 * ((gm + 3 * U32) * var + err_mean**2) / (var + eps) + 3 * U32
    err_xhat = rs * err_mean + xhat.abs() * (rel_rstd + 2 * U32)
    err_y = w.abs() * err_xhat + 2 * U32 * ((xhat * w).abs() + ref.abs())
    assert_within("y", y, ref, (1 + u) * 2 * err_y + u * ref.abs() + SUBNORMAL_HALF[dt])
    assert_within("mean", mean, mu.reshape(mean.shape), (2 * err_mean + U32 * mu.abs()).reshape(mean.shape))
    assert_within("rstd", rstd, rs.reshape(rstd.shape), ((2 * rel_rstd + U32) * rs).reshape(rstd.shape))


def check_layer_norm_backward(grads, dy, x, normalized_rank, weight, mean, rstd):
    """grads: (dx, dweight, dbias), None where not computed; mean and rstd
    are the ones the kernel was given."""
    dt = x.dtype
    u = UNIT_ROUNDOFF[dt]
    x, dy = x.double(), dy.double()
    nr = normalized_rank
    axes = tuple(range(x.dim() - nr, x.dim()))
    rows = tuple(range(x.dim() - nr))
    m = math.prod(x.shape[x.dim() - nr:])
    gm = gamma(m + 4)
    w = weight.double() if weight is not None else torch.ones(x.shape[x.dim() - nr:], dtype=torch.float64)
    mu = mean.double().reshape(tuple(x.shape[: x.dim() - nr]) + (1,) * nr)
    rs = rstd.double().reshape(mu.shape)
    xhat = (x - mu) * rs
    g = dy * w
    dx = rs * (g - g.mean(dim=axes, keepdim=True) - xhat * (g * xhat).mean(dim=axes, keepdim=True))
    # torch sums everything over dim=(); no rows means no sum.
    rsum = lambda t: t.sum(dim=rows) if rows else t
    dweight = rsum(dy * xhat)
    dbias = rsum(dy)
    abs_dx = rs * (g.abs() + g.abs().mean(dim=axes, keepdim=True)
                   + xhat.abs() * (g * xhat).abs().mean(dim=axes, keepdim=True))
    gr = gamma(x.numel() // m + 4)
    fin = lambda err, v: (1 + u) * 2 * err + u * v.abs() + SUBNORMAL_HALF[dt]
    bounds = [fin((gm + 10 * U32) * abs_dx, dx),
              fin((gr + 3 * U32) * rsum((dy * xhat).abs()), dweight),
              fin(gr * rsum(dy.abs()), dbias)]
    for name, got, ref, bound in zip(("dx", "dweight", "dbias"), grads, (dx, dweight, dbias), bounds):
        if got is not None:
            assert_within(name, got, ref, bound)
