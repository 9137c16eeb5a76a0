"""What Boo's benchmark scripts share: command files, driver runs, ratios."""

import csv
import os
import re
import statistics
import subprocess
import sys
import tempfile

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
DRIVER = os.path.join(ROOT, "build", "bin", "boo-driver")


def choices(text, table, what, tool):
    """The comma-separated `text` as a list, each a key of `table`; exits
    with `tool`'s message naming `what` otherwise."""
    values = text.split(",")
    for value in values:
        if value not in table:
            sys.exit(f"{tool}: unknown {what} '{value}' "
                     f"(known: {', '.join(table)})")
    return values


def read_commands(path, op_pattern=r"(conv|layernorm)\w*"):
    """The MIOpenDriver commands of a command file, as argument lists."""
    commands = []
    with open(path) as f:
        for line in f:
            line = line.split("#", 1)[0].strip()
            if not line:
                continue
            args = line.split()
            # "./bin/MIOpenDriver conv ..." or "conv ...".
            while args and not re.fullmatch(op_pattern, args[0]):
                args.pop(0)
            if args:
                commands.append(args)
    return commands


def run_driver(driver, commands, threads, iterations, csv_path,
               backend="onednn", tool="boo-bench", pipeline_options=""):
    """Runs `commands` on cpu:`threads` against `backend` (Boo's kernels
    compiled with the CPU pipeline's `pipeline_options`, if any); returns
    CSV rows."""
    with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as f:
        f.write("\n".join(commands) + "\n")
        commands_file = f.name
    try:
        cmd = [driver, f"--device=cpu:{threads}",
               f"--reference-backend={backend}", "--time",
               f"--iterations={iterations}", "--csv", csv_path,
               "--commands-file", commands_file]
        if pipeline_options:
            cmd.append(f"--cpu-pipeline-options={pipeline_options}")
        result = subprocess.run(cmd, stdout=subprocess.DEVNULL,
                                stderr=subprocess.PIPE, text=True)
        if not os.path.exists(csv_path):
            sys.exit(f"{tool}: {' '.join(cmd)} wrote no CSV:\n"
                     f"{result.stderr}")
    finally:
        os.unlink(commands_file)
    with open(csv_path, newline="") as f:
        return list(csv.DictReader(f))


def ratio(row):
    """Boo's speed over the reference's for one CSV row, or None."""
    try:
        boo = float(row["median_ms"])
        reference = float(row["reference_median_ms"])
    except (KeyError, ValueError):
        return None
    if row.get("status") != "ok" or boo <= 0 or reference <= 0:
        return None
    return reference / boo


def rate(row, key, amount):
    """`amount` ("bytes" or "flops") per ns, i.e. GB/s or GFLOP/s, of Boo
    (`key` "median_ms") or the reference ("reference_median_ms") in one CSV
    row, or None."""
    try:
        ms, total = float(row[key]), float(row[amount])
    except (KeyError, ValueError):
        return None
    return total / (ms * 1e6) if ms > 0 else None


def fmt(value, width, suffix=""):
    """`value` right-aligned in `width`: one decimal (GB/s, GFLOP/s), or two
    and `suffix` ("x": ratios); "-" for None."""
    if value is None:
        return "-".rjust(width)
    return format(value, f"{width - len(suffix)}.{2 if suffix else 1}f") + \
        suffix


def median_and_worst(values):
    """(median, worst value, its label) of (value, label) pairs."""
    worst = min(values)
    return statistics.median(v for v, _ in values), worst[0], worst[1]


def add_run_arguments(parser, iterations):
    """The options of every benchmark script: thread counts, timed calls
    per command, and where the driver's CSVs go."""
    parser.add_argument("--threads", default=f"1,{os.cpu_count()}",
                        help="comma-separated thread counts (default: 1 and "
                             "all cores)")
    parser.add_argument("--iterations", type=int, default=iterations)
    parser.add_argument("--csv-dir", default=None,
                        help="where the driver's CSVs go (default: a "
                             "temporary directory)")
