"""Dates in prose: the rule set (transforms.text_dates) against dateparser's search_dates on the golden list.

    .venv/bin/python bench/text_dates_bench.py [--golden tests/transforms/golden/text_dates.json]

Prints, per parser: cases fully right, date precision/recall, wrong dates written, ambiguous dates written, and time per
case against the rule set's in the same run. dateparser is optional: without it only the rule set is measured.
"""

import argparse
import datetime as dt
import json
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from transforms.text_dates import find_dates  # noqa: E402

Finder = Callable[[str, str, dt.datetime], set[str]]


def rules(text: str, lang: str, ref: dt.datetime) -> set[str]:
    return {d.date.isoformat() for d in find_dates(text, lang, ref).dates}


def dateparser_finder(strict: bool) -> Finder:
    from dateparser.search import search_dates

    def find(text: str, lang: str, ref: dt.datetime) -> set[str]:
        settings = {"RELATIVE_BASE": ref.replace(tzinfo=None), "PREFER_DATES_FROM": "future"}
        if strict:
            settings["REQUIRE_PARTS"] = ["day", "month"]
        found = search_dates(text, languages=[lang], settings=settings) or []
        return {moment.date().isoformat() for _, moment in found}

    return find


def score(cases: list[dict], finder: Finder) -> dict:
    right = tp = fp = fn = ambiguous_written = 0
    misses = []
    started = time.perf_counter()
    for case in cases:
        ref = dt.datetime.fromisoformat(case["ref"]).replace(hour=12, tzinfo=dt.UTC)
        got, want = finder(case["text"], case["lang"], ref), set(case["expect"])
        tp, fp, fn = tp + len(got & want), fp + len(got - want), fn + len(want - got)
        ambiguous_written += bool(case.get("ambiguous") and got)
        if got == want:
            right += 1
        else:
            misses.append(f"{case['lang']} {case['text']!r}: got {sorted(got)} want {sorted(want)}")
    seconds = time.perf_counter() - started
    return {
        "cases": len(cases),
        "right": right,
        "accuracy": round(right / len(cases), 3),
        "precision": round(tp / (tp + fp), 3) if tp + fp else 1.0,
        "recall": round(tp / (tp + fn), 3) if tp + fn else 1.0,
        "wrong_dates_written": fp,
        "ambiguous_written": ambiguous_written,
        "ms_per_case": round(1000 * seconds / len(cases), 3),
        "misses": misses,
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--golden", default=str(ROOT / "tests/transforms/golden/text_dates.json"))
    parser.add_argument("--misses", action="store_true", help="print every case a parser got wrong")
    args = parser.parse_args()
    cases = json.loads(Path(args.golden).read_text())["cases"]
    results = {"rules": score(cases, rules)}
    try:
        results["dateparser"] = score(cases, dateparser_finder(strict=False))
        results["dateparser(day+month required)"] = score(cases, dateparser_finder(strict=True))
    except ImportError:
        print("dateparser not installed: rule set only")
    base = results["rules"]["ms_per_case"] or 1e-9
    langs = sorted({c["lang"] for c in cases})
    print(f"golden list: {len(cases)} cases, languages {', '.join(langs)}")
    for name, r in results.items():
        print(
            f"{name:32s} right {r['right']}/{r['cases']} ({r['accuracy']:.1%})  precision {r['precision']:.3f}  "
            f"recall {r['recall']:.3f}  wrong dates {r['wrong_dates_written']}  ambiguous written "
            f"{r['ambiguous_written']}  {r['ms_per_case']} ms/case ({r['ms_per_case'] / base:.1f}x rules)"
        )
        if args.misses:
            for miss in r["misses"]:
                print("    " + miss)


if __name__ == "__main__":
    main()
