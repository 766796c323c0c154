"""Fidelity over the whole Salesforce corpus: every free-text field (Description, Body, TextBody, CommentBody,
Comments, Notes, custom ``*Description*__c`` ...) of every row in ../shared/corpus/salesforce reaches the content of
its record's episode (a CaseComment: its case's) with token recall >= 0.95; records below are listed.

The source side reads the files with the standard library (csv, json), not with graphfeed's reader.
"""

import csv
import io
import json
from pathlib import Path

import pytest

from connectors.registry import traits_of
from connectors.salesforce import SalesforceExportReader
from connectors.salesforce.directory import sid
from ground.contract import split
from ground.records import Deletion
from tests.fidelity import below, corpus_dir, report, token_recall
from transforms.build import record_text

pytestmark = pytest.mark.slow

TEXT_WORDS = ("description", "body", "comment", "notes", "message")
SKIP = ("htmlbody",)  # rendered from the HTML: its markup is not words; TextBody carries the text


def is_text_field(name: str) -> bool:
    low = name.lower().replace("_", "")
    return any(word in low for word in TEXT_WORDS) and low not in SKIP and not low.endswith("id")


def _rows_json(data):
    if isinstance(data, dict):
        if "Id" in data or "id" in data and isinstance(data.get("attributes"), dict):
            yield data
        for value in data.values():
            yield from _rows_json(value)
    elif isinstance(data, list):
        for value in data:
            yield from _rows_json(value)


def rows(path: Path) -> list[dict]:
    raw = path.read_bytes()
    if path.suffix.lower() == ".json":
        try:
            return list(_rows_json(json.loads(raw)))
        except ValueError:
            return []
    if path.suffix.lower() == ".csv":
        return list(csv.DictReader(io.StringIO(raw.decode("utf-8-sig", errors="replace"))))
    return []


def source_texts(path: Path) -> dict[str, list[str]]:
    """record id -> its free texts; a CaseComment's text belongs to its parent case."""
    out: dict[str, list[str]] = {}
    for row in rows(path):
        if not isinstance(row, dict):
            continue
        rid = sid(row.get("Id") or row.get("id"))
        texts = [str(v) for k, v in row.items() if isinstance(v, str) and v.strip() and is_text_field(k)]
        if "CommentBody" in row and row.get("ParentId"):
            rid = sid(row["ParentId"])
        if rid and texts:
            out.setdefault(rid, []).extend(texts)
    return out


def measure(root: Path) -> tuple[list[tuple[str, float, str, str]], list[str]]:
    scores, lost = [], []
    for path in sorted(p for p in root.rglob("*") if p.suffix.lower() in (".csv", ".json")):
        wanted = source_texts(path)
        if not wanted:
            continue
        items = list(SalesforceExportReader([path]).read())
        records, failures = split(items)
        deleted = {item.source_key.split(":", 1)[-1] for item in items if isinstance(item, Deletion)}
        content: dict[str, str] = {}
        for record in records:
            content[record.fields["id"]] = (
                content.get(record.fields["id"], "") + "\n" + record_text(record, traits_of(record.source))
            )
        failed = {f.source_key.split(":", 1)[-1] for f in failures if f.source_key}
        whole_file_failed = any(f.source_key is None for f in failures) and not records
        name = str(path.relative_to(root))
        for rid, texts in wanted.items():
            source = "\n".join(texts)
            if rid in content:
                scores.append((f"{name}::{rid}", token_recall(source, content[rid]), source, content[rid]))
            elif rid not in failed and rid not in deleted and not whole_file_failed:  # a deletion has no episode
                lost.append(f"{name}::{rid}: no episode and no failure")
    return scores, lost


def test_every_free_text_field_of_the_salesforce_corpus_reaches_its_episode():
    scores, lost = measure(corpus_dir("salesforce"))
    report("salesforce", scores, lost)
    assert len(scores) > 20
    assert below(scores) == [] and lost == []


def test_given_a_custom_object_with_many_columns_and_a_long_note_then_the_episode_keeps_every_value(tmp_path):
    columns = [f"Field{i}__c" for i in range(40)]
    note = "The customer asked for a quarterly review of the rollout plan and a named contact. " * 4
    head = "Id,Name,SystemModstamp," + ",".join(columns) + ",Notes__c,Blob__c\n"
    row = "a0X000000000001AAA,Rollout,2026-04-01T09:00:00.000Z," + ",".join(f"value{i}" for i in range(40))
    (tmp_path / "Rollout__c.csv").write_text(head + row + f',"{note}",{"QUJD" * 80}\n')
    (record,), _ = split(SalesforceExportReader([tmp_path]).read())
    content = record_text(record, traits_of(record.source))
    assert all(f": value{i}\n" in content + "\n" or f": value{i}" in content for i in range(40))
    assert token_recall(note, content) == 1.0 and "QUJDQUJD" not in content


def test_given_a_contact_with_a_custom_notes_field_then_the_note_reaches_the_episode(tmp_path):
    note = "Prefers calls before ten; decides on the depot budget together with the COO."
    (tmp_path / "Contact.csv").write_text(
        "Id,Name,Email,SystemModstamp,Notes__c\n"
        f'003000000000001AAA,Lars Haugen,lars@fjordline.example,2026-04-01T09:00:00.000Z,"{note}"\n'
    )
    (record,), _ = split(SalesforceExportReader([tmp_path]).read())
    assert token_recall(note, record_text(record, traits_of(record.source))) == 1.0
