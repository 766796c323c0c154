"""Child for the archive-limit and large-CSV tests: read export paths with the reader of a source, under an address-space limit.

usage: python -m tests.archives.read_bounded <source> <address-space-bytes> <path>...
Archive limits come from the environment (GRAPHFEED_ZIP_*), as in a run. Prints one JSON line: the good records, every
failure (described), and the peak RSS in MiB.
"""

import json
import resource
import sys


def main(source: str, address_space: int, paths: list[str]) -> None:
    resource.setrlimit(resource.RLIMIT_AS, (address_space, address_space))
    from connectors.archives import ArchiveLimits
    from connectors.records import RecordFailure
    from connectors.registry import export_reader

    options = {"archive_limits": ArchiveLimits.from_env()} if source != "jira" else {}   # Jira reads no zips
    reader = export_reader(source, paths, **options)
    records, failures = [], []
    for item in reader.read(None):
        if isinstance(item, RecordFailure):
            failures.append(item.describe())
        else:
            records.append(item.source_key)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps({"records": records, "failures": failures, "maxrss_mb": round(peak, 1)}))


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]), sys.argv[3:])
