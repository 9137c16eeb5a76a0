#!/usr/bin/env python3
"""Boo's CPU layer norms against memcpy's bandwidth and oneDNN, same run.

A layer norm reads its input once and writes its output once (plus small
weights and statistics): it should run at memory bandwidth. For every
command of a layer norm list (by default bench/networks/layernorm.txt), in
f32 and bf16, forward (-F 1) and backward (-F 14, all three gradients),
at 1 thread and at all of the host's threads, this runs

  boo-driver --device=cpu:T --time --reference-backend=memcpy

(a host memcpy that reads and writes the same bytes as the layer norm, its
inputs and outputs, on the same T threads: the ratio is Boo's GB/s over
memcpy's), then the forward commands again with
--reference-backend=onednn (oneDNN's layer normalization on T threads;
oneDNN's backward is not compared). It prints each command's GB/s and
ratios, and per type, thread count and direction the median and the worst
ratio to memcpy.

  build/venv/bin/python bench/python/boo-bench-layernorm.py
  python3 bench/python/boo-bench-layernorm.py --types f32 --threads 1
"""

import argparse
import os
import tempfile

from benchlib import (DRIVER, ROOT, add_run_arguments, choices, fmt,
                      median_and_worst, rate, ratio, read_commands,
                      run_driver)

DEFAULT_LIST = os.path.join(ROOT, "bench", "networks", "layernorm.txt")
TYPES = {"f32": "layernorm", "bf16": "layernormbfp16", "f16": "layernormfp16"}
DIRECTIONS = {"fwd": "1", "bwd": "14"}


def as_variant(args, op, direction):
    """`args` (a layer norm command) as `op` in `direction` (-F value)."""
    rest, i = [], 1
    while i < len(args):
        if args[i] in ("-F", "--forw"):
            i += 2
            continue
        rest.append(args[i])
        i += 1
    return " ".join([op] + rest + ["-F", direction])


def gbps(row, key):
    """GB/s of Boo ("median_ms") or the reference, from the row's bytes."""
    return rate(row, key, "bytes")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--driver", default=DRIVER)
    parser.add_argument("--commands-file", default=DEFAULT_LIST)
    parser.add_argument("--types", default="f32,bf16",
                        help="comma-separated: " + ", ".join(TYPES))
    parser.add_argument("--directions", default="fwd,bwd",
                        help="comma-separated: " + ", ".join(DIRECTIONS))
    add_run_arguments(parser, iterations=20)
    args = parser.parse_args()

    commands = read_commands(args.commands_file, r"layernorm\w*")
    csv_dir = args.csv_dir or tempfile.mkdtemp(prefix="boo-bench-layernorm-")
    os.makedirs(csv_dir, exist_ok=True)
    threads = sorted({int(t) for t in args.threads.split(",")})
    types = choices(args.types, TYPES, "type", "boo-bench-layernorm")
    directions = choices(args.directions, DIRECTIONS, "direction",
                         "boo-bench-layernorm")

    print(f"Boo's layer norms: GB/s (bytes of inputs and outputs over the "
          f"median time of {args.iterations} calls) against a memcpy of the "
          f"same bytes on the same threads, and against oneDNN (forward); "
          f"CSVs in {csv_dir}")
    print(f"{'type':<5} {'thr':>3} {'dir':<4} {'Boo GB/s':>9} "
          f"{'memcpy':>7} {'ratio':>6} {'oneDNN':>7}  command")
    summary = []
    for type_name in types:
        for t in threads:
            for direction in directions:
                variant = [as_variant(c, TYPES[type_name],
                                      DIRECTIONS[direction])
                           for c in commands]
                stem = os.path.join(csv_dir, f"{type_name}-{direction}-{t}")
                rows = run_driver(args.driver, variant, t, args.iterations,
                                  stem + "-memcpy.csv", "memcpy",
                                  "boo-bench-layernorm")
                onednn = {}
                if direction == "fwd":
                    onednn = {r["command"]: ratio(r) for r in run_driver(
                        args.driver, variant, t, args.iterations,
                        stem + "-onednn.csv", "onednn", "boo-bench-layernorm")}
                ratios = []
                for row in rows:
                    r = ratio(row)
                    command = row.get("command", "?")
                    if r is not None:
                        ratios.append((r, command))
                    print(f"{type_name:<5} {t:>3} {direction:<4} "
                          f"{fmt(gbps(row, 'median_ms'), 9)} "
                          f"{fmt(gbps(row, 'reference_median_ms'), 7)} "
                          f"{fmt(r, 6, 'x')} "
                          f"{fmt(onednn.get(command), 7, 'x')}  {command}")
                if ratios:
                    summary.append((type_name, t, direction, len(ratios))
                                   + median_and_worst(ratios))
    print("\nBoo's bandwidth over memcpy's (1.00x: at memcpy's bandwidth)")
    print(f"{'type':<5} {'thr':>3} {'dir':<4} {'n':>3} {'median':>7} "
          f"{'worst':>7}  worst command")
    for type_name, t, direction, n, median, worst, command in summary:
        print(f"{type_name:<5} {t:>3} {direction:<4} {n:>3} {median:>6.2f}x "
              f"{worst:>6.2f}x  {command}")


if __name__ == "__main__":
    main()
