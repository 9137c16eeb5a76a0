"""Devices, launchables and the in-memory launchable cache.

A launchable is one compiled function loaded on one runtime device. Boo
compiles it in this process (through the on-disk kernel cache that
BOO_CACHE_ON, BOO_CACHE_DIR and BOO_CACHE_MAX_BYTES configure) the first
time a signature is asked for on a device, and keeps it in memory: a
repeated call does no disk work and no compile.

Devices: torch CPU tensors run on Boo's ``cpu`` device unless
``set_device`` (or the BOO_DEVICE variable) names another host device:
``cpu:N`` (N threads) or ``emu:<chip>`` (the GPU kernels on the SIMT
emulator). Tensors of a ROCm build of PyTorch (device type ``cuda``) run
on ``hip:<index>``.
"""

from __future__ import annotations

import logging
import os
import threading
from typing import Sequence

import torch

from . import _boo
from .signature import DTYPE_CODES, TORCH_DTYPES, ConvSignature, LayerNormSignature

__all__ = [
    "Launchable",
    "get_launchable",
    "get_launchable_mlir",
    "set_device",
    "get_device",
    "preload",
    "stats",
    "reset_stats",
]

logger = logging.getLogger("boo")

_lock = threading.Lock()
_host_device: str | None = os.environ.get("BOO_DEVICE") or None
_devices: dict[str, _boo.Device] = {}
_launchables: dict[tuple[str, str], "Launchable"] = {}
_stats = {"launches": 0, "compiles": 0, "cache_hits": 0, "copies": 0}


def set_device(spec: str | None) -> None:
    """Runs torch CPU tensors on `spec` ("cpu", "cpu:N", "emu:gfx942", ...);
    None goes back to BOO_DEVICE or "cpu". The device is opened (and a bad
    spec rejected) now."""
    global _host_device
    if spec is not None:
        if spec.split(":")[0] not in ("cpu", "emu"):
            raise ValueError(
                f"set_device('{spec}'): torch CPU tensors run on a host device, "
                "'cpu', 'cpu:N' or 'emu:<chip>'; HIP tensors choose 'hip:N' themselves"
            )
        _open_device(spec)
    _host_device = spec if spec is not None else (os.environ.get("BOO_DEVICE") or None)


def get_device(tensor_device: torch.device | str = "cpu") -> str:
    """The Boo device that runs tensors of `tensor_device`."""
    device = tensor_device if isinstance(tensor_device, torch.device) else torch.device(tensor_device)
    if device.type == "cpu":
        return _host_device or "cpu"
    if device.type == "cuda" and torch.version.hip is not None:
        return f"hip:{device.index if device.index is not None else torch.cuda.current_device()}"
    raise ValueError(
        f"Boo runs torch tensors on the CPU (cpu, emu:<chip>) and on AMD GPUs "
        f"through a ROCm build of PyTorch; a tensor on '{device}' cannot be run"
    )


def _open_device(spec: str) -> _boo.Device:
    device = _devices.get(spec)
    if device is None:
        with _lock:
            device = _devices.get(spec)
            if device is None:
                device = _boo.Device(spec)
                _devices[spec] = device
    return device


def _compile_target(spec: str, device: _boo.Device) -> str:
    kind = spec.split(":")[0]
    if kind == "cpu":
        return "cpu"
    if kind == "emu":
        return "emu:" + spec.split(":")[1]
    return device.target


class Launchable:
    """A compiled function on a device: call it with its arguments (torch
    tensors in the function's order, shapes and dtypes) to get its results
    as new tensors, or use `invoke` to write into tensors you own.

    `source` is an MIOpenDriver command, or Boo MLIR text with `mlir=True`
    (whose one public function is the launchable's)."""

    def __init__(self, source: str, spec: str, *, mlir: bool = False, name: str = ""):
        self.device = spec
        device = _open_device(spec)
        target = _compile_target(spec, device)
        if mlir:
            self.command = None
            module, outcome, note, seconds = _boo.compile_mlir(source, name or "<boo>", target)
        else:
            self.command = source
            _boo.describe_command(source)  # a bad command is a ValueError
            module, outcome, note, seconds = _boo.compile_command(source, target)
        _stats["compiles" if outcome != "hit" else "cache_hits"] += 1
        if note:
            logger.warning("boo: kernel cache: %s", note)
        self._native = _boo.Launchable(device, module, "")
        self._device = device
        self._hip = spec.startswith("hip")
        self.func_name = self._native.name
        self.arguments = [(n, tuple(s), TORCH_DTYPES[c]) for n, s, c in self._native.inputs]
        self.results = [(n, tuple(s), TORCH_DTYPES[c]) for n, s, c in self._native.results]
        self.launch_count = self._native.launch_count
        logger.debug("boo: compiled @%s for %s (%s, %.3f s)", self.func_name, spec, outcome, seconds)

    def invoke(self, args: Sequence[torch.Tensor], results: Sequence[torch.Tensor]) -> None:
        """Runs the function on `args`, writing `results` in place. Each
        tensor must be dense row-major in the function's shape (the runtime
        checks dtype, shape and strides and names what is wrong)."""
        _stats["launches"] += 1
        try:
            inputs = [(t.data_ptr(), DTYPE_CODES[t.dtype], t.shape, t.stride()) for t in args]
            outputs = [(t.data_ptr(), DTYPE_CODES[t.dtype], t.shape, t.stride()) for t in results]
        except KeyError as e:
            raise ValueError(f"@{self.func_name}: Boo has no element type for {e.args[0]}") from None
        if self._hip:
            _follow_torch_stream(self._device, args[0].device if args else None)
        self._native.invoke(inputs, outputs)

    def __call__(self, *args: torch.Tensor) -> tuple[torch.Tensor, ...] | torch.Tensor:
        if len(args) != len(self.arguments):
            raise ValueError(
                f"@{self.func_name} takes {len(self.arguments)} arguments "
                f"({', '.join(n for n, _, _ in self.arguments)}), got {len(args)}"
            )
        device = args[0].device if args else torch.device("cpu")
        args = [make_dense(t, name) for t, (name, _, _) in zip(args, self.arguments)]
        outs = [torch.empty(s, dtype=d, device=device) for _, s, d in self.results]
        self.invoke(args, outs)
        return outs[0] if len(outs) == 1 else tuple(outs)

    def call_named(self, given: dict) -> dict:
        """Runs the function on the tensors of `given`, looked up by
        argument name (made dense where they are not), into new result
        tensors; returns them by result name."""
        args = [make_dense(given[name], name) for name, _, _ in self.arguments]
        device = args[0].device if args else torch.device("cpu")
        outs = {name: torch.empty(s, dtype=d, device=device) for name, s, d in self.results}
        self.invoke(args, list(outs.values()))
        return outs

    def __repr__(self) -> str:
        return f"Launchable(@{getattr(self, 'func_name', '?')} on {self.device})"


_streams: dict[int, int] = {}


def _follow_torch_stream(device: _boo.Device, tensor_device) -> None:
    """Orders a hip device's work on PyTorch's current stream."""
    stream = torch.cuda.current_stream(tensor_device).cuda_stream
    if _streams.get(id(device)) != stream:
        device.set_stream(stream)
        _streams[id(device)] = stream


def make_dense(t: torch.Tensor, what: str) -> torch.Tensor:
    """`t` if it is dense row-major, else a dense copy (logged at debug)."""
    if t.is_contiguous():
        return t
    logger.debug(
        "boo: %s has strides %s for shape %s: made contiguous (one copy)",
        what, tuple(t.stride()), tuple(t.shape),
    )
    _stats["copies"] += 1
    return t.contiguous()


def _get(source: str, device: str | None, mlir: bool, name: str = "") -> Launchable:
    """The launchable of `source` on `device` (default: the device torch CPU
    tensors run on), compiled on first use and kept in memory."""
    spec = device or get_device("cpu")
    key = (source, spec)
    launchable = _launchables.get(key)
    if launchable is None:
        launchable = Launchable(source, spec, mlir=mlir, name=name)
        with _lock:
            launchable = _launchables.setdefault(key, launchable)
    return launchable


def get_launchable(
    signature: "ConvSignature | LayerNormSignature | str", device: str | None = None
) -> Launchable:
    """The launchable of a signature (or MIOpenDriver command) on `device`
    (default: the device torch CPU tensors run on), compiled on first use."""
    command = signature if isinstance(signature, str) else signature.to_miopen()
    return _get(command, device, mlir=False)


def get_launchable_mlir(source: str, device: str | None = None, name: str = "") -> Launchable:
    """The launchable of Boo MLIR text's one public function on `device`,
    compiled on first use; `name` names the source in diagnostics."""
    return _get(source, device, mlir=True, name=name)


def preload(commands: Sequence[str], chips: Sequence[str] = (), devices: Sequence[str] = ()) -> None:
    """Compiles `commands` into the on-disk kernel cache for each chip
    ("gfx942": no GPU needed) and loads them for each host device
    ("cpu", "emu:gfx942") into memory."""
    from concurrent.futures import ThreadPoolExecutor

    jobs = [(c, chip) for c in commands for chip in chips]
    with ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
        # The compile releases the GIL.
        list(pool.map(lambda job: _boo.compile_command(job[0], job[1]), jobs))
    for spec in devices:
        for command in commands:
            get_launchable(command, spec)


def stats() -> dict[str, int]:
    """Counts since the last reset: "launches" (Boo invocations), "compiles"
    (kernels compiled), "cache_hits" (served from the on-disk cache),
    "copies" (tensors made dense)."""
    return dict(_stats)


def reset_stats() -> None:
    for key in _stats:
        _stats[key] = 0
