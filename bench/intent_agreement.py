"""How far a second human-style annotation agrees with the labels the model is trained and measured on: the ceiling
a classifier can be expected to reach on these units, beside what the shipped model reaches.

data/intent/agreement/second_pass.jsonl is a blind second pass over every labelled real unit (same guide,
../shared/notes/intent-labelling.md; the annotators saw the author text and subject, never the first labels or any
model output), with `sure: false` where they found the unit ambiguous under the guide.

usage: python bench/intent_agreement.py [--model]   (--model also scores the shipped model on the eval split)
"""

import argparse
import json
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from transforms.intent.metrics import format_report, report  # noqa: E402
from transforms.intent.units import labelled_files, load_units  # noqa: E402

SECOND = ROOT / "data" / "intent" / "agreement" / "second_pass.jsonl"


def second_pass(path: Path = SECOND) -> dict[str, tuple[str, bool]]:
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    return {r["uid"]: (r["label"], bool(r.get("sure", True))) for r in rows}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--model", action="store_true", help="also score the shipped model (trains it if missing)")
    args = parser.parse_args()
    units = [u for u in load_units(labelled_files(ROOT / "data" / "intent" / "labelled")) if u.uid]
    second = second_pass()
    labels = sorted({u.label for u in units})
    missing = [u.uid for u in units if u.uid not in second]
    print(f"units {len(units)}, second pass {len(second)}, not in the second pass {len(missing)}")
    for split in ("eval", "train"):
        part = [u for u in units if u.split == split and u.uid in second]
        gold, other = [u.label for u in part], [second[u.uid][0] for u in part]
        print(
            format_report(
                report(gold, other, [u.source_family for u in part], labels), f"\nsecond pass vs the labels, {split}: "
            )
        )
        sure = [u for u in part if second[u.uid][1]]
        agree_sure = sum(u.label == second[u.uid][0] for u in sure) / len(sure) if sure else 0.0
        unsure = [u for u in part if not second[u.uid][1]]
        agree_unsure = sum(u.label == second[u.uid][0] for u in unsure) / len(unsure) if unsure else 0.0
        print(
            f"  agreement where the second annotator was sure: {agree_sure:.3f} ({len(sure)}), "
            f"not sure: {agree_unsure:.3f} ({len(unsure)})"
        )
    pairs = Counter((u.label, second[u.uid][0]) for u in units if u.uid in second and u.label != second[u.uid][0])
    print("\nmost frequent disagreements (first label -> second):")
    for (a, b), n in pairs.most_common(8):
        print(f"  {a:>20} -> {b:<20} {n}")
    if args.model:
        import os
        import tempfile

        from transforms.intent import shipped
        from transforms.intent.units import prepare

        home = Path(os.environ.get("GRAPHFEED_MODEL_CACHE") or tempfile.mkdtemp(prefix="graphfeed-agreement-"))
        model = shipped.load(shipped.ensure(home))
        part = [u for u in units if u.split == "eval"]
        pred = [p for p, _ in model.predict_inputs([prepare(u) for u in part])]
        print(
            format_report(
                report([u.label for u in part], pred, [u.source_family for u in part], labels),
                "\nshipped model vs the labels, eval: ",
            )
        )


if __name__ == "__main__":
    main()
