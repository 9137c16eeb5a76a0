#!/usr/bin/env python3
"""Boo's CPU matrix products against oneDNN's matmul, in the same run.

For every command of a gemm list (by default bench/networks/matmul-large.txt),
in f32 and bf16, at 1 thread and at all of the host's threads, this runs

  boo-driver --device=cpu:T --time --reference-backend=onednn

(oneDNN's matmul on the same T threads, with the same transposes as
strides) and prints each command's GFLOP/s for Boo and oneDNN and Boo's
speed over oneDNN's (> 1: Boo faster), then per type and thread count the
median and the worst ratio.

  build/venv/bin/python bench/python/boo-bench-matmul.py
  python3 bench/python/boo-bench-matmul.py --types f32 --threads 1
"""

import argparse
import os
import tempfile

from benchlib import (DRIVER, ROOT, add_run_arguments, choices, fmt,
                      median_and_worst, rate, ratio, read_commands,
                      run_driver)

DEFAULT_LIST = os.path.join(ROOT, "bench", "networks", "matmul-large.txt")
TYPES = {"f32": "gemm", "f16": "gemmfp16", "bf16": "gemmbfp16"}


def gflops(row, key):
    """GFLOP/s of Boo ("median_ms") or the reference, from the row's flops."""
    return rate(row, key, "flops")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--driver", default=DRIVER)
    parser.add_argument("--commands-file", default=DEFAULT_LIST)
    parser.add_argument("--types", default="f32,bf16",
                        help="comma-separated: " + ", ".join(TYPES))
    add_run_arguments(parser, iterations=5)
    args = parser.parse_args()

    commands = read_commands(args.commands_file, r"gemm\w*")
    csv_dir = args.csv_dir or tempfile.mkdtemp(prefix="boo-bench-matmul-")
    os.makedirs(csv_dir, exist_ok=True)
    threads = sorted({int(t) for t in args.threads.split(",")})
    print(f"Boo's matmul over oneDNN's (> 1: Boo faster), {len(commands)} "
          f"commands, {args.iterations} timed calls each; CSVs in {csv_dir}")
    print(f"{'type':<5} {'threads':>7} {'Boo GFLOP/s':>11} "
          f"{'oneDNN':>8} {'ratio':>7}  command")
    summaries = []
    for type_name in choices(args.types, TYPES, "type", "boo-bench-matmul"):
        typed = [" ".join([TYPES[type_name]] + c[1:]) for c in commands]
        for t in threads:
            csv_path = os.path.join(csv_dir, f"{type_name}-{t}.csv")
            rows = run_driver(args.driver, typed, t, args.iterations,
                              csv_path, tool="boo-bench-matmul")
            ratios = []
            for row in rows:
                r = ratio(row)
                print(f"{type_name:<5} {t:>7} "
                      f"{fmt(gflops(row, 'median_ms'), 11)} "
                      f"{fmt(gflops(row, 'reference_median_ms'), 8)} "
                      f"{fmt(r, 7, 'x')}  {row.get('command', '?')}"
                      + ("" if row.get("status") == "ok"
                         else f"  ({row.get('error', 'failed')})"))
                if r is not None:
                    ratios.append((r, row["command"]))
            if ratios:
                summaries.append((type_name, t, len(ratios))
                                 + median_and_worst(ratios))
    print(f"\n{'type':<5} {'threads':>7} {'n':>3} {'median':>7} "
          f"{'worst':>7}  worst command")
    for type_name, t, n, median, worst, command in summaries:
        print(f"{type_name:<5} {t:>7} {n:>3} {median:>6.2f}x {worst:>6.2f}x"
              f"  {command}")


if __name__ == "__main__":
    main()
