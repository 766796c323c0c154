"""The labelled reference set's loader: a good line loads; a bad one is an error naming file and line."""

import hashlib
import json

import pytest

from transforms.reference_labels import ReferenceLabelError, load_labelled, split_of

CONTENT = "Maven 3.5.2 fails for John Q. Smith; see https://example.com/a by Jan 31."


def line(**changes) -> str:
    group = "MNG-1"
    row = {
        "uid": "jira:jira/x.json#MNG-1",
        "source": "jira",
        "corpus_file": "jira/x.json",
        "source_key": "MNG-1",
        "group": group,
        "split": split_of(group),
        "record_time": "2018-01-10T10:00:00Z",
        "lang": "en",
        "content_sha256": hashlib.sha256(CONTENT.encode()).hexdigest(),
        "content": CONTENT,
        "references": [
            {"kind": "version", "text": "Maven 3.5.2", "value": "3.5.2", "product": "Maven"},
            {"kind": "person", "text": "John Q. Smith", "value": "John Q. Smith"},
            {"kind": "date", "text": "Jan 31", "value": "2018-01-31"},
        ],
    }
    row.update(changes)
    return json.dumps(row)


def test_given_a_well_formed_line_when_loading_then_the_episode_and_its_references_load(tmp_path):
    (tmp_path / "jira.jsonl").write_text(line() + "\n\n")
    [episode] = load_labelled(tmp_path)
    assert episode.uid == "jira:jira/x.json#MNG-1"
    assert [(r.kind, r.value, r.product) for r in episode.references] == [
        ("version", "3.5.2", "Maven"),
        ("person", "John Q. Smith", None),
        ("date", "2018-01-31", None),
    ]


@pytest.mark.parametrize(
    "changes, message",
    [
        ({"references": [{"kind": "person", "text": "Jane Roe", "value": "Jane Roe"}]}, "does not occur in content"),
        ({"references": [{"kind": "date", "text": "Jan 31", "value": "Jan 31"}]}, "not YYYY-MM-DD"),
        ({"references": [{"kind": "nickname", "text": "Jan", "value": "Jan"}]}, "references.0.kind"),
        ({"split": "dev" if split_of("MNG-1") == "eval" else "eval"}, "frozen rule"),
        ({"content_sha256": "0" * 64}, "content_sha256"),
        ({"uid": "jira:other.json#MNG-1"}, "source:corpus_file#source_key"),
        ({"record_time": "2018-01-10T10:00:00"}, "time zone"),
    ],
)
def test_given_a_bad_line_when_loading_then_the_error_names_file_line_and_fault(tmp_path, changes, message):
    path = tmp_path / "jira.jsonl"
    path.write_text(line() + "\n" + line(**changes) + "\n")
    with pytest.raises(ReferenceLabelError, match=rf"jira.jsonl:2: .*{message}"):
        load_labelled(path)


def test_given_a_uid_in_two_files_when_loading_then_the_second_is_an_error_naming_the_first(tmp_path):
    (tmp_path / "a.jsonl").write_text(line() + "\n")
    (tmp_path / "b.jsonl").write_text("\n" + line() + "\n")
    with pytest.raises(ReferenceLabelError, match=r"b.jsonl:2: .*labelled twice \(first at .*a.jsonl:1\)"):
        load_labelled(tmp_path)


def test_given_text_that_is_not_json_or_a_missing_folder_when_loading_then_the_error_names_it(tmp_path):
    (tmp_path / "c.jsonl").write_text("{not json\n")
    with pytest.raises(ReferenceLabelError, match=r"c.jsonl:1: not JSON"):
        load_labelled(tmp_path / "c.jsonl")
    with pytest.raises(ReferenceLabelError, match=r"nowhere: no such labelled file or folder"):
        load_labelled(tmp_path / "nowhere")
