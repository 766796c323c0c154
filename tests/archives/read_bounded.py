"""Child for the archive-limit and large-CSV tests: read export paths with the reader of a source, under an address-space limit.

usage: python -m tests.archives.read_bounded <source> <address-space-bytes> <path>...
Archive limits come from the environment (GRAPHFEED_ZIP_*), as in a run. Prints one JSON line: the good records, every
failure (described), and the peak RSS in MiB (VmHWM).
"""

import json
import resource
import sys


def main(source: str, address_space: int, paths: list[str]) -> None:
    resource.setrlimit(resource.RLIMIT_AS, (address_space, address_space))
    from connectors.registry import export_reader
    from ground.records import RecordFailure

    reader = export_reader(source, paths)  # with its settings from the environment, archive limits too
    records, failures = [], []
    for item in reader.read(None):
        if isinstance(item, RecordFailure):
            failures.append(item.describe())
        else:
            records.append(item.source_key)
    print(json.dumps({"records": records, "failures": failures, "maxrss_mb": round(peak_mb(), 1)}))


def peak_mb() -> float:
    """Peak RSS of this process image: VmHWM. (ru_maxrss also counts the parent's RSS from before the exec, since
    Linux folds the forked image's high-water mark into it: a child of a 250 MB pytest would report 250 MB.)"""
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]), sys.argv[3:])
