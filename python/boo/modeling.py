"""Drop-in modules: BooConv1d/2d/3d, BooLayerNorm, replace_convs_with_boo.

The modules subclass PyTorch's, so they take the same constructor arguments
and have the same parameters and state_dict; only forward runs on Boo.
"""

from __future__ import annotations

import logging

import torch
import torch.nn.functional as F

from .ops import boo_conv, boo_layer_norm

__all__ = ["BooConv1d", "BooConv2d", "BooConv3d", "BooLayerNorm", "replace_convs_with_boo"]

logger = logging.getLogger("boo")


class _BooConvMixin:
    def _boo_forward(self, x: torch.Tensor) -> torch.Tensor:
        padding = self.padding
        if self.padding_mode != "zeros":
            x = F.pad(x, self._reversed_padding_repeated_twice, mode=self.padding_mode)
            padding = 0
        return boo_conv(
            x, self.weight, self.bias, stride=self.stride, padding=padding,
            dilation=self.dilation, groups=self.groups,
        )


class BooConv1d(_BooConvMixin, torch.nn.Conv1d):
    """torch.nn.Conv1d on Boo."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self._boo_forward(x)


class BooConv2d(_BooConvMixin, torch.nn.Conv2d):
    """torch.nn.Conv2d on Boo."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self._boo_forward(x)


class BooConv3d(_BooConvMixin, torch.nn.Conv3d):
    """torch.nn.Conv3d on Boo."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self._boo_forward(x)


class BooLayerNorm(torch.nn.LayerNorm):
    """torch.nn.LayerNorm on Boo."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return boo_layer_norm(x, self.normalized_shape, self.weight, self.bias, self.eps)


_CONV_TYPES = {torch.nn.Conv1d: BooConv1d, torch.nn.Conv2d: BooConv2d, torch.nn.Conv3d: BooConv3d}


def _convert(module: torch.nn.Module, target: type) -> torch.nn.Module:
    # The same object, re-classed: its parameters, buffers and hooks stay.
    module.__class__ = target
    return module


def replace_convs_with_boo(
    model: torch.nn.Module, *, layer_norms: bool = False, allow=lambda module: True
) -> torch.nn.Module:
    """Makes every Conv1d/2d/3d of `model` (and every LayerNorm, with
    layer_norms=True) run on Boo, in place, keeping its parameters; returns
    `model`. Transposed convolutions and modules for which `allow` is
    False stay as they are."""
    for name, module in model.named_modules():
        target = _CONV_TYPES.get(type(module))
        if target is None and layer_norms and type(module) is torch.nn.LayerNorm:
            target = BooLayerNorm
        if target is None or not allow(module):
            continue
        _convert(module, target)
        logger.debug("boo: %s (%s) runs on Boo", name or "<root>", target.__name__)
    return model
