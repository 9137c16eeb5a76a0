"""Boo's batch norm for PyTorch: boo_batch_norm, with
torch.nn.functional.batch_norm's arguments and semantics (per channel,
"spatial"; docs/MIOpenImport.md's ``bnorm`` commands).

Two torch custom ops, ``boo::batch_norm`` and ``boo::batch_norm_backward``,
are functional: the forward returns the running statistics' new values, and
boo_batch_norm copies them into the given tensors. Their arguments are
aten's (``native_batch_norm``, ``native_batch_norm_backward``), so the FX
rewrite (fusion.py) maps aten's nodes onto them one for one.

How a call reaches a kernel:

- A [N, C] input is read as [N, C, 1, 1], a [N, C, L] one as [N, C, 1, L];
  4-D and 5-D inputs as they are. A channels-last input
  (``torch.channels_last``, ``channels_last_3d``, or [N, C, L] with strides
  (L*C, 1, C)) runs an NHWC (NDHWC) kernel without a copy, and its output is
  channels-last; any other non-dense input is made dense once (counted in
  ``boo.stats()["copies"]``).
- Each base argument covers one combination of dtypes (input, weight and
  bias, statistics): bnorm (f32, f32, f32), bnormfp16 (f16, f16, f16),
  bnormfp16fp32 (f16, f16, f32), bnormbfp16fp32 (bf16, bf16, f32) and
  bnormbfp16 (bf16, f32, f32). Other combinations, such as an f16 input
  under autocast with f32 parameters, convert the parameters or statistics
  to the nearest covered one (fewest conversions, then f32 statistics), each
  conversion counted as a copy; gradients and new running statistics come
  back in the given dtypes.
- A missing weight or bias is ones or zeros.
- Momentum and eps are compile-time constants of the kernel: each distinct
  value compiles once. ``momentum=None`` (nn.BatchNorm's cumulative average)
  is not an argument F.batch_norm takes either, and raises ValueError:
  nn.BatchNorm passes ``1 / num_batches_tracked``, a new float each step.
- An input with no elements runs no kernel: the output is empty and the
  running statistics stay as they were, as in PyTorch.

Backward in training mode (or with batch statistics) is one Boo kernel with
the saved mean and rstd. In eval mode the statistics are constants: dx =
dy * weight * rstd is the inference kernel run on dy (zero mean and bias),
and dweight and dbias come from the backward kernel given the running mean
and 1/sqrt(running_var + eps).
"""

from __future__ import annotations

from typing import Optional, Sequence

import torch

from .ops import _is_channels_last, _needs_grad, _plain_eager, is_boo_backward_enabled
from .runtime import _stats, get_device, get_launchable, make_dense

__all__ = ["boo_batch_norm"]

Tensor = torch.Tensor
_F32, _F16, _BF16 = torch.float32, torch.float16, torch.bfloat16
_FLOATS = (_F32, _F16, _BF16)

# The base argument of each covered (input, weight/bias, statistics) dtype
# combination.
_BASES = {
    (_F32, _F32, _F32): "bnorm",
    (_F16, _F16, _F16): "bnormfp16",
    (_F16, _F16, _F32): "bnormfp16fp32",
    (_BF16, _BF16, _F32): "bnormbfp16fp32",
    (_BF16, _F32, _F32): "bnormbfp16",
}
_LAYOUTS = {4: ("NCHW", "NHWC"), 5: ("NCDHW", "NDHWC")}


def _kernel_dtypes(x: torch.dtype, params: Optional[torch.dtype],
                   stats: Optional[torch.dtype]) -> tuple[str, torch.dtype, torch.dtype]:
    """(base argument, weight/bias dtype, statistics dtype) of the covered
    combination nearest the tensors' dtypes (None: absent, any fits)."""
    def cost(key):
        _, p, s = key
        return ((params is not None and p != params) + (stats is not None and s != stats), s != _F32)
    key = min((k for k in _BASES if k[0] == x), key=cost)
    return _BASES[key], key[1], key[2]


def _first_dtype(*tensors: Optional[Tensor]) -> Optional[torch.dtype]:
    return next((t.dtype for t in tensors if t is not None and t.numel()), None)


def _converted(t: Tensor, dtype: torch.dtype) -> Tensor:
    """`t` in `dtype`: a conversion counts as a copy."""
    if t.dtype == dtype:
        return t
    _stats["copies"] += 1
    return t.to(dtype)


def _check(x: Tensor, tensors: dict, where: str) -> None:
    if not isinstance(x, Tensor) or not 2 <= x.dim() <= 5:
        shape = tuple(x.shape) if isinstance(x, Tensor) else type(x).__name__
        raise ValueError(f"{where}: expected a 2-D to 5-D input (N, C, ...), got {shape}")
    if x.dtype not in _FLOATS:
        raise NotImplementedError(f"{where}: Boo batch norms take float32, float16 or bfloat16, not {x.dtype}")
    channels = x.shape[1]
    for name, t in tensors.items():
        if t is None:
            continue
        if t.dtype not in _FLOATS:
            raise NotImplementedError(f"{where}: {name} is {t.dtype}; Boo takes float32, float16 or bfloat16")
        if tuple(t.shape) != (channels,):
            raise ValueError(f"{where}: {name} has shape {list(t.shape)}, expected [{channels}] "
                             f"(the input's channels, dim 1 of {list(x.shape)})")
        if t.device != x.device:
            raise ValueError(f"{where}: input is on {x.device} but {name} is on {t.device}")


def _as_nd(t: Tensor) -> Tensor:
    """The 4-D (or 5-D) view of a 2-D to 5-D (N, C, ...) tensor."""
    if t.dim() == 2:
        return t[:, :, None, None]
    if t.dim() == 3:
        return t[:, :, None, :]
    return t


def _from_nd(t: Tensor, rank: int) -> Tensor:
    if rank == 2:
        return t[:, :, 0, 0]
    if rank == 3:
        return t[:, :, 0, :]
    return t


class _Layout:
    """The kernel layout that reads an input as its memory is, and the
    permutes between the input's (N, C, ...) order and the layout's."""

    def __init__(self, x: Tensor):
        self.rank = x.dim()
        xn = _as_nd(x)
        nd = xn.dim()
        channels_last = _is_channels_last(xn)
        self.name = _LAYOUTS[nd][channels_last]
        self.to_perm = [0, *range(2, nd), 1] if channels_last else None
        self.from_perm = [0, nd - 1, *range(1, nd - 1)] if channels_last else None
        self.shape = list(xn.shape)  # (N, C, spatial...)

    def to_kernel(self, t: Tensor, what: str) -> Tensor:
        """An input-shaped tensor, dense in the kernel's layout."""
        t = _as_nd(t)
        return make_dense(t if self.to_perm is None else t.permute(self.to_perm), what)

    def to_torch(self, t: Tensor) -> Tensor:
        """A kernel result (in the layout) in the input's order and rank."""
        return _from_nd(t if self.from_perm is None else t.permute(self.from_perm), self.rank)

    def empty(self, like: Tensor) -> Tensor:
        shape = self.shape if self.to_perm is None else [self.shape[i] for i in self.to_perm]
        return self.to_torch(like.new_empty(shape))

    def command(self, base: str, flags: str) -> str:
        n, c, *spatial = self.shape
        depth = f"-D {spatial[0]} " if len(spatial) == 3 else ""
        return f"{base} -n {n} -c {c} {depth}-H {spatial[-2]} -W {spatial[-1]} -m 1 {flags} -L {self.name}"


def _launchable(command: str, spec: str, where: str):
    try:
        return get_launchable(command, spec)
    except ValueError as e:
        raise ValueError(f"{where}: {command!r}: {e}") from None
    except RuntimeError as e:
        raise RuntimeError(f"{where}: Boo could not compile {command!r} for {spec}: {e}") from None


def _number(v: float) -> str:
    return repr(float(v))


#===------------------------------------------------------------------------===#
# Forward
#===------------------------------------------------------------------------===#


class _ForwardPlan:
    """A forward call's kernel: its command, dtypes and results' metadata."""

    def __init__(self, x, weight, bias, running_mean, running_var, training, momentum, eps):
        self.layout = _Layout(x)
        self.batch_stats = training or running_mean is None
        self.updates = training and running_mean is not None
        self.base, self.param_dtype, self.stat_dtype = _kernel_dtypes(
            x.dtype, _first_dtype(weight, bias), _first_dtype(running_mean, running_var))
        if self.updates:
            flags = f"-F 1 -s 1 -r 1 --eps {_number(eps)} --momentum {_number(momentum)}"
        elif self.batch_stats:
            flags = f"-F 1 -s 1 --eps {_number(eps)}"
        else:
            flags = f"-F 2 -r 1 --eps {_number(eps)}"
        self.command = self.layout.command(self.base, flags)
        self.running_dtype = running_mean.dtype if running_mean is not None else self.stat_dtype

    def outputs(self, x: Tensor) -> tuple[Tensor, ...]:
        """Empty (y, save_mean, save_rstd, new_running_mean, new_running_var)."""
        c = x.shape[1]
        stats = lambda n, dtype: x.new_empty(n, dtype=dtype)
        saves = c if self.batch_stats else 0
        running = c if self.updates else 0
        return (self.layout.empty(x), stats(saves, self.stat_dtype), stats(saves, self.stat_dtype),
                stats(running, self.running_dtype), stats(running, self.running_dtype))


def _meta(t: Optional[Tensor]):
    return None if t is None else (t.dtype, t.shape, t.device)


def _check_forward(x, weight, bias, running_mean, running_var) -> None:
    _check(x, {"weight": weight, "bias": bias, "running_mean": running_mean, "running_var": running_var},
           "boo_batch_norm")
    if (running_mean is None) != (running_var is None):
        raise ValueError("boo_batch_norm: give both running_mean and running_var, or neither")


# The forward plan and launchable of each call signature, checked once.
_forward_calls: dict[tuple, tuple] = {}


def _forward_call(x, weight, bias, running_mean, running_var, training, momentum, eps):
    spec = get_device(x.device)
    key = (spec, x.shape, x.stride(), x.dtype, _meta(weight), _meta(bias), _meta(running_mean),
           _meta(running_var), training, momentum, eps)
    call = _forward_calls.get(key)
    if call is None:
        _check_forward(x, weight, bias, running_mean, running_var)
        plan = _ForwardPlan(x, weight, bias, running_mean, running_var, training, momentum, eps)
        launchable = None if x.numel() == 0 else _launchable(plan.command, spec, "boo_batch_norm")
        call = _forward_calls[key] = (plan, launchable)
    return call


def _parameters(plan, x: Tensor, weight, bias) -> dict:
    c = x.shape[1]
    weight = weight if weight is not None else x.new_ones(c, dtype=plan.param_dtype)
    bias = bias if bias is not None else x.new_zeros(c, dtype=plan.param_dtype)
    return {"weight": _converted(weight, plan.param_dtype), "bias": _converted(bias, plan.param_dtype)}


def _empty_forward(plan, x, running_mean, running_var):
    """An input without elements: nothing to compute, the statistics stay."""
    y, save_mean, save_rstd, new_mean, new_var = plan.outputs(x)
    if plan.updates:
        new_mean.copy_(running_mean), new_var.copy_(running_var)
    return y, save_mean.zero_(), save_rstd.zero_(), new_mean, new_var


def _batch_norm_impl(x, weight, bias, running_mean, running_var, training, momentum, eps):
    plan, launchable = _forward_call(x, weight, bias, running_mean, running_var, training, momentum, eps)
    if launchable is None:
        return _empty_forward(plan, x, running_mean, running_var)
    given = {"x": plan.layout.to_kernel(x, "input"), **_parameters(plan, x, weight, bias)}
    if not plan.batch_stats or plan.updates:
        given["running_mean"] = _converted(running_mean, plan.stat_dtype)
        given["running_var"] = _converted(running_var, plan.stat_dtype)
    outs = launchable.call_named(given)
    none = lambda dtype: x.new_empty(0, dtype=dtype)
    if plan.batch_stats:
        saves = outs["mean"], outs["rstd"]
    else:
        saves = none(plan.stat_dtype), none(plan.stat_dtype)
    if plan.updates:
        running = (_converted(outs["new_running_mean"], plan.running_dtype),
                   _converted(outs["new_running_var"], plan.running_dtype))
    else:
        running = none(plan.running_dtype), none(plan.running_dtype)
    return (plan.layout.to_torch(outs["y"]), *saves, *running)


@torch.library.custom_op("boo::batch_norm", mutates_args=())
def batch_norm(x: Tensor, weight: Optional[Tensor], bias: Optional[Tensor], running_mean: Optional[Tensor],
               running_var: Optional[Tensor], training: bool, momentum: float,
               eps: float) -> tuple[Tensor, Tensor, Tensor, Tensor, Tensor]:
    """(y, save_mean, save_rstd, new_running_mean, new_running_var): the
    saved statistics are empty when the running ones normalize, the new
    running ones unless training updates them."""
    return _batch_norm_impl(x, weight, bias, running_mean, running_var, training, momentum, eps)


@batch_norm.register_fake
def _(x, weight, bias, running_mean, running_var, training, momentum, eps):
    _check_forward(x, weight, bias, running_mean, running_var)
    return _ForwardPlan(x, weight, bias, running_mean, running_var, training, momentum, eps).outputs(x)


#===------------------------------------------------------------------------===#
# Backward
#===------------------------------------------------------------------------===#


class _BackwardPlan:
    """A backward call's kernels: with batch statistics (`train`), the
    backward kernel; with running ones, the inference kernel for dx and the
    backward kernel for dweight and dbias."""

    def __init__(self, x, weight, stats, train, eps, mask):
        self.layout = _Layout(x)
        self.base, self.param_dtype, self.stat_dtype = _kernel_dtypes(x.dtype, _first_dtype(weight),
                                                                      _first_dtype(*stats))
        self.grad_dtype = weight.dtype if weight is not None else x.dtype
        self.backward = self.layout.command(self.base, "-F 0 -b 1 -s 1")
        self.inference = self.layout.command(self.base, f"-F 2 -r 1 --eps {_number(eps)}")
        self.uses_backward = train or mask[1] or mask[2]
        self.uses_inference = not train and mask[0]

    def outputs(self, x: Tensor, mask) -> tuple[Tensor, Tensor, Tensor]:
        c = x.shape[1]
        return (self.layout.empty(x) if mask[0] else x.new_empty(0),
                x.new_empty(c if mask[1] else 0, dtype=self.grad_dtype),
                x.new_empty(c if mask[2] else 0, dtype=self.grad_dtype))


_backward_calls: dict[tuple, tuple] = {}


def _check_backward(dy, x, weight, stats, train) -> None:
    names = ("save_mean", "save_rstd") if train else ("running_mean", "running_var")
    if any(t is None for t in stats):
        raise ValueError(f"boo::batch_norm_backward: train={train} needs {names[0]} and {names[1]}")
    _check(x, {"weight": weight, **dict(zip(names, stats))}, "boo_batch_norm backward")
    if dy.shape != x.shape:
        raise ValueError(f"boo_batch_norm backward: the output gradient has shape {list(dy.shape)}, "
                         f"the input {list(x.shape)}")


def _backward_call(dy, x, weight, stats, train, eps, mask):
    spec = get_device(x.device)
    key = (spec, dy.shape, x.shape, x.stride(), x.dtype, _meta(weight), _meta(stats[0]), _meta(stats[1]),
           train, eps, tuple(mask))
    call = _backward_calls.get(key)
    if call is None:
        _check_backward(dy, x, weight, stats, train)
        plan = _BackwardPlan(x, weight, stats, train, eps, mask)
        get = lambda command, used: (_launchable(command, spec, "boo_batch_norm backward")
                                     if used and x.numel() else None)
        call = (plan, get(plan.backward, plan.uses_backward), get(plan.inference, plan.uses_inference))
        _backward_calls[key] = call
    return call


def _batch_norm_backward_impl(dy, x, weight, running_mean, running_var, save_mean, save_rstd, train, eps, mask):
    mask = [bool(m) for m in mask]
    stats = (save_mean, save_rstd) if train else (running_mean, running_var)
    plan, backward, inference = _backward_call(dy, x, weight, stats, train, eps, mask)
    dx, dweight, dbias = plan.outputs(x, mask)
    if x.numel() == 0:
        return dx, dweight.zero_(), dbias.zero_()
    c, sdt = x.shape[1], plan.stat_dtype
    weight = _converted(weight if weight is not None else x.new_ones(c, dtype=plan.param_dtype), plan.param_dtype)
    dyl = plan.layout.to_kernel(_converted(dy, x.dtype), "grad_output")
    if train:
        mean, rstd = _converted(save_mean, sdt), _converted(save_rstd, sdt)
    else:
        mean, rstd = _converted(running_mean, sdt), (running_var.float() + eps).rsqrt().to(sdt)
    if backward is not None:
        outs = backward.call_named({"dy": dyl, "x": plan.layout.to_kernel(x, "input"), "weight": weight,
                                    "mean": mean, "rstd": rstd})
        dx = plan.layout.to_torch(outs["dx"]) if mask[0] else dx
        dweight = _converted(outs["dweight"], plan.grad_dtype) if mask[1] else dweight
        dbias = _converted(outs["dbias"], plan.grad_dtype) if mask[2] else dbias
    if inference is not None:
        # The running statistics are constants: dx = dy * weight * rstd.
        zeros = x.new_zeros(c, dtype=sdt)
        y = inference.call_named({"x": dyl, "weight": weight, "bias": zeros.to(plan.param_dtype),
                                  "running_mean": zeros, "running_var": _converted(running_var, sdt)})["y"]
        dx = plan.layout.to_torch(y)
    return dx, dweight, dbias


@torch.library.custom_op("boo::batch_norm_backward", mutates_args=())
def batch_norm_backward(dy: Tensor, x: Tensor, weight: Optional[Tensor], running_mean: Optional[Tensor],
                        running_var: Optional[Tensor], save_mean: Optional[Tensor], save_rstd: Optional[Tensor],
                        train: bool, eps: float, output_mask: Sequence[bool]) -> tuple[Tensor, Tensor, Tensor]:
    """(dx, dweight, dbias) as output_mask asks (empty elsewhere), with
    aten.native_batch_norm_backward's arguments."""
    return _batch_norm_backward_impl(dy, x, weight, running_mean, running_var, save_mean, save_rstd,
                                     train, eps, output_mask)


@batch_norm_backward.register_fake
def _(dy, x, weight, running_mean, running_var, save_mean, save_rstd, train, eps, output_mask):
    stats = (save_mean, save_rstd) if train else (running_mean, running_var)
    _check_backward(dy, x, weight, stats, train)
    return _BackwardPlan(x, weight, stats, train, eps, output_mask).outputs(x, output_mask)


#===------------------------------------------------------------------------===#
# Autograd and the public op
#===------------------------------------------------------------------------===#


def _setup_context(ctx, inputs, output):
    x, weight, bias, running_mean, running_var, training, momentum, eps = inputs
    _, save_mean, save_rstd, _, _ = output
    ctx.train = training or running_mean is None
    # Training updates the running statistics in place after this: keep
    # them only where backward reads them.
    if ctx.train:
        running_mean = running_var = None
    ctx.save_for_backward(x, weight, running_mean, running_var, save_mean, save_rstd)
    ctx.eps = eps
    ctx.has = (weight is not None, bias is not None)


def _torch_backward(dy, x, weight, running_mean, running_var, save_mean, save_rstd, train, eps, mask):
    """PyTorch's kernel (BOO_USE_BACKWARD_KERNELS=0), which takes the saved
    statistics in the parameters' dtype."""
    dtype = next(t.dtype for t in (weight, running_mean, x) if t is not None)
    return torch.ops.aten.native_batch_norm_backward(
        dy, x, weight, running_mean, running_var, save_mean.to(dtype), save_rstd.to(dtype), train, eps, mask)


def _autograd_backward(ctx, dy, *_):
    x, weight, running_mean, running_var, save_mean, save_rstd = ctx.saved_tensors
    needs = ctx.needs_input_grad
    mask = [needs[0], ctx.has[0] and needs[1], ctx.has[1] and needs[2]]
    grads = [None, None, None]
    if any(mask):
        args = (dy, x, weight, running_mean, running_var, save_mean, save_rstd, ctx.train, ctx.eps, mask)
        if is_boo_backward_enabled():
            grads = torch.ops.boo.batch_norm_backward(*args)
        else:
            grads = _torch_backward(*args)
    grads = [g if m else None for g, m in zip(grads, mask)]
    return (*grads, None, None, None, None, None)


batch_norm.register_autograd(_autograd_backward, setup_context=_setup_context)


class _EagerBatchNorm(torch.autograd.Function):
    """boo::batch_norm's autograd, without the custom-op dispatch."""

    @staticmethod
    def forward(x, weight, bias, running_mean, running_var, training, momentum, eps):
        return _batch_norm_impl(x, weight, bias, running_mean, running_var, training, momentum, eps)

    setup_context = staticmethod(_setup_context)
    backward = staticmethod(_autograd_backward)


def boo_batch_norm(
    input: Tensor,
    running_mean: Optional[Tensor],
    running_var: Optional[Tensor],
    weight: Optional[Tensor] = None,
    bias: Optional[Tensor] = None,
    training: bool = False,
    momentum: float = 0.1,
    eps: float = 1e-5,
) -> Tensor:
    """torch.nn.functional.batch_norm on Boo, differentiable: training
    updates running_mean and running_var in place when they are given."""
    if not isinstance(input, Tensor):
        raise TypeError(f"boo_batch_norm: input must be a torch tensor, not {type(input).__name__}")
    if momentum is None:
        raise ValueError(
            "boo_batch_norm: momentum=None (a cumulative average) is nn.BatchNorm's, which passes "
            "1 / num_batches_tracked; pass that float (each value compiles a kernel once)")
    if training and input.dim() >= 2 and 0 < input.shape[1] == input.numel():
        raise ValueError(f"boo_batch_norm: expected more than 1 value per channel when training, "
                         f"got input size {list(input.shape)}")
    args = (input, weight, bias, running_mean, running_var, bool(training), float(momentum), float(eps))
    if not _plain_eager(input, weight, bias, running_mean, running_var):
        outs = torch.ops.boo.batch_norm(*args)
    elif _needs_grad(input, weight, bias):
        outs = _EagerBatchNorm.apply(*args)
    else:
        outs = _batch_norm_impl(*args)
    if training and running_mean is not None:
        with torch.no_grad():
            running_mean.copy_(outs[3])
            running_var.copy_(outs[4])
    return outs[0]
