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

    .venv/bin/python bench/csv_bench.py --contract      # the contract suite's slow-tier inputs (issue 30)
    .venv/bin/python bench/csv_bench.py --contract --scale 0.1

``--contract`` reads the inputs tests/contract/test_large_inputs.py generates (a 200k-row Salesforce CSV, a 90k-row
Jira CSV, an mbox of 60,000 tiny messages; ``--scale`` multiplies the counts) and prints, per CPU-second of the reader's
child, records/s and MB/s against the reading rate docs/capacity.md states (reading ~3 ms a record = 333 records/s
a core; e-mail 356 records/s, 4.5 MB/s) and against the contract's hang guard (100 MB in 60 s = 1.67 MB/s), with the
same run's baseline (csv.reader; for the mbox a plain scan of its lines).
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
elif source == "email":
    from connectors.email import EmailExportReader as Reader
else:
    from connectors.salesforce import SalesforceExportReader as Reader
from ground.records import RecordFailure
start, cpu = time.perf_counter(), time.process_time()
rows = failures = 0
if kind == "csv.reader" and source == "email":  # the mbox baseline: its envelope lines, nothing parsed
    with open(path, "rb") as fh:
        rows = sum(1 for line in fh if line.startswith(b"From "))
elif kind == "csv.reader":
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
seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
peak = next(int(line.split()[1]) for line in open("/proc/self/status") if line.startswith("VmHWM:"))
print(json.dumps({"rows": rows, "failures": failures, "seconds": seconds, "cpu": cpu, "peak_mb": peak / 1024}))
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


STATED = {"salesforce": (333, None), "jira": (333, None), "email": (356, 4.5)}  # docs/capacity.md: records/s, MB/s
GUARD_MB_S = 100 / 60  # the contract's hang guard: an input under 100 MB read within 60 s of one core


def contract(scale: float) -> None:
    sys.path.insert(0, str(REPO))  # run as a script, only bench/ is on the path
    from bench.email_memory import write_tiny_mbox

    with tempfile.TemporaryDirectory(prefix="contract-bench-") as tmp:
        files = {
            "salesforce": (
                Path(tmp) / "Opportunity.csv",
                lambda p: write_salesforce(p, int(200_000 * scale), words=12),
            ),
            "jira": (Path(tmp) / "issues.csv", lambda p: write_jira(p, int(90_000 * scale), words=20)),
            "email": (Path(tmp) / "tiny.mbox", lambda p: write_tiny_mbox(p, int(60_000 * scale))),
        }
        print(
            f"{'input':<11} {'MB':>6} {'records':>8} {'cpu s':>7} {'wall s':>7} {'rec/cpu-s':>10} {'MB/cpu-s':>9} "
            f"{'x stated':>9} {'x guard':>8} {'x base':>7} {'peak+':>6}"
        )
        for source, (path, write) in files.items():
            write(path)
            mb = path.stat().st_size / 1e6
            idle, base, reader = (measure(kind, source, path) for kind in ("idle", "csv.reader", "reader"))
            rate, mb_rate = reader["rows"] / reader["cpu"], mb / reader["cpu"]
            stated_records, stated_mb = STATED[source]
            versus = rate / stated_records if stated_mb is None else min(rate / stated_records, mb_rate / stated_mb)
            print(
                f"{source:<11} {mb:>6.1f} {reader['rows']:>8,} {reader['cpu']:>7.1f} {reader['seconds']:>7.1f} "
                f"{rate:>10,.0f} {mb_rate:>9.2f} {versus:>8.1f}x {mb_rate / GUARD_MB_S:>7.1f}x "
                f"{reader['cpu'] / max(base['cpu'], 1e-3):>6.0f}x {reader['peak_mb'] - idle['peak_mb']:>5.0f}M"
            )
        print(
            "x stated: CPU rate / docs/capacity.md's reading rate (e-mail: the lower of records/s and MB/s); "
            "x guard: MB per CPU-second / 1.67; x base: reader CPU / baseline CPU; peak+: peak RSS above idle"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=200_000)
    parser.add_argument("--contract", action="store_true", help="the contract suite's slow-tier inputs")
    parser.add_argument("--scale", type=float, default=1.0, help="with --contract: multiply the input sizes")
    args = parser.parse_args()
    if args.contract:
        contract(args.scale)
        return
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
