"""Reference quality on labelled real units: per-type precision and recall against the units' `references`.

Run:  .venv/bin/python bench/references_quality.py [--labelled DIR ...] [--split train|eval|all]
Each unit is prepared as an episode is (transforms.author_text), references extracted with the default config, and
compared by normalised value per type (names casefolded, URLs normalised, money as CUR amount, dates as days).
Baseline in the same run: today's extraction (whole raw text, no author-text preparation, no name check).
"""

import argparse
import sys
from collections import defaultdict
from decimal import Decimal
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from transforms.intent.units import labelled_files, load_units, prepare  # noqa: E402
from transforms.references import ReferenceConfig, extract_references_batch, normalise_url  # noqa: E402
from transforms.text import normalise  # noqa: E402

TYPES = (
    "person",
    "organization",
    "jira_issue",
    "url",
    "email_message",
    "salesforce_record",
    "attachment",
    "date",
    "money",
)
STRUCTURED = ("jira_issue", "url", "email_message", "salesforce_record", "attachment")


def gold_value(kind: str, value: str) -> str:
    value = value.strip()
    if kind == "url":
        return normalise_url(value) or value
    if kind == "money":
        cur, _, amount = value.partition(" ")
        try:
            return f"{cur.upper()}:{Decimal(amount.replace(',', '')).normalize():f}"
        except Exception:  # noqa: BLE001 - a malformed label stays as written and simply never matches
            return value
    if kind == "salesforce_record":
        return value[:15]
    if kind == "email_message":
        return value.strip("<>")
    return value.casefold()


def found_value(ref) -> str | None:
    kind, rid = ref.kind, ref.id
    if kind in ("person", "organization"):
        return ref.text.casefold()
    if kind == "url":
        return rid.removeprefix("url:")
    if kind == "money":
        _, cur, amount = rid.split(":", 2)
        return f"{cur}:{Decimal(amount).normalize():f}"
    if kind == "date":
        return rid.removeprefix("date:")
    if kind == "jira_issue":
        return rid.rsplit(":", 1)[-1].casefold()
    if kind == "salesforce_record":
        return rid.rsplit(":", 1)[-1][:15]
    if kind == "email_message":
        return rid.removeprefix("email:")
    if kind == "attachment":
        return ref.text.casefold()
    return None


def score(units, texts, config):
    refs = extract_references_batch(texts, [u.lang if u.lang == "en" else u.lang for u in units], config=config)
    tp, fp, fn = defaultdict(int), defaultdict(int), defaultdict(int)
    misses = defaultdict(list)
    for unit, found in zip(units, refs):
        for kind in TYPES:
            gold = {gold_value(kind, v) for v in (unit.references or {}).get(kind, [])}
            got = {v for r in found if r.kind == kind and (v := found_value(r)) is not None}
            tp[kind] += len(gold & got)
            fp[kind] += len(got - gold)
            fn[kind] += len(gold - got)
            misses[kind] += [f"+{v}" for v in sorted(got - gold)][:3]
    return tp, fp, fn, misses


def add_arguments(ap: argparse.ArgumentParser) -> None:
    ap.add_argument("--labelled", nargs="*", type=Path, default=[ROOT / "data" / "intent" / "labelled"])
    ap.add_argument("--split", choices=("train", "eval", "all"), default="all")
    ap.add_argument("--show", type=int, default=0, help="print up to N false positives per type")


def main() -> None:
    ap = argparse.ArgumentParser()
    add_arguments(ap)
    run(ap.parse_args())


def run(args: argparse.Namespace) -> None:
    units = [
        u
        for d in args.labelled
        for u in load_units(labelled_files(d))
        if u.references is not None and u.raw_text is not None and (args.split == "all" or u.split == args.split)
    ]
    print(f"{len(units)} units with labelled references ({args.split})")
    if not units:
        return
    # The ETL knows the Jira projects it reads (GRAPHFEED_JIRA_PROJECT_KEYS): those of the labelled Jira units.
    projects = sorted(
        {u.source_key.split("-")[0] for u in units if u.source_family.startswith("jira") and "-" in u.source_key}
    )
    config = ReferenceConfig(jira_project_keys=projects)
    print(f"jira project keys known to the ETL: {', '.join(projects)}")
    runs = {
        "today (raw text, no name check)": (
            [normalise(u.raw_text) for u in units],
            ReferenceConfig(jira_project_keys=projects, name_min_confidence=0.0),
        ),
        "author text + name check": ([normalise(prepare(u).text) for u in units], config),
    }
    for name, (texts, cfg) in runs.items():
        tp, fp, fn, misses = score(units, texts, cfg)
        print(f"\n== {name} ==\n  {'type':<18} {'P':>5} {'R':>5} {'tp':>4} {'fp':>4} {'fn':>4}")
        for kind in TYPES:
            p = tp[kind] / (tp[kind] + fp[kind]) if tp[kind] + fp[kind] else float("nan")
            r = tp[kind] / (tp[kind] + fn[kind]) if tp[kind] + fn[kind] else float("nan")
            print(
                f"  {kind:<18} {p:5.2f} {r:5.2f} {tp[kind]:4d} {fp[kind]:4d} {fn[kind]:4d}"
                + (f"   fp e.g. {misses[kind][: args.show]}" if args.show and misses[kind] else "")
            )
        s_tp = sum(tp[k] for k in STRUCTURED)
        s_fp = sum(fp[k] for k in STRUCTURED)
        print(f"  structured ids together: P {s_tp / max(s_tp + s_fp, 1):.3f} ({s_tp} tp, {s_fp} fp)")
    print("\n  targets: person/organization P >= 0.90 and R >= 0.70; structured ids P >= 0.98")


if __name__ == "__main__":
    main()
