"""torch.compile backends: "boo" and "boo_inductor", and boo.backend().

Dynamo captures the model, AOTAutograd turns it into aten forward and
backward graphs, and fuse() (boo/fusion.py) rewrites their convolutions,
layer norms, matrix products, batch norms and argmax/argmin into Boo
kernels. The rest of each graph runs eagerly ("boo") or through Inductor
("boo_inductor"), or through any backend given to
``boo.backend(nested_backend=...)``. Graphs are static (``dynamic=False``).
A node Boo cannot take stays with the nested backend and is logged.

BOO_DUMP_DIR=DIR writes every graph before and after fusion
(``graph_<n>_<forward|backward|inference>_{before,after}.py``) and the Boo
MLIR of every fused kernel (``<kernel name>.mlir``).
"""

from __future__ import annotations

import itertools
import logging
import os
from typing import Callable, Optional

import torch
from torch._dynamo.backends.common import aot_autograd
from torch._functorch.aot_autograd import make_boxed_func

from .fusion import DEFAULT_SCHEMA, FusionSchema, fuse

__all__ = ["backend", "boo", "boo_inductor"]

logger = logging.getLogger("boo")
_graph_ids = itertools.count()


def _dump(gm: torch.fx.GraphModule, name: str) -> None:
    directory = os.environ.get("BOO_DUMP_DIR")
    if not directory:
        return
    os.makedirs(directory, exist_ok=True)
    with open(os.path.join(directory, name + ".py"), "w") as f:
        f.write(gm.print_readable(print_output=False))


def _fusing(kind: str, schema: FusionSchema, nested: Optional[Callable]):
    def compiler(gm: torch.fx.GraphModule, example_inputs):
        name = f"graph_{next(_graph_ids)}_{kind}"
        _dump(gm, name + "_before")
        report = fuse(gm, schema)
        _dump(gm, name + "_after")
        logger.info("boo: %s: %d fused convs, %d convs, %d layer norms, %d fused matmuls, "
                    "%d matmuls, %d batch norms, %d arg-reductions, %d backward ops; "
                    "%d left alone", name, report.fused_convs, report.plain_convs,
                    report.layer_norms, report.fused_matmuls, report.matmuls, report.batch_norms,
                    report.arg_reductions, report.backward, len(report.skipped))
        if nested is None:
            return make_boxed_func(gm.forward)
        return nested(gm, example_inputs)
    return compiler


def _inductor_decompositions():
    import torch._inductor.lowering  # noqa: F401 (max_pool2d's decomposition reads it)
    from torch._inductor.decomposition import select_decomp_table

    table = dict(select_decomp_table())
    aten = torch.ops.aten
    # Boo takes these whole; decomposed, fusion would not see them. (torch
    # 2.13's table has no argmax or argmin; popped in case a later one does.)
    for op in (aten.native_layer_norm.default, aten.native_layer_norm_backward.default,
               aten.convolution_backward.default, aten.gelu.default, aten.silu.default,
               aten._native_batch_norm_legit_functional.default,
               aten._native_batch_norm_legit_no_training.default,
               aten._native_batch_norm_legit.default, aten._native_batch_norm_legit.no_stats,
               aten.native_batch_norm.default, aten.native_batch_norm_backward.default,
               aten.argmax.default, aten.argmin.default):
        table.pop(op, None)
    return table


def _inductor_inner(gm, example_inputs):
    from torch._inductor.compile_fx import compile_fx_inner

    return compile_fx_inner(gm, example_inputs)


def backend(nested_backend: "str | Callable | None" = "eager", *,
            fusion_schema: FusionSchema = DEFAULT_SCHEMA, decompositions=None):
    """A torch.compile backend that fuses into Boo kernels and hands each
    aten graph to `nested_backend`: "eager" (or None) runs it as it is,
    "inductor" compiles it with Inductor, and a callable
    `nested_backend(gm, example_inputs)` receives post-autograd aten graphs
    and returns a boxed callable, as AOTAutograd's compilers do. IREE BOO's
    signature: backend(nested_backend=..., fusion_schema=...)."""
    if nested_backend in (None, "eager"):
        nested = None
    elif nested_backend == "inductor":
        nested = _inductor_inner
        decompositions = decompositions if decompositions is not None else _inductor_decompositions()
    elif callable(nested_backend):
        nested = nested_backend
    else:
        raise ValueError(f"boo.backend: nested_backend {nested_backend!r}: expected 'eager', 'inductor' or a callable")
    return aot_autograd(
        fw_compiler=_fusing("forward", fusion_schema, nested),
        bw_compiler=_fusing("backward", fusion_schema, nested),
        inference_compiler=_fusing("inference", fusion_schema, nested),
        decompositions=decompositions,
    )


def boo(gm: torch.fx.GraphModule, example_inputs):
    """torch.compile(model, backend="boo"): Boo kernels, the rest eager."""
    return backend()(gm, example_inputs)


def boo_inductor(gm: torch.fx.GraphModule, example_inputs):
    """torch.compile(model, backend="boo_inductor"): Boo kernels, the rest
    through Inductor."""
    return backend("inductor")(gm, example_inputs)


def register() -> None:
    """Registers "boo" and "boo_inductor" with Dynamo (import boo does)."""
    from torch._dynamo.backends.registry import _BACKENDS, register_backend

    for name, fn in (("boo", boo), ("boo_inductor", boo_inductor)):
        if name not in _BACKENDS:
            register_backend(name=name, compiler_fn=fn)
