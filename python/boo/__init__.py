"""Boo for PyTorch: Boo's convolution, layer-norm, matrix-product,
batch-norm and argmax/argmin kernels as PyTorch ops.

IREE BOO's names, so BOO code ports by changing an import:

- ``boo.ops.boo_conv``, ``boo.ops.boo_layer_norm``, ``boo.ops.boo_mm``,
  ``boo_bmm``, ``boo_addmm`` and ``boo_batch_norm``: differentiable ops,
  and ``boo_argmax``, ``boo_argmin``, registered as torch custom ops
  (``torch.ops.boo.*``);
- ``boo.modeling``: ``BooConv1d/2d/3d``, ``BooLayerNorm`` and
  ``replace_convs_with_boo``;
- ``ConvSignature``, ``LayerNormSignature``, ``parse_command``,
  ``get_launchable`` and ``preload``;
- ``boo.fusion.fuse(graph_module)``: conv + epilogue, matmul + epilogue,
  layer-norm, batch-norm and argmax/argmin nodes of aten FX graphs into Boo
  kernels;
- ``torch.compile(model, backend="boo")`` (or "boo_inductor", or
  ``boo.backend(nested_backend=...)``);
- ``set_device("emu:gfx942")`` (or BOO_DEVICE) runs torch CPU tensors
  through the GPU kernels on Boo's SIMT emulator.

See docs/Python.md.
"""

from . import _boo  # noqa: F401 (the extension; fails early if it is missing)
from .signature import (
    ConvMode,
    ConvSignature,
    LayerNormMode,
    LayerNormSignature,
    parse_command,
)
from .runtime import (
    Launchable,
    get_device,
    get_launchable,
    preload,
    reset_stats,
    set_device,
    stats,
)
from . import ops
from . import modeling
from . import kernels  # noqa: F401 (registers boo::fused_conv)
from . import fusion
from . import backend as _backend_module
from .backend import backend

_backend_module.register()

__all__ = [
    "ConvMode",
    "ConvSignature",
    "LayerNormMode",
    "LayerNormSignature",
    "Launchable",
    "backend",
    "fusion",
    "get_device",
    "get_launchable",
    "modeling",
    "ops",
    "parse_command",
    "preload",
    "reset_stats",
    "set_device",
    "stats",
]
