#!/usr/bin/env python3
"""Boo from PyTorch on the CPU, against PyTorch eager in the same run.

Times ResNet-18 and ResNet-50 (python/test/models.py: torchvision's
architectures, random weights), forward (eval, no grad) and forward +
backward (train mode), at 1 thread and at all threads:

  eager     PyTorch's own kernels
  replace   boo.modeling.replace_convs_with_boo (every conv on Boo)
  compile   torch.compile(backend="boo") (convs fused, backward on Boo)

and prints each median time and its speedup over eager (> 1: Boo faster).
Then it measures the Python overhead of one boo_conv call on a tiny tensor
against a direct runtime call of the same compiled kernel (the target is
at most 10 us added per call).

Run it with the package built (scripts/setup.sh):
  PYTHONPATH=build/python build/venv/bin/python bench/python/boo-bench-torch.py
"""

import argparse
import copy
import os
import statistics
import sys
import time

import torch

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "python", "test"))
import boo  # noqa: E402
from boo.modeling import replace_convs_with_boo  # noqa: E402
from models import ResNet18, ResNet50  # noqa: E402


def median_time(fn, repeats: int) -> float:
    fn()  # warm up: compiles, caches, first-touch
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def runner(model, x, train: bool):
    if not train:
        def forward():
            with torch.no_grad():
                model(x)
        return forward

    def step():
        model.zero_grad(set_to_none=True)
        model(x).sum().backward()
    return step


def bench_model(name, make, x, threads, repeats):
    torch.set_num_threads(threads)
    boo.set_device(f"cpu:{threads}")
    for train in (False, True):
        base = make().train(train)
        variants = {
            "eager": base,
            "replace": replace_convs_with_boo(copy.deepcopy(base)),
            "compile": torch.compile(copy.deepcopy(base), backend="boo", dynamic=False),
        }
        times = {k: median_time(runner(m, x, train), repeats) for k, m in variants.items()}
        what = "fwd+bwd" if train else "fwd"
        line = f"{name:9} {what:7} threads={threads}  eager {times['eager'] * 1e3:8.1f} ms"
        for k in ("replace", "compile"):
            line += f"   {k} {times[k] * 1e3:8.1f} ms (x{times['eager'] / times[k]:.2f})"
        print(line, flush=True)
        torch._dynamo.reset()
    boo.set_device(None)


def bench_overhead(calls: int) -> None:
    x, w = torch.randn(1, 4, 4, 4), torch.randn(4, 4, 1, 1)
    boo.ops.boo_conv(x, w)
    sig = boo.ConvSignature(input_shape=[1, 4, 4, 4], kernel_shape=[4, 4, 1, 1], dtype=torch.float32)
    native = boo.get_launchable(sig)._native
    out = torch.empty(1, 4, 4, 4)
    views = [(t.data_ptr(), 0, t.shape, t.stride()) for t in (x, w)]
    outs = [(out.data_ptr(), 0, out.shape, out.stride())]

    def per_call(fn):
        best = float("inf")
        for _ in range(7):
            start = time.perf_counter()
            for _ in range(calls):
                fn()
            best = min(best, (time.perf_counter() - start) / calls)
        return best * 1e6

    direct = per_call(lambda: native.invoke(views, outs))
    through = per_call(lambda: boo.ops.boo_conv(x, w))
    eager = per_call(lambda: torch.nn.functional.conv2d(x, w))
    added = through - direct
    print(f"per-call overhead (1x4x4x4 conv 1x1, best of 7 x {calls} calls): boo_conv {through:.2f} us, "
          f"direct runtime call {direct:.2f} us, added {added:.2f} us "
          f"({'within' if added <= 10 else 'ABOVE'} the 10 us target); torch conv2d {eager:.2f} us")


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--batch", type=int, default=1)
    p.add_argument("--size", type=int, default=224, help="input height and width")
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--models", default="resnet18,resnet50")
    p.add_argument("--calls", type=int, default=20000)
    a = p.parse_args()
    all_threads = os.cpu_count() or 1
    print(f"boo-bench-torch: torch {torch.__version__}, {all_threads} cores, input {a.batch}x3x{a.size}x{a.size} f32, "
          f"median of {a.repeats}", flush=True)
    makers = {"resnet18": ResNet18, "resnet50": ResNet50}
    torch.manual_seed(0)
    x = torch.randn(a.batch, 3, a.size, a.size)
    for name in a.models.split(","):
        for threads in sorted({1, all_threads}):
            bench_model(name, makers[name], x, threads, a.repeats)
    bench_overhead(a.calls)


if __name__ == "__main__":
    main()
