#!/usr/bin/env python3
"""Boo's CPU batch norms against oneDNN and memcpy's bandwidth, same run.

A batch norm reads its input a few times and writes its output once (plus
per-channel parameters and statistics): it is memory-bound. For every
command of a batch-norm list (by default bench/networks/
batchnorm-resnet50.txt), in f32 and bf16, NCHW and NHWC, as training
(-F 1 -s 1 -r 1), inference with the running statistics (-F 2 -r 1) and
backward (-b 1 -s 1), at 1 thread and at all of the host's threads, this
runs

  boo-driver --device=cpu:T --time --reference-backend=onednn

(oneDNN's batch normalization on T threads: the ratio is Boo's speed over
oneDNN's; oneDNN has no bf16 batch norm on hosts without AVX-512, where the
backend times it in f32 and says so), then the same with
--reference-backend=memcpy (a host memcpy of the same bytes on the same
threads). It prints each command's GB/s and both ratios, and per type,
layout, direction and thread count the median and the worst ratio to
oneDNN.

  build/venv/bin/python bench/python/boo-bench-batchnorm.py
  python3 bench/python/boo-bench-batchnorm.py --types f32 --threads 1
"""

import argparse
import os
import tempfile

from benchlib import (DRIVER, ROOT, add_run_arguments, choices, fmt,
                      median_and_worst, rate, ratio, read_commands,
                      run_driver)

DEFAULT_LIST = os.path.join(ROOT, "bench", "networks",
                            "batchnorm-resnet50.txt")
TYPES = {"f32": "bnorm", "bf16": "bnormbfp16"}
LAYOUTS = ("NCHW", "NHWC")
DIRECTIONS = {"train": ["-F", "1", "-s", "1", "-r", "1"],
              "infer": ["-F", "2", "-r", "1"],
              "bwd": ["-F", "0", "-b", "1", "-s", "1"]}
# Flags the variants set (with a value each).
SET_FLAGS = {"-F", "--forw", "-b", "--back", "-s", "--save", "-r", "--run",
             "-L", "--layout"}


def as_variant(args, op, layout, direction):
    """`args` (a batch-norm command) as `op` in `layout` and `direction`."""
    rest, i = [], 1
    while i < len(args):
        if args[i] in SET_FLAGS:
            i += 2
            continue
        rest.append(args[i])
        i += 1
    return " ".join([op] + rest + ["-L", layout] + DIRECTIONS[direction])


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--driver", default=DRIVER)
    parser.add_argument("--commands-file", default=DEFAULT_LIST)
    parser.add_argument("--types", default="f32,bf16",
                        help="comma-separated: " + ", ".join(TYPES))
    parser.add_argument("--layouts", default="NCHW,NHWC",
                        help="comma-separated: " + ", ".join(LAYOUTS))
    parser.add_argument("--directions", default="train,infer,bwd",
                        help="comma-separated: " + ", ".join(DIRECTIONS))
    add_run_arguments(parser, iterations=10)
    args = parser.parse_args()

    commands = read_commands(args.commands_file, r"bnorm\w*")
    csv_dir = args.csv_dir or tempfile.mkdtemp(prefix="boo-bench-batchnorm-")
    os.makedirs(csv_dir, exist_ok=True)
    threads = sorted({int(t) for t in args.threads.split(",")})
    tool = "boo-bench-batchnorm"
    types = choices(args.types, TYPES, "type", tool)
    layouts = choices(args.layouts, LAYOUTS, "layout", tool)
    directions = choices(args.directions, DIRECTIONS, "direction", tool)

    print(f"Boo's batch norms: GB/s (bytes of inputs and outputs over the "
          f"median time of {args.iterations} calls) against oneDNN and a "
          f"memcpy of the same bytes on the same threads; CSVs in {csv_dir}")
    print(f"{'type':<5} {'layout':<6} {'thr':>3} {'dir':<5} {'Boo GB/s':>9} "
          f"{'oneDNN':>7} {'memcpy':>7}  command")
    summary = []
    for type_name in types:
        for layout in layouts:
            for t in threads:
                for direction in directions:
                    variant = [as_variant(c, TYPES[type_name], layout,
                                          direction) for c in commands]
                    stem = os.path.join(
                        csv_dir, f"{type_name}-{layout}-{direction}-{t}")
                    rows = run_driver(args.driver, variant, t,
                                      args.iterations, stem + "-onednn.csv",
                                      "onednn", "boo-bench-batchnorm")
                    memcpy = {r["command"]: ratio(r) for r in run_driver(
                        args.driver, variant, t, args.iterations,
                        stem + "-memcpy.csv", "memcpy", "boo-bench-batchnorm")}
                    ratios = []
                    for row in rows:
                        r = ratio(row)
                        command = row.get("command", "?")
                        if r is not None:
                            ratios.append((r, command))
                        print(f"{type_name:<5} {layout:<6} {t:>3} "
                              f"{direction:<5} "
                              f"{fmt(rate(row, 'median_ms', 'bytes'), 9)} "
                              f"{fmt(r, 7, 'x')} "
                              f"{fmt(memcpy.get(command), 7, 'x')}  {command}")
                    if ratios:
                        summary.append((type_name, layout, t, direction,
                                        len(ratios))
                                       + median_and_worst(ratios))
    print("\nBoo's speed over oneDNN's (1.00x: as fast)")
    print(f"{'type':<5} {'layout':<6} {'thr':>3} {'dir':<5} {'n':>3} "
          f"{'median':>7} {'worst':>7}  worst command")
    for type_name, layout, t, direction, n, median, worst, command in summary:
        print(f"{type_name:<5} {layout:<6} {t:>3} {direction:<5} {n:>3} "
              f"{median:>6.2f}x {worst:>6.2f}x  {command}")


if __name__ == "__main__":
    main()
