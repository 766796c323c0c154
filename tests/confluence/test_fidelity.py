"""Nothing lost: the source's own text reaches the episode content, over EVERY Confluence file of the shared corpus.

Token recall (transforms/fidelity.py) must be >= 0.95 per record; each test lists every record below it. Sources of
truth: the rendered page.html of a Cloud page folder; the storage body's own text (text nodes, without macro
parameters, editor placeholders or the ADF twin of a fallback); the ADF document's own text; a saved REST
response's storage or view body.
"""

import json
import shutil
from pathlib import Path

import pytest
from bs4 import BeautifulSoup

from connectors.atlassian.adf import _walk
from connectors.confluence import ConfluenceExportReader
from connectors.confluence.rest_json import find_content
from connectors.confluence.storage import storage_to_text
from connectors.confluence.storage_xml import _local, parse_storage
from connectors.registry import traits_of
from ground.contract import split
from tests.corpus import corpus_dir
from transforms.build import record_text
from transforms.fidelity import missing_tokens, token_recall
from transforms.text import normalise

pytestmark = pytest.mark.slow
THRESHOLD = 0.95
NOT_SHOWN = {"parameter", "placeholder", "adf-attribute", "adf-content"}  # settings, hints, the ADF twin


def storage_own_text(markup: str) -> str:
    root, reason = parse_storage(markup)
    assert root is not None, reason
    parts: list[str] = []

    def walk(el, hidden: bool) -> None:
        prefix, name = _local(el.tag)
        hidden = hidden or (prefix == "ac" and name in NOT_SHOWN)
        if not hidden:
            parts.append(el.text or "")
        for child in el:
            walk(child, hidden)
            if not hidden:
                parts.append(child.tail or "")

    walk(root, False)
    return " ".join(parts)


def adf_own_text(doc: dict) -> str:
    return " ".join(str(n.get("text") or (n.get("attrs") or {}).get("text") or "") for n in _walk(doc, 0))


def view_text(html: str) -> str:
    return BeautifulSoup(html, "html.parser").get_text(" ")


def below(pairs: list[tuple[str, str, str]]) -> list[str]:
    """'<where>: <recall> missing [...]' for every (where, source text, content) under the threshold."""
    out = []
    for where, source, content in pairs:
        recall = token_recall(source, content)
        if recall < THRESHOLD:
            out.append(f"{where}: recall {recall:.3f}, missing {missing_tokens(source, content, 10)}")
    return out


def page_folders() -> list[Path]:
    return sorted(p for p in corpus_dir("confluence", "querypie_cloud").iterdir() if (p / "page.html").is_file())


def test_given_every_cloud_page_folder_then_the_rendered_page_text_is_in_its_episode():
    folders = page_folders()
    assert len(folders) >= 9
    pairs = []
    for folder in folders:
        records, failures = split(ConfluenceExportReader([folder]).read())
        assert failures == [] and len(records) == 1, (folder, [f.describe() for f in failures])
        source = view_text((folder / "page.html").read_text(encoding="utf-8"))
        pairs.append((folder.name, source, record_text(records[0], traits_of(records[0].source))))
    assert below(pairs) == []


def test_given_every_cloud_page_as_adf_only_then_the_adf_text_is_in_its_episode(tmp_path):
    pairs = []
    for folder in page_folders():
        copy = tmp_path / folder.name
        copy.mkdir()
        for name in ("page.v2.json", "page.adf", "ancestors.v1.json", "children.v2.json", "attachments.v1.json"):
            shutil.copy(folder / name, copy / name)
        (record,), failures = split(ConfluenceExportReader([copy]).read())
        assert failures == [] and record.fields["body_source"] == "page.v2.json body.atlas_doc_format"
        doc = json.loads((folder / "page.adf").read_text(encoding="utf-8"))
        pairs.append((folder.name, adf_own_text(doc), record_text(record, traits_of(record.source))))
    assert below(pairs) == []


def test_given_every_storage_body_of_the_corpus_then_its_text_survives_conversion():
    """Folders without a date make no record (a failure, never an invented time): their bodies are checked through
    the same converter the record uses."""
    root = corpus_dir("confluence")
    files = sorted(root.rglob("page.xhtml"))
    assert len(files) >= 40
    pairs = []
    for path in files:
        markup = path.read_text(encoding="utf-8")
        pairs.append((str(path.relative_to(root)), storage_own_text(markup), normalise(storage_to_text(markup).text)))
    assert below(pairs) == []


def test_given_every_saved_rest_response_then_each_record_carries_its_body():
    root = corpus_dir("confluence")
    files = sorted(p for p in root.rglob("*.json") if "querypie_cloud" not in p.parts)
    assert files
    pairs, records_seen = [], 0
    for path in files:
        bodies = {}
        for _, obj in find_content(json.loads(path.read_text(encoding="utf-8"))):
            body = obj.get("body") or {}
            storage = (body.get("storage") or {}).get("value")
            view = (body.get("view") or {}).get("value")
            if storage is not None:  # one id may be saved twice (two responses)
                bodies.setdefault(str(obj["id"]), []).append(storage_own_text(storage))
            elif view is not None:
                bodies.setdefault(str(obj["id"]), []).append(view_text(view))
        records, _ = split(ConfluenceExportReader([path]).read())
        for record in records:
            records_seen += 1
            assert record.source_key in bodies, f"{path.name} [{record.source_key}]: a record without a body"
            content = record_text(record, traits_of(record.source))
            source = max(bodies[record.source_key], key=lambda text: token_recall(text, content))
            pairs.append((f"{path.relative_to(root)} [{record.source_key}]", source, content))
    assert records_seen >= 7
    assert below(pairs) == []
