"""Write data/intent/labelled/{mail,crm}.jsonl from the corpus units and the hand-assigned labels.

The labels were assigned by a person reading each unit (scripts/intent_units/*_labels.tsv, keyed by uid);
this script only joins them with the unit text re-extracted from the corpus, adds the split (by thread, the
shared rule of the labelling schema) and the hand-labelled references (*_references.jsonl). Written CRM
units (no corpus origin) live in scripts/intent_units/crm_written.jsonl with their label and references.

usage: python scripts/intent_units/build_labelled.py [CORPUS_DIR]
"""

import hashlib
import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
sys.path.insert(0, str(HERE))

import extract_crm  # noqa: E402
import extract_mail  # noqa: E402

FIELDS = (
    "uid",
    "source_family",
    "corpus_file",
    "source_key",
    "thread",
    "subject",
    "raw_text",
    "label",
    "lang",
    "written",
    "split",
    "references",
)


def split_of(thread: str) -> str:
    return "eval" if int(hashlib.sha256(thread.encode()).hexdigest(), 16) % 10 < 4 else "train"


def read_labels(path: Path) -> dict[str, str]:
    labels = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            uid, label = line.rsplit("\t", 1)
            if uid in labels:
                raise ValueError(f"{path.name}: {uid} labelled twice")
            labels[uid] = label
    return labels


def read_references(path: Path) -> dict[str, dict]:
    if not path.exists():
        return {}
    return {
        row["uid"]: row["references"] for row in map(json.loads, path.read_text(encoding="utf-8").splitlines()) if row
    }


def lang_of(unit: dict) -> str:
    return "ro" if unit["corpus_file"].endswith("mbox.rlug") else unit.get("lang", "en")


def labelled(units, labels, references, taxonomy):
    out, seen = [], set()
    for unit in units:
        if unit["uid"] not in labels:
            continue
        label = labels[unit["uid"]]
        if label not in taxonomy:
            raise ValueError(f"{unit['uid']}: unknown label {label!r}")
        row = {
            **unit,
            "label": label,
            "lang": lang_of(unit),
            "written": False,
            "split": split_of(unit["thread"]),
            "references": references.get(unit["uid"]),
        }
        out.append({k: row[k] for k in FIELDS})
        seen.add(unit["uid"])
    missing = set(labels) - seen
    if missing:
        raise ValueError(f"labels for units not found in the corpus: {sorted(missing)[:5]}")
    return out


def main(corpus: Path) -> None:
    taxonomy = {entry["name"] for entry in json.loads((REPO / "data/intent/taxonomy.json").read_text())["labels"]}
    target = REPO / "data/intent/labelled"
    target.mkdir(parents=True, exist_ok=True)
    mail = labelled(
        extract_mail.units(corpus),
        read_labels(HERE / "mail_labels.tsv"),
        read_references(HERE / "mail_references.jsonl"),
        taxonomy,
    )
    crm = labelled(
        extract_crm.units(corpus),
        read_labels(HERE / "crm_labels.tsv"),
        read_references(HERE / "crm_references.jsonl"),
        taxonomy,
    )
    for row in map(json.loads, (HERE / "crm_written.jsonl").read_text(encoding="utf-8").splitlines()):
        if row["label"] not in taxonomy:
            raise ValueError(f"{row['uid']}: unknown label {row['label']!r}")
        row = {"source_family": "crm", "corpus_file": None, "subject": None, "lang": "en", **row, "written": True}
        row["split"] = split_of(row["thread"])
        crm.append({k: row.get(k) for k in FIELDS})
    for name, rows in (("mail", mail), ("crm", crm)):
        with open(target / f"{name}.jsonl", "w", encoding="utf-8") as f:
            for row in rows:
                f.write(json.dumps(row, ensure_ascii=False) + "\n")
        print(f"{name}: {len(rows)} units")


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else REPO / ".." / "shared" / "corpus")
