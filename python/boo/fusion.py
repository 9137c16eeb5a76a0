"""FX fusion: rewrites the convolution and layer-norm subgraphs of an aten
FX graph (what torch.export, make_fx, Dynamo and AOTAutograd produce) into
Boo kernels; the rest of the graph stays as it was.

- A convolution with its element-wise chain (bias, relu, sigmoid, gelu,
  silu, tanh, leaky_relu, clamp/hardtanh, residual or per-channel add and
  mul) becomes one ``boo::fused_conv`` kernel. The chain grows while its tip
  has one user and the user's other operand is computed before the conv, as
  in Boo's boo-form-fusions (docs/Fusion.md). A convolution with nothing to
  fuse becomes ``boo::convolution``.
- ``aten.native_layer_norm`` and ``aten.layer_norm`` become
  ``boo::layer_norm``.
- ``aten.mm``, ``aten.bmm`` and ``aten.addmm`` (nn.Linear) with their
  element-wise chains (grown as a convolution's) become one
  ``boo::fused_matmul`` kernel each; with nothing to fuse, ``boo::mm``,
  ``boo::bmm`` and ``boo::addmm``.
- The batch-norm forward nodes (``aten._native_batch_norm_legit_functional``
  from AOTAutograd's training graphs, ``_native_batch_norm_legit_no_training``
  from eval graphs, ``_native_batch_norm_legit.no_stats`` without running
  statistics, and the mutating ``_native_batch_norm_legit.default``,
  ``native_batch_norm`` and ``batch_norm`` of make_fx and torch.export
  graphs) become ``boo::batch_norm``; a mutating node's running statistics
  are updated by ``aten.copy_`` nodes after it.
- ``aten.argmax`` and ``aten.argmin`` become ``boo::argmax`` and
  ``boo::argmin``.
- Backward graphs: ``aten.convolution_backward``,
  ``aten.native_layer_norm_backward`` and ``aten.native_batch_norm_backward``
  become Boo's backward kernels.

A node Boo cannot take (a transposed convolution, float64 other than a
matrix product's, a tensor that is not on the CPU, a graph without shape
metadata) stays as it was and is logged at info level. A float64 product
runs on Boo without its element-wise chain. The schema is a plain object that says which aten
targets are anchors and how each epilogue target maps to a Boo op; copy
DEFAULT_SCHEMA and extend it.
"""

from __future__ import annotations

import copy
import dataclasses
import json
import logging
import operator
from typing import Callable, Optional

import torch
import torch.fx as fx

from . import kernels  # noqa: F401 (registers boo::fused_conv)
from . import matmul_ops  # noqa: F401 (registers boo::mm, bmm, addmm)
from . import matmul_kernels  # noqa: F401 (registers boo::fused_matmul)
from . import batch_norm_ops  # noqa: F401 (registers boo::batch_norm, batch_norm_backward)
from . import argreduce_ops  # noqa: F401 (registers boo::argmax, argmin)
from .signature import CONV_BASE

__all__ = ["FusionSchema", "DEFAULT_SCHEMA", "fuse", "FusionReport"]

logger = logging.getLogger("boo")
aten = torch.ops.aten

# An epilogue rule: (user node, the chain's tip) -> (epilogue op, extra
# operand node or None), or None when the user does not fit.
EpilogueRule = Callable[[fx.Node, fx.Node], Optional[tuple[dict, Optional[fx.Node]]]]


def _activation(name: str, **attrs) -> EpilogueRule:
    def rule(user: fx.Node, tip: fx.Node):
        if user.args[0] is not tip:
            return None
        return dict(op=name, **{k: (v(user) if callable(v) else v) for k, v in attrs.items()}), None
    return rule


def _gelu(user: fx.Node, tip: fx.Node):
    if user.args[0] is not tip:
        return None
    approximate = user.kwargs.get("approximate", user.args[1] if len(user.args) > 1 else "none")
    return {"op": "gelu" if approximate == "none" else "gelu_tanh"}, None


def _clamp(low_index: int, high_index: int, defaults=(None, None)):
    def rule(user: fx.Node, tip: fx.Node):
        if user.args[0] is not tip:
            return None
        args = list(user.args) + [None] * 3
        low = args[low_index] if args[low_index] is not None else defaults[0]
        high = args[high_index] if args[high_index] is not None else defaults[1]
        if not isinstance(low, (int, float)) or not isinstance(high, (int, float)):
            return None
        return {"op": "clamp", "min": float(low), "max": float(high)}, None
    return rule


def _binary(name: str) -> EpilogueRule:
    def rule(user: fx.Node, tip: fx.Node):
        if len(user.args) != 2 or user.kwargs.get("alpha", 1) != 1:
            return None
        a, b = user.args
        other = b if a is tip else a if b is tip else None
        if not isinstance(other, fx.Node) or other is tip:
            return None
        out, val = _val(tip), _val(other)
        if out is None or val is None or val.dtype != out.dtype:
            return None
        if tuple(val.shape) == tuple(out.shape):
            return {"op": name, "operand": "full"}, other
        channels = out.shape[1]
        # One value per channel, broadcast over the rest: [C, 1, ...] or
        # [1, C, 1, ...] (a plain [C] would broadcast along the last dim).
        shape = [int(d) for d in val.shape]
        if val.numel() == channels and (shape == [channels] + [1] * (out.dim() - 2)
                                        or shape == [1, channels] + [1] * (out.dim() - 2)):
            return {"op": name, "operand": "channel"}, other
        return None
    return rule


@dataclasses.dataclass
class FusionSchema:
    """What fuse() rewrites. `conv_anchors`: aten convolution targets;
    `epilogues`: aten target -> EpilogueRule; `layer_norms`, `matmuls`,
    `batch_norms`, `arg_reductions` and `backward` turn the layer-norm,
    matrix-product, batch-norm, argmax/argmin and backward rewrites on."""

    conv_anchors: set = dataclasses.field(default_factory=set)
    epilogues: dict = dataclasses.field(default_factory=dict)
    layer_norms: bool = True
    matmuls: bool = True
    batch_norms: bool = True
    arg_reductions: bool = True
    backward: bool = True

    def copy(self) -> "FusionSchema":
        return copy.deepcopy(self)


DEFAULT_SCHEMA = FusionSchema(
    conv_anchors={aten.convolution.default},
    epilogues={
        aten.relu.default: _activation("relu"),
        aten.sigmoid.default: _activation("sigmoid"),
        aten.tanh.default: _activation("tanh"),
        aten.silu.default: _activation("silu"),
        aten.gelu.default: _gelu,
        aten.leaky_relu.default: _activation(
            "leaky_relu", alpha=lambda n: float(n.args[1]) if len(n.args) > 1 else 0.01),
        aten.hardtanh.default: _clamp(1, 2, (-1.0, 1.0)),
        aten.clamp.default: _clamp(1, 2),
        aten.add.Tensor: _binary("add"),
        aten.mul.Tensor: _binary("mul"),
    },
)


@dataclasses.dataclass
class FusionReport:
    """What fuse() did: counts of rewritten nodes and the skipped ones."""

    fused_convs: int = 0
    plain_convs: int = 0
    layer_norms: int = 0
    matmuls: int = 0
    fused_matmuls: int = 0
    batch_norms: int = 0
    arg_reductions: int = 0
    backward: int = 0
    skipped: list = dataclasses.field(default_factory=list)


def _val(node) -> Optional[torch.Tensor]:
    val = node.meta.get("val") if isinstance(node, fx.Node) else None
    return val if isinstance(val, torch.Tensor) else None


def _unsupported(node: fx.Node, tensors, float64: bool = False) -> Optional[str]:
    """Why Boo cannot take node's tensors (float64 too where `float64`: the
    products), or None."""
    vals = [_val(t) for t in tensors if t is not None]
    if len(vals) != len([t for t in tensors if t is not None]):
        return "no shape metadata (node.meta['val'])"
    for v in vals:
        if v.dtype not in CONV_BASE and not (float64 and v.dtype == torch.float64):
            return f"dtype {v.dtype}"
        if v.device.type != "cpu":
            return f"device {v.device}"
    return None


def _skip(report: FusionReport, node: fx.Node, why: str) -> None:
    report.skipped.append(f"{node.name} ({node.target}): {why}")
    logger.info("boo: fusion: %s stays as it was: %s", node.name, why)


class _Rewriter:
    def __init__(self, gm: fx.GraphModule, schema: FusionSchema):
        self.gm, self.graph, self.schema = gm, gm.graph, schema
        self.order = {n: i for i, n in enumerate(self.graph.nodes)}
        self.report = FusionReport()
        self.erased: set = set()
        vals = [_val(n) for n in self.graph.nodes]
        # make_fx's default (real) tracing gives each node's fake value a
        # mode of its own: then new values come from one fresh mode, with
        # the operands' metadata copied into it.
        self.own_mode = False
        try:
            self.fake_mode = torch._guards.detect_fake_mode([v for v in vals if v is not None])
        except AssertionError:
            self.fake_mode = torch._subclasses.fake_tensor.FakeTensorMode()
            self.own_mode = True

    def erase(self, node: fx.Node) -> None:
        self.graph.erase_node(node)
        self.erased.add(node)

    def set_meta(self, node: fx.Node) -> None:
        """node.meta['val'] from the op's fake implementation."""
        if self.fake_mode is None:
            return
        with self.fake_mode:
            def to_val(a):
                v = a.meta.get("val") if isinstance(a, fx.Node) else a
                if self.own_mode and isinstance(v, torch.Tensor):
                    v = torch.empty_strided(v.shape, v.stride(), dtype=v.dtype, device=v.device)
                return v
            args = fx.node.map_arg(node.args, to_val)
            kwargs = fx.node.map_arg(node.kwargs, to_val)
            node.meta["val"] = node.target(*args, **kwargs)

    def call(self, target, args, before: fx.Node, kwargs=None) -> fx.Node:
        with self.graph.inserting_before(before):
            node = self.graph.call_function(target, args, kwargs)
        self.set_meta(node)
        return node

    def grow_chain(self, node: fx.Node) -> tuple[list, list, fx.Node]:
        """The element-wise chain after anchor `node` (see the module): its
        nodes, their extra operands and its tip. Each node's epilogue op is
        in its meta["boo_epilogue"]."""
        chain, extras, tip = [], [], node
        while len(tip.users) == 1:
            user = next(iter(tip.users))
            rule = self.schema.epilogues.get(user.target)
            found = rule(user, tip) if rule else None
            if found is None:
                break
            op, extra = found
            if extra is not None and self.order.get(extra, len(self.order)) > self.order[node]:
                break  # computed after the anchor
            chain.append(user)
            if extra is not None:
                extras.append(extra)
            tip = user
            tip.meta.setdefault("boo_epilogue", op)
        return chain, extras, tip

    def conv(self, node: fx.Node) -> None:
        x, w, b, stride, padding, dilation, transposed, output_padding, groups = node.args
        why = _unsupported(node, [x, w, b])
        if why is None and transposed:
            why = "transposed convolution"
        if why is None and not 3 <= _val(x).dim() <= 5:
            why = f"rank {_val(x).dim()}"
        if why:
            return _skip(self.report, node, why)
        chain, extras, tip = self.grow_chain(node)
        params = [list(stride), list(padding), list(dilation), int(groups)]
        if not chain:
            fused = self.call(torch.ops.boo.convolution.default, (x, w, b, *params, "", "", ""), node)
            self.report.plain_convs += 1
        else:
            recipe = json.dumps({"stride": params[0], "padding": params[1], "dilation": params[2],
                                 "groups": params[3], "bias": b is not None,
                                 "epilogue": [n.meta.pop("boo_epilogue") for n in chain]})
            inputs = [x, w] + ([b] if b is not None else []) + extras
            fused = self.call(torch.ops.boo.fused_conv.default, (inputs, recipe), node)
            self.report.fused_convs += 1
        tip.replace_all_uses_with(fused)
        for n in reversed(chain):
            self.erase(n)
        self.erase(node)

    def conv_backward(self, node: fx.Node) -> None:
        (grad, x, w, _bias_sizes, stride, padding, dilation, transposed, output_padding,
         groups, mask) = node.args
        why = _unsupported(node, [grad, x, w]) or ("transposed convolution" if transposed else None)
        if why:
            return _skip(self.report, node, why)
        new = self.call(torch.ops.boo.convolution_backward.default,
                        (grad, x, w, list(stride), list(padding), list(dilation), int(groups),
                         "", "", "", list(mask)), node)
        node.replace_all_uses_with(new)
        self.erase(node)
        self.report.backward += 1

    def _cast(self, value: fx.Node, dtype, before: fx.Node) -> fx.Node:
        if _val(value) is None or _val(value).dtype == dtype:
            return value
        return self.call(aten._to_copy.default, (value,), before, {"dtype": dtype})

    def layer_norm(self, node: fx.Node) -> None:
        x, shape, w, b, eps = node.args[:5]
        why = _unsupported(node, [x, w, b])
        if why is None and w is None and b is not None:
            why = "a bias without a weight"
        if why:
            return _skip(self.report, node, why)
        new = self.call(torch.ops.boo.layer_norm.default, (x, list(shape), w, b, float(eps)), node)
        if node.target == aten.layer_norm.default:
            y = self.call(operator.getitem, (new, 0), node)
            node.replace_all_uses_with(y)
        else:
            for user in list(node.users):
                index = user.args[1]
                value = self.call(operator.getitem, (new, index), user)
                if index > 0:  # mean, rstd: aten keeps the normalized dims as 1s
                    value = self.call(aten.view.default, (value, list(_val(user).shape)), user)
                    value = self._cast(value, _val(user).dtype, user)
                user.replace_all_uses_with(value)
                self.erase(user)
        self.erase(node)
        self.report.layer_norms += 1

    def layer_norm_backward(self, node: fx.Node) -> None:
        dy, x, shape, mean, rstd, w, b, mask = node.args
        why = _unsupported(node, [dy, x, w, b])
        if why is None and w is None and b is not None:
            why = "a bias without a weight"
        if why:
            return _skip(self.report, node, why)
        lead = list(_val(x).shape[: _val(x).dim() - len(shape)])
        stats = []
        for value in (mean, rstd):
            value = self.call(aten.view.default, (value, lead), node)
            stats.append(self._cast(value, torch.float32, node))
        new = self.call(torch.ops.boo.layer_norm_backward.default,
                        (dy, x, list(shape), w, stats[0], stats[1], list(mask), w is not None), node)
        node.replace_all_uses_with(new)
        self.erase(node)
        self.report.backward += 1

    def matmul(self, node: fx.Node) -> None:
        target = _MATMULS[node.target]
        if node.target == aten.addmm.default:
            c, a, b = node.args[:3]
            beta = node.kwargs.get("beta", node.args[3] if len(node.args) > 3 else 1)
            alpha = node.kwargs.get("alpha", node.args[4] if len(node.args) > 4 else 1)
            tensors, args = [c, a, b], (c, a, b, float(beta), float(alpha))
        else:
            tensors = args = list(node.args[:2])
        why = _unsupported(node, tensors, float64=True)
        if why is None and len({_val(t).dtype for t in tensors}) > 1:
            why = "mixed dtypes"
        if why:
            return _skip(self.report, node, why)
        # float64 products take no epilogue (Boo's element-wise ops do not).
        chain, extras, tip = [], [], node
        if _val(node).dtype != torch.float64:
            chain, extras, tip = self.grow_chain(node)
        if not chain:
            new = self.call(target, tuple(args), node)
            self.report.matmuls += 1
        else:
            op = {aten.mm.default: "mm", aten.bmm.default: "bmm", aten.addmm.default: "addmm"}[node.target]
            recipe = {"op": op, "epilogue": [n.meta.pop("boo_epilogue") for n in chain]}
            if op == "addmm":
                recipe.update(beta=args[3], alpha=args[4])
            new = self.call(torch.ops.boo.fused_matmul.default,
                            (list(tensors) + extras, json.dumps(recipe)), node)
            self.report.fused_matmuls += 1
        tip.replace_all_uses_with(new)
        for n in reversed(chain):
            self.erase(n)
        self.erase(node)

    def replace_results(self, node: fx.Node, new: fx.Node) -> None:
        """Points node's getitem users at new's results of the same index,
        converted to the dtypes they had."""
        for user in list(node.users):
            value = self.call(operator.getitem, (new, user.args[1]), user)
            if _val(user) is not None:
                value = self._cast(value, _val(user).dtype, user)
            user.replace_all_uses_with(value)
            self.erase(user)

    def batch_norm(self, node: fx.Node) -> None:
        kind, normalize = _BATCH_NORMS[node.target]
        args = normalize(node.args)
        why = _batch_norm_unsupported(node, kind, args)
        if why:
            return _skip(self.report, node, why)
        x, w, b, mean, var, training, momentum, eps = args
        new = self.call(torch.ops.boo.batch_norm.default,
                        (x, w, b, mean, var, bool(training), float(momentum), float(eps)), node)
        if kind == "mutating" and training and mean is not None:
            # The node updated the running statistics in place.
            for stat, index in ((mean, 3), (var, 4)):
                value = self.call(operator.getitem, (new, index), node)
                self.call(aten.copy_.default, (stat, value), node)
        if node.target == aten.batch_norm.default:
            node.replace_all_uses_with(self.call(operator.getitem, (new, 0), node))
        else:
            self.replace_results(node, new)
        self.erase(node)
        self.report.batch_norms += 1

    def batch_norm_backward(self, node: fx.Node) -> None:
        if node.kwargs or len(node.args) != 10:
            return _skip(self.report, node, "keyword or missing arguments")
        dy, x, w, mean, var, save_mean, save_rstd, train, eps, mask = node.args
        why = _unsupported(node, [dy, x, w, mean, var, save_mean, save_rstd])
        if why is None and not 2 <= _val(x).dim() <= 5:
            why = f"rank {_val(x).dim()}"
        if why is None and not train and mean is None:
            why = "eval without running statistics"
        if why:
            return _skip(self.report, node, why)
        new = self.call(torch.ops.boo.batch_norm_backward.default,
                        (dy, x, w, mean, var, save_mean, save_rstd, bool(train), float(eps),
                         [bool(m) for m in mask]), node)
        self.replace_results(node, new)
        self.erase(node)
        self.report.backward += 1

    def arg_reduction(self, node: fx.Node) -> None:
        x = node.args[0]
        dim = node.kwargs.get("dim", node.args[1] if len(node.args) > 1 else None)
        keepdim = node.kwargs.get("keepdim", node.args[2] if len(node.args) > 2 else False)
        why = _unsupported(node, [x])
        if why is None and not ((dim is None or isinstance(dim, int)) and isinstance(keepdim, bool)):
            why = "dim or keepdim is not a constant"
        if why:
            return _skip(self.report, node, why)
        new = self.call(_ARG_REDUCTIONS[node.target], (x, dim, keepdim), node)
        node.replace_all_uses_with(new)
        self.erase(node)
        self.report.arg_reductions += 1

    def run(self) -> FusionReport:
        for node in list(self.graph.nodes):
            if node.op != "call_function" or node in self.erased:
                continue
            if node.target in self.schema.conv_anchors:
                self.conv(node)
            elif self.schema.layer_norms and node.target in (aten.native_layer_norm.default, aten.layer_norm.default):
                self.layer_norm(node)
            elif self.schema.matmuls and node.target in _MATMULS:
                self.matmul(node)
            elif self.schema.backward and node.target == aten.convolution_backward.default:
                self.conv_backward(node)
            elif self.schema.backward and node.target == aten.native_layer_norm_backward.default:
                self.layer_norm_backward(node)
            elif self.schema.batch_norms and node.target in _BATCH_NORMS:
                self.batch_norm(node)
            elif (self.schema.batch_norms and self.schema.backward
                  and node.target == aten.native_batch_norm_backward.default):
                self.batch_norm_backward(node)
            elif self.schema.arg_reductions and node.target in _ARG_REDUCTIONS:
                self.arg_reduction(node)
        self.graph.lint()
        self.gm.recompile()
        return self.report


_MATMULS = {
    aten.mm.default: torch.ops.boo.mm.default,
    aten.bmm.default: torch.ops.boo.bmm.default,
    aten.addmm.default: torch.ops.boo.addmm.default,
}

_ARG_REDUCTIONS = {
    aten.argmax.default: torch.ops.boo.argmax.default,
    aten.argmin.default: torch.ops.boo.argmin.default,
}


# aten's batch-norm forward targets: (kind, their positional arguments as
# boo::batch_norm's x, weight, bias, running_mean, running_var, training,
# momentum, eps). A "mutating" node updates the running statistics in place
# when training; "functional" returns their new values as results 3 and 4.
_BATCH_NORMS = {
    aten._native_batch_norm_legit_functional.default: ("functional", lambda a: tuple(a[:8])),
    aten._native_batch_norm_legit_no_training.default: (
        "eval", lambda a: (*a[:5], False, a[5], a[6]) if len(a) == 7 else None),
    aten._native_batch_norm_legit.no_stats: (
        "no_stats", lambda a: (*a[:3], None, None, *a[3:6]) if len(a) == 6 else None),
    aten._native_batch_norm_legit.default: ("mutating", lambda a: tuple(a[:8])),
    aten.native_batch_norm.default: ("mutating", lambda a: tuple(a[:8])),
    aten.batch_norm.default: ("mutating", lambda a: tuple(a[:8])),
}


def _batch_norm_unsupported(node: fx.Node, kind: str, args) -> Optional[str]:
    if node.kwargs or args is None or len(args) != 8:
        return "keyword or missing arguments"
    x, w, b, mean, var, training, momentum, eps = args
    why = _unsupported(node, [x, w, b, mean, var])
    if why is None and not 2 <= _val(x).dim() <= 5:
        why = f"rank {_val(x).dim()}"
    if why is None and not all(isinstance(v, (int, float)) for v in (training, momentum, eps)):
        why = "training, momentum or eps is not a constant"
    if why is None and kind == "functional" and not training:
        why = "a functional batch norm that does not train"  # results 3, 4 would alias its inputs
    if why is None and not training and mean is None:
        why = "eval without running statistics"
    if why is None and training and mean is not None and not 0 <= momentum <= 1:
        why = f"momentum {momentum} (Boo takes 0 to 1)"
    return why


def fuse(gm: fx.GraphModule, schema: FusionSchema = DEFAULT_SCHEMA) -> FusionReport:
    """Rewrites `gm` in place (see the module) and returns what it did."""
    return _Rewriter(gm, schema).run()
