"""Write data/intent/labelled/jira_archive.jsonl: Jira units of issues from the public tidev/jira-archive that are not in
the shared corpus, labelled by hand (scripts/intent_units/archive_labels.tsv: uid, label, sure).

The issues are kept in data/intent/sources/tidev_jira_archive.jsonl (one issue per line, only the fields a unit reads,
copied verbatim, with the archive path and commit); the units, their context and the split are derived here with the
same code as the corpus units (extract_jira.walk), so the labelled file is rebuilt byte for byte from the two.
Only issues listed in the corpus' tidev_jira_resolution_labels.csv are used: the 300 issues left out of that table
belong to an evaluation set kept outside this repository and are never fetched or labelled.

Every unit is split "eval": trained on (628 units, by the usual thread rule), they did not raise the shipped model's
eval macro-F1 (0.683 without, 0.675 with, on the same 1,016 eval units; bench/intent_bench.py, 2026-12-05), so they
serve as a larger held-out set of the Jira text the model reads worst.

usage: python scripts/intent_units/build_archive.py   (tests/transforms/test_intent_archive_units.py checks the file is current)
"""

import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(REPO))

import extract_jira  # noqa: E402

from transforms.intent.features import detect_language  # noqa: E402

SOURCES = REPO / "data" / "intent" / "sources" / "tidev_jira_archive.jsonl"
LABELS = HERE / "archive_labels.tsv"
OUT = REPO / "data" / "intent" / "labelled" / "jira_archive.jsonl"
ORIGIN = "tidev/jira-archive"


def read_labels(path: Path = LABELS) -> dict[str, str]:
    labels: dict[str, str] = {}
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip() or line.startswith("#"):
            continue
        uid, label, *_sure = line.split("\t")
        if uid in labels:
            raise ValueError(f"{path.name}:{n}: {uid} labelled twice")
        labels[uid] = label.strip()
    return labels


def issues(path: Path = SOURCES) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def rows(sources: Path = SOURCES, labels_path: Path = LABELS) -> list[dict]:
    labels = read_labels(labels_path)
    out = []
    for issue in issues(sources):
        origin = f"{ORIGIN}@{issue['commit']}:{issue['path']}"
        found: list = []
        extract_jira.walk(issue, origin, found)
        for family, _file, key, thread, summary, text, context in found:
            uid = f"{family}#{key}"
            if uid not in labels:
                raise ValueError(f"{labels_path.name}: no label for {uid} ({origin})")
            out.append(
                {
                    "uid": f"{family}:{ORIGIN}/{issue['path']}#{key}",
                    "source_family": family,
                    "corpus_file": None,
                    "origin": origin,
                    "source_key": key,
                    "thread": thread,
                    "subject": summary,
                    "raw_text": text,
                    "label": labels.pop(uid),
                    "lang": detect_language(text),
                    "written": False,
                    "split": "eval",
                    "references": None,
                    "context": list(context),
                }
            )
    if labels:
        raise ValueError(f"{labels_path.name}: labels for units no saved issue holds: {sorted(labels)[:5]}")
    return out


def render(units: list[dict]) -> str:
    lines = [json.dumps(u, ensure_ascii=False).replace("\u2028", "\\u2028").replace("\u2029", "\\u2029") for u in units]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    text = render(rows())
    OUT.write_text(text, encoding="utf-8")
    print(f"{OUT.relative_to(REPO)}: {text.count(chr(10))} units")
