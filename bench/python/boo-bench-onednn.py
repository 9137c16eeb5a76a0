#!/usr/bin/env python3
"""Boo's CPU convolutions against oneDNN, in the same run, per direction.

Runs network command lists (by default ResNet-50's and MobileNetV2's,
bench/networks/) in three variants -- f32 NCHW, f32 NHWC and bf16 NHWC --
through `boo-driver --device=cpu:T --reference-backend=onednn --time`, at
1 thread and at all of the host's threads (oneDNN gets the same count:
the driver runs it on the device's threads), and prints, per variant,
thread count and direction, the median and the worst of Boo's speed over
oneDNN's (> 1: Boo is faster), with the worst command.

  build/venv/bin/python bench/python/boo-bench-onednn.py               # all
  python3 bench/python/boo-bench-onednn.py --variants f32-nchw --threads 1
  python3 bench/python/boo-bench-onednn.py --commands-file my.txt --iterations 3
  python3 bench/python/boo-bench-onednn.py --cpu-pipeline-options=accumulator-lanes=256

Each driver run also writes its CSV (--csv-dir). A command oneDNN cannot
run, or that fails, is listed and left out of the ratios.
"""

import argparse
import os
import tempfile

from benchlib import (DRIVER, ROOT, add_run_arguments, choices,
                      median_and_worst, ratio, read_commands, run_driver)

NETWORKS = {
    "resnet50": os.path.join(ROOT, "bench", "networks", "resnet50.txt"),
    "mobilenetv2": os.path.join(ROOT, "bench", "networks", "mobilenetv2.txt"),
}
# Variant: (MIOpenDriver op for the type, layout flags).
NHWC = ["--in_layout", "NHWC", "--fil_layout", "NHWC", "--out_layout", "NHWC"]
VARIANTS = {
    "f32-nchw": ("conv", []),
    "f32-nhwc": ("conv", NHWC),
    "bf16-nhwc": ("convbfp16", NHWC),
}
LAYOUT_FLAGS = {"--in_layout", "--fil_layout", "--out_layout"}
DIRECTIONS = {"conv2d-fwd": "fwd", "conv2d-bwd-data": "bwd-data",
              "conv2d-bwd-weight": "bwd-weight"}


def as_variant(args, variant):
    """`args` (a conv command) in `variant`'s type and layouts."""
    op, layouts = VARIANTS[variant]
    rest, i = [], 1
    while i < len(args):
        if args[i] in LAYOUT_FLAGS:
            i += 2
            continue
        rest.append(args[i])
        i += 1
    return " ".join([op] + rest + layouts)


def summarize(rows):
    """{direction: (count, median, worst ratio, worst command)}, skipped."""
    by_direction, skipped = {}, []
    for row in rows:
        r = ratio(row)
        if r is None:
            skipped.append(row.get("command", "?"))
            continue
        direction = DIRECTIONS.get(row.get("kind", ""), row.get("kind", "?"))
        by_direction.setdefault(direction, []).append((r, row["command"]))
    summary = {direction: (len(values),) + median_and_worst(values)
               for direction, values in by_direction.items()}
    return summary, skipped


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--driver", default=DRIVER)
    parser.add_argument("--networks", default="resnet50,mobilenetv2",
                        help="comma-separated: " + ", ".join(NETWORKS))
    parser.add_argument("--commands-file", action="append", default=[],
                        help="command lists to run instead of --networks")
    parser.add_argument("--variants", default=",".join(VARIANTS),
                        help="comma-separated: " + ", ".join(VARIANTS))
    parser.add_argument("--cpu-pipeline-options", default="",
                        help="boo-to-llvm-cpu options for Boo's kernels "
                             "(e.g. accumulator-lanes=256: the register "
                             "tiles of AVX-512 hosts)")
    add_run_arguments(parser, iterations=5)
    args = parser.parse_args()

    lists = args.commands_file or [NETWORKS[n] for n in args.networks.split(",")]
    commands = [c for path in lists
                for c in read_commands(path, r"conv\w*")]
    csv_dir = args.csv_dir or tempfile.mkdtemp(prefix="boo-bench-onednn-")
    os.makedirs(csv_dir, exist_ok=True)
    threads = sorted({int(t) for t in args.threads.split(",")})

    print(f"Boo's speed over oneDNN's (> 1: Boo faster), {len(commands)} "
          f"commands per variant, {args.iterations} timed calls each; "
          f"CSVs in {csv_dir}")
    if args.cpu_pipeline_options:
        print(f"Boo's CPU pipeline options: {args.cpu_pipeline_options}")
    print(f"{'variant':<10} {'threads':>7} {'direction':<10} {'n':>3} "
          f"{'median':>7} {'worst':>7}  worst command")
    for variant in choices(args.variants, VARIANTS, "variant",
                           "boo-bench-onednn"):
        variant_commands = [as_variant(c, variant) for c in commands]
        for t in threads:
            csv_path = os.path.join(csv_dir, f"{variant}-{t}.csv")
            rows = run_driver(args.driver, variant_commands, t,
                              args.iterations, csv_path,
                              tool="boo-bench-onednn",
                              pipeline_options=args.cpu_pipeline_options)
            summary, skipped = summarize(rows)
            for direction in sorted(summary):
                n, median, worst, command = summary[direction]
                print(f"{variant:<10} {t:>7} {direction:<10} {n:>3} "
                      f"{median:>6.2f}x {worst:>6.2f}x  {command}")
            for command in skipped:
                print(f"{variant:<10} {t:>7} not compared: {command}")


if __name__ == "__main__":
    main()
