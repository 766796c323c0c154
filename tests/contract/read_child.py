"""Child of the contract's slow tier: one export read in a fresh process, under a CPU-time limit (the hang guard: the
kernel stops a read past it), printing counts and what it cost.

usage: python -m tests.contract.read_child <source> <cpu-seconds> <path>     (source "idle": imports only)
Prints one JSON line: records, failures, deletions, cpu_s, wall_s and peak_mb (VmHWM: this image's own peak RSS).
"""

import json
import resource
import sys
import time


def peak_mb() -> float:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return 0.0


def main(source: str, cpu_seconds: int, path: str) -> None:
    resource.setrlimit(resource.RLIMIT_CPU, (cpu_seconds, cpu_seconds + 5))
    from connectors.registry import SOURCE_NAMES, export_reader
    from ground.records import Deletion, RecordFailure

    counts = {"records": 0, "failures": 0, "deletions": 0}
    cpu, wall = time.process_time(), time.perf_counter()
    if source in SOURCE_NAMES:
        for item in export_reader(source, [path]).read(None):
            kind = (
                "failures" if isinstance(item, RecordFailure) else "deletions" if isinstance(item, Deletion) else None
            )
            counts[kind or "records"] += 1
    figures = {"cpu_s": time.process_time() - cpu, "wall_s": time.perf_counter() - wall, "peak_mb": peak_mb()}
    print(json.dumps({**counts, **{k: round(v, 2) for k, v in figures.items()}}))


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]), sys.argv[3])
