"""Peak memory of the email reader on a large synthetic mbox, against baselines measured in the same run.

    .venv/bin/python bench/email_memory.py --size-mb 200        # default 1024 (1 GB)

Generates an mbox of the requested size in a temp dir (plain, HTML and attachment-bearing messages, with
``>From`` quoting), then runs each measurement in a fresh child process so peak RSS (ru_maxrss) is its own:

* ``idle``      - interpreter + graphfeed email imports, nothing read (the floor);
* ``reader``    - EmailExportReader over the whole file, records counted and dropped;
* ``stdlib``    - ``mailbox.mbox`` over a 1/8-size prefix file (it indexes the file first), for comparison.

Prints figures and the ratio reader_peak / idle_peak. Target: a 1 GB mbox under 500 MB RSS.
"""

import argparse
import base64
import json
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def _peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # Linux reports KiB


def generate(path: Path, size_bytes: int, seed: int = 7) -> int:
    """Write messages until the file reaches size_bytes; returns the message count."""
    rng = random.Random(seed)
    words = (
        "build release invoice contract meeting deploy review budget customer ticket server "
        "quarter plan graph email report schedule"
    ).split()
    blob = base64.encodebytes(rng.randbytes(30_000)).decode()
    count = 0
    with open(path, "w", encoding="utf-8", newline="\n") as out:
        while out.tell() < size_bytes:
            count += 1
            text = "\n".join(" ".join(rng.choice(words) for _ in range(12)) for _ in range(rng.randint(5, 60)))
            kind = count % 4
            head = (
                f"From sender{count % 97}@example.com Mon Jan  2 09:00:00 2023\n"
                f"Message-ID: <m{count}@bench.example.com>\n"
                f"Date: Mon, 02 Jan 2023 09:{count % 60:02d}:00 +0000\n"
                f"From: Sender {count % 97} <sender{count % 97}@example.com>\n"
                f"To: list@example.com\nSubject: Bench message {count}\n"
                f"References: <m{max(1, count - 1)}@bench.example.com>\nMIME-Version: 1.0\n"
            )
            if kind == 0:
                body = (
                    head + 'Content-Type: multipart/mixed; boundary="b1"\n\n--b1\n'
                    "Content-Type: text/plain; charset=utf-8\n\n" + text + "\n>From the archive\n--b1\n"
                    'Content-Type: application/octet-stream; name="data.bin"\n'
                    "Content-Transfer-Encoding: base64\n\n" + blob + "--b1--\n"
                )
            elif kind == 1:
                body = head + "Content-Type: text/html; charset=utf-8\n\n<p>" + text.replace("\n", "</p><p>") + "</p>\n"
            else:
                body = head + "Content-Type: text/plain; charset=utf-8\n\n" + text + "\n"
            out.write(body + "\n")
    return count


def write_tiny_mbox(path: Path, count: int) -> int:
    """An mbox of `count` tiny plain-text messages (~190 bytes each): per-message cost, not bytes, dominates its read
    (the archives of millions of tiny notifications issue 30 names). Returns the count."""
    with open(path, "w", encoding="utf-8", newline="\n") as out:
        for i in range(count):
            out.write(
                f"From u{i % 97}@example.com Mon May  4 10:00:00 2026\nFrom: u{i % 97}@example.com\n"
                f"To: team@example.com\nSubject: ping {i}\nDate: Mon, 04 May 2026 10:{i % 60:02d}:00 +0000\n"
                f"Message-ID: <t{i}@tiny.example.com>\n\nok {i}\n\n"
            )
    return count


def child(mode: str, path: str) -> None:
    sys.path.insert(0, str(REPO))
    from connectors.email import EmailExportReader  # noqa: F401 - imports are part of the floor
    from ground.records import SourceRecord

    start = time.perf_counter()
    records = failures = 0
    if mode == "reader":
        for item in EmailExportReader([path]).read():
            if isinstance(item, SourceRecord):
                records += 1
            else:
                failures += 1
    elif mode == "stdlib":
        import mailbox

        for _ in mailbox.mbox(path, create=False):
            records += 1
    print(
        json.dumps(
            {
                "mode": mode,
                "peak_mb": round(_peak_mb(), 1),
                "records": records,
                "failures": failures,
                "seconds": round(time.perf_counter() - start, 1),
            }
        )
    )


def run_child(mode: str, path: Path) -> dict:
    out = subprocess.run(
        [sys.executable, __file__, "--child", mode, str(path)], check=True, capture_output=True, text=True
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--size-mb", type=int, default=1024)
    parser.add_argument("--child", nargs=2, metavar=("MODE", "PATH"))
    args = parser.parse_args()
    if args.child:
        child(*args.child)
        return
    with tempfile.TemporaryDirectory(prefix="gf_email_bench_") as tmp:
        big, small = Path(tmp) / "big.mbox", Path(tmp) / "small.mbox"
        started = time.perf_counter()
        count = generate(big, args.size_mb * 1024 * 1024)
        small_count = generate(small, args.size_mb * 1024 * 1024 // 8)
        print(
            f"generated {big.stat().st_size / 2**20:.0f} MB mbox ({count} messages) and a "
            f"{small.stat().st_size / 2**20:.0f} MB one ({small_count}) in {time.perf_counter() - started:.0f} s"
        )
        idle = run_child("idle", big)
        reader = run_child("reader", big)
        stdlib = run_child("stdlib", small)
        for row in (idle, reader, stdlib):
            print(json.dumps(row))
        print(
            f"reader peak {reader['peak_mb']:.0f} MB on {args.size_mb} MB mbox; idle floor {idle['peak_mb']:.0f} MB; "
            f"ratio reader/idle = {reader['peak_mb'] / idle['peak_mb']:.2f}; "
            f"stdlib mailbox.mbox on 1/8 size: {stdlib['peak_mb']:.0f} MB; "
            f"throughput {args.size_mb / max(reader['seconds'], 0.1):.1f} MB/s; "
            f"target <500 MB: {'met' if reader['peak_mb'] < 500 else 'MISSED'}"
        )
        assert reader["records"] == count, (reader, count)


if __name__ == "__main__":
    os.environ.setdefault("PYTHONHASHSEED", "0")
    main()
