"""Candidate CRM units from the shared corpus: the free-text fields of Salesforce records.

The corpus holds few CRM texts written by people: Case descriptions (coral-cloud), guest review comments
(coral-cloud Guest_Review__c) and experience descriptions (coral-cloud Experience__c, catalogue text). The
unit is the text field; the source key is the record's referenceId (sObject Tree files carry no Salesforce
Id), the thread the record itself (a Case, a review, an experience).

usage: python scripts/intent_units/extract_crm.py [CORPUS_DIR] > scratch.jsonl
"""

import json
import sys
from pathlib import Path

FILES = [
    ("salesforce/coral-cloud/data/data-Case.json", "Description", "Subject"),
    ("salesforce/coral-cloud/data/data-Guest_Review__c.json", "Comments__c", None),
    ("salesforce/coral-cloud/data/data-Experience__c.json", "Description__c", "Name"),
]


def units(corpus: Path):
    seen: set[str] = set()
    for rel, field, subject_field in FILES:
        for record in json.loads((corpus / rel).read_text(encoding="utf-8"))["records"]:
            text = record.get(field)
            if not text or not text.strip() or text in seen:
                continue
            seen.add(text)
            ref = record["attributes"]["referenceId"]
            yield {
                "uid": f"crm:{rel}#{ref}",
                "source_family": "crm",
                "corpus_file": rel,
                "source_key": ref,
                "thread": f"{rel}#{ref}",
                "subject": record.get(subject_field) if subject_field else None,
                "raw_text": text,
            }


if __name__ == "__main__":
    root = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).resolve().parents[2] / ".." / "shared" / "corpus"
    for unit in units(root):
        print(json.dumps(unit, ensure_ascii=False))
