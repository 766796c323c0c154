"""Rows per second and peak memory of the Jira and Salesforce CSV readers on large exports, against a baseline measured
in the same run: plain ``csv.reader`` over the same file (rows counted, nothing kept).

    .venv/bin/python bench/csv_bench.py                 # 200,000 rows per export (the size issue 14 measured)
    .venv/bin/python bench/csv_bench.py --rows 50000

Generates a Jira "all fields" CSV export and a Salesforce Data Export Opportunity.csv in a temp dir, then runs each
measurement in a fresh child process so its peak RSS (VmHWM; ru_maxrss would include the parent's) is its own:

* ``idle``        - interpreter + the reader's imports, nothing read (the floor);
* ``csv.reader``  - the stdlib over the file (the baseline);
* ``reader``      - JiraExportReader / SalesforceExportReader over the file, records counted and dropped.

Prints rows/s, peak RSS, and the ratios reader/baseline (time) and reader/idle (memory above the floor is what grows
with the file). Memory should stay flat in the row count: compare two --rows values.
"""

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
WORDS = (
    "export migration throughput invoice contract deploy review budget customer ticket server quarter plan "
    "graph report schedule warehouse oracle connector parallel"
).split()


def _sentence(rng: random.Random, n: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(n))


def write_jira(path: Path, rows: int, seed: int = 14, words: int = 40) -> None:
    """`words`: of each description (a comment has 15); 40 gives ~700 bytes per row."""
    import csv

    rng = random.Random(seed)
    header = [
        "Summary",
        "Issue key",
        "Issue id",
        "Issue Type",
        "Status",
        "Project key",
        "Project name",
        "Priority",
        "Assignee",
        "Assignee Id",
        "Reporter",
        "Reporter Id",
        "Created",
        "Updated",
        "Labels",
        "Labels",
        "Description",
        "Comment",
        "Outward issue link (Blocks)",
    ]
    with open(path, "w", encoding="utf-8", newline="") as out:
        writer = csv.writer(out)
        writer.writerow(header)
        for i in range(rows):
            day = 1 + i % 28
            writer.writerow(
                [
                    _sentence(rng, 6).capitalize(),
                    f"NW-{i + 1}",
                    str(10000 + i),
                    rng.choice(["Story", "Task", "Bug"]),
                    rng.choice(["To Do", "In Progress", "Done"]),
                    "NW",
                    "Northwind",
                    rng.choice(["High", "Medium"]),
                    "Li Na",
                    "712020:00a9e4255a5b63067b76cbfb",
                    "Wang Wei",
                    "712020:2ac812995780137955766828",
                    f"{day:02d}/Mar/26 9:00 AM",
                    f"{day:02d}/Apr/26 10:00 AM",
                    "acme",
                    "migration",
                    _sentence(rng, words),
                    f"{day:02d}/Apr/26 7:10 AM;712020:00a9e4255a5b63067b76cbfb;{_sentence(rng, 15)}",
                    f"NW-{max(1, i)}",
                ]
            )


def write_salesforce(path: Path, rows: int, seed: int = 14, words: int = 40) -> None:
    """`words`: of each description; 40 gives ~560 bytes per row."""
    import csv

    rng = random.Random(seed)
    header = [
        "Id",
        "IsDeleted",
        "AccountId",
        "Name",
        "Description",
        "StageName",
        "Amount",
        "CurrencyIsoCode",
        "CloseDate",
        "OwnerId",
        "CreatedDate",
        "LastModifiedDate",
        "SystemModstamp",
    ]
    with open(path, "w", encoding="utf-8", newline="") as out:
        writer = csv.writer(out, quoting=csv.QUOTE_ALL)
        writer.writerow(header)
        for i in range(rows):
            day = 1 + i % 28
            writer.writerow(
                [
                    f"0068d{i:010d}AAF",
                    "false",
                    "0018d00000AcmeCAAR",
                    f"Acme - {_sentence(rng, 4)}",
                    _sentence(rng, words),
                    rng.choice(["Prospecting", "Negotiation/Review", "Closed Won"]),
                    str(rng.randint(1000, 900000)),
                    "USD",
                    f"2026-06-{day:02d}",
                    "0058d00000SaOkfAAF",
                    f"2026-03-{day:02d}T16:00:00.000Z",
                    f"2026-05-{day:02d}T15:00:00.000Z",
                    f"2026-05-{day:02d}T15:00:00.000Z",
                ]
            )


CHILD = r"""
import json, sys, time
kind, source, path = sys.argv[1:4]
if source == "jira":
    from connectors.jira import JiraExportReader as Reader
else:
    from connectors.salesforce import SalesforceExportReader as Reader
from ground.records import RecordFailure
start = time.perf_counter()
rows = failures = 0
if kind == "csv.reader":
    import csv
    csv.field_size_limit(1 << 26)
    with open(path, encoding="utf-8", newline="") as fh:
        for _ in csv.reader(fh):
            rows += 1
    rows -= 1
elif kind == "reader":
    for item in Reader([path]).read(None):
        if isinstance(item, RecordFailure):
            failures += 1
        else:
            rows += 1
seconds = time.perf_counter() - start
peak = next(int(line.split()[1]) for line in open("/proc/self/status") if line.startswith("VmHWM:"))
print(json.dumps({"rows": rows, "failures": failures, "seconds": seconds, "peak_mb": peak / 1024}))
"""


def measure(kind: str, source: str, path: Path) -> dict:
    done = subprocess.run(
        [sys.executable, "-c", CHILD, kind, source, str(path)],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "PYTHONPATH": str(REPO)},
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=200_000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="csv-bench-") as tmp:
        files = {"jira": Path(tmp) / "jira-all-fields.csv", "salesforce": Path(tmp) / "Opportunity.csv"}
        write_jira(files["jira"], args.rows)
        write_salesforce(files["salesforce"], args.rows)
        print(
            f"{args.rows:,} rows per export; files: "
            + ", ".join(f"{s} {p.stat().st_size / 2**20:.1f} MiB" for s, p in files.items())
        )
        print(f"{'export':<11} {'measure':<11} {'rows':>8} {'seconds':>8} {'rows/s':>9} {'peak MB':>8}")
        for source, path in files.items():
            figures = {kind: measure(kind, source, path) for kind in ("idle", "csv.reader", "reader")}
            for kind, f in figures.items():
                rate = f"{f['rows'] / f['seconds']:,.0f}" if f["rows"] else "-"
                print(f"{source:<11} {kind:<11} {f['rows']:>8,} {f['seconds']:>8.2f} {rate:>9} {f['peak_mb']:>8.1f}")
            base, reader, idle = figures["csv.reader"], figures["reader"], figures["idle"]
            print(
                f"{source:<11} ratios      reader/csv.reader time x{reader['seconds'] / base['seconds']:.1f}, "
                f"peak RSS above idle: reader {reader['peak_mb'] - idle['peak_mb']:.1f} MB, "
                f"csv.reader {base['peak_mb'] - idle['peak_mb']:.1f} MB; failures {reader['failures']}"
            )


if __name__ == "__main__":
    main()
