"""Reference quality on labelled real units: per-type precision and recall against the units' `references`.

Run:  .venv/bin/python bench/references_quality.py [--labelled DIR ...] [--split train|eval|all]
Each unit is prepared as an episode is (transforms.author_text), references extracted with the default config, and
compared by normalised value per type (transforms/reference_eval.py, the scorer of `graphfeed references eval`).
These are the intent units' older `references` dicts (values only, no surface text); the labelled reference set
of whole episodes is data/references/labelled, measured by `graphfeed references eval`.
Baseline in the same run: today's extraction (whole raw text, no author-text preparation, no name check).
"""

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from transforms import reference_eval  # noqa: E402
from transforms.intent.units import labelled_files, load_units, prepare, unit_key  # noqa: E402
from transforms.reference_eval import Gold  # noqa: E402
from transforms.references import ReferenceConfig, extract_references_batch  # noqa: E402
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


def score(units, texts, config):
    refs = extract_references_batch(texts, [u.lang for u in units], config=config)
    return reference_eval.score(
        (
            (
                unit_key(unit),
                [Gold(kind, v) for kind, values in (unit.references or {}).items() for v in values],
                [r.id for r in found],
            )
            for unit, found in zip(units, refs)
        ),
        TYPES,
    )


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
        report = score(units, texts, cfg)
        print(f"\n== {name} ==")
        print(reference_eval.format_report(report, show=args.show))
        tp = {k: s.tp for k, s in report.kinds.items()}
        fp = {k: s.fp for k, s in report.kinds.items()}
        s_tp = sum(tp[k] for k in STRUCTURED)
        s_fp = sum(fp[k] for k in STRUCTURED)
        print(f"  structured ids together: P {s_tp / max(s_tp + s_fp, 1):.3f} ({s_tp} tp, {s_fp} fp)")
    print("\n  targets: person/organization P >= 0.90 and R >= 0.70; structured ids P >= 0.98")


if __name__ == "__main__":
    main()
