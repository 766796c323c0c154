"""Reference extraction cost per record: rules-only and rules+NER, against a plain-regex baseline (same run).

Texts: the first 1,500 characters of real e-mail bodies from the shared corpus (ASF list archives), i.e.
what one e-mail episode looks like, each with its Date header as the record day (year-less and relative dates are
resolved against it, as transforms/build.py does). Models are loaded before timing. The last line states the
per-record cost without NER against the target (issue 28: <= 1 ms) and its ratio to the raw-regex baseline. Usage:
    .venv/bin/python bench/references_bench.py [--records 300] [--repeat 3] [--labelled DIR ...] [--split eval]
Then per-type precision/recall on the labelled units' `references` (bench/references_quality.py).
"""

import argparse
import datetime as dt
import email.utils
import mailbox
import re
import statistics
import time
from pathlib import Path

import references_quality  # noqa: E402  (bench/ is on sys.path when run as a script)

from transforms import ner
from transforms.references import ReferenceConfig, extract_references, extract_references_batch
from transforms.text import normalise

CORPUS = Path(__file__).resolve().parents[1] / ".." / "shared" / "corpus"

# Baseline: the five raw patterns from notes/nlp.md §3.5, finditer only (no validation, no ids).
CJK_PUNCT = r"\u3000-\u303f\uff00-\uffef\u4e00-\u9fff"
BASELINE = [
    re.compile(rf"\bhttps?://[^\s<>\"'()\]{CJK_PUNCT}]+[^\s<>\"'().,;:!?\]{CJK_PUNCT}]"),
    re.compile(r"(?<![A-Za-z0-9._%+-])[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+"),
    re.compile(r"(?<![A-Za-z0-9_-])[A-Z][A-Z0-9_]{1,9}-[1-9]\d{0,6}(?![A-Za-z0-9_-])"),
    re.compile(
        r"[^\s/\\:*?\"<>|，。；：、（）()\[\]【】]{1,120}?\.(?:pdf|docx?|xlsx?|pptx?|csv|txt|zip|png|jpe?g|msg|eml"
        r"|json|xml)(?![A-Za-z0-9])",
        re.I,
    ),
    re.compile(r"(?<![A-Za-z0-9])[A-Za-z0-9]{15}(?:[A-Za-z0-9]{3})?(?![A-Za-z0-9])"),
]


TARGET_MS = 1.0  # issue 28: references cost <= 1 ms per record without NER


def _day(message: mailbox.mboxMessage) -> dt.date | None:
    try:
        return email.utils.parsedate_to_datetime(message["Date"]).date()
    except (TypeError, ValueError):
        return None


def load_texts(limit: int) -> tuple[list[str], list[dt.date | None]]:
    texts, days = [], []
    for path in sorted((CORPUS / "email").rglob("*.mbox")):
        for message in mailbox.mbox(str(path)):
            if message.is_multipart():
                continue
            payload = message.get_payload(decode=True)
            text = normalise(payload.decode("utf-8", errors="replace"))[:1500] if payload else ""
            if len(text) >= 200:
                texts.append(text)
                days.append(_day(message))
            if len(texts) >= limit:
                return texts, days
    return texts, days


def timed(fn, repeat: int) -> float:
    """Best of `repeat` wall times (s): the least disturbed by other load on the machine."""
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--records", type=int, default=300)
    parser.add_argument("--repeat", type=int, default=3)
    references_quality.add_arguments(parser)
    args = parser.parse_args()

    texts, days = load_texts(args.records)
    n = len(texts)
    chars = statistics.mean(len(t) for t in texts)
    rules = ReferenceConfig(ner=False)
    full = ReferenceConfig()
    t0 = time.perf_counter()
    ner.load()
    load_s = time.perf_counter() - t0
    extract_references(texts[0], config=full)  # warm-up

    rows = [
        ("baseline: 5 raw regexes (notes §3.5)", lambda: [[m for p in BASELINE for m in p.finditer(t)] for t in texts]),
        ("rules only (extract_references, ner=False)", lambda: [extract_references(t, config=rules) for t in texts]),
        (
            "rules only, batch with record days (as build.py)",
            lambda: extract_references_batch(texts, ["en"] * n, config=rules, reference_dates=days),
        ),
        ("NER only (nlp.pipe, no rules)", lambda: ner.entities_batch(texts)),
        ("rules + NER, one call per record", lambda: [extract_references(t, config=full) for t in texts]),
        ("rules + NER, extract_references_batch", lambda: extract_references_batch(texts, ["en"] * n, config=full)),
    ]
    results = [(name, timed(fn, args.repeat) / n * 1000) for name, fn in rows]
    refs = sum(len(r) for r in extract_references_batch(texts, ["en"] * n, config=full))

    print(
        f"{n} records, mean {chars:.0f} chars, {refs} references (rules+NER); spaCy load {load_s:.2f} s; "
        f"best of {args.repeat}"
    )
    baseline = results[0][1]
    print(f"{'variant':48s} {'ms/record':>10s} {'x baseline':>11s}")
    for name, ms in results:
        print(f"{name:48s} {ms:10.3f} {ms / baseline:11.1f}")

    without_ner = max(results[1][1], results[2][1])
    verdict = "met" if without_ner <= TARGET_MS else "NOT met"
    print(
        f"\nwithout NER: {without_ner:.3f} ms/record (the slower of the two rules-only rows), target <= {TARGET_MS} ms: "
        f"{verdict}; {without_ner / baseline:.1f}x the raw-regex baseline measured in this run"
    )

    print("\n== quality on labelled real units (per-type precision/recall) ==")
    references_quality.run(args)


if __name__ == "__main__":
    main()
