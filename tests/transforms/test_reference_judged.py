"""Held-out precision from pooled hand judgments (transforms/reference_judged.py): found references are right, wrong
or unjudged, judged ones no longer found are lost (right) or fixed (wrong), and a bad line is named."""

import json

import pytest

from transforms.reference_judged import JudgedReference, JudgedReferenceError, judge, load_judged


def judged(uid: str, ref_id: str, right: bool, kind: str = "organization") -> JudgedReference:
    return JudgedReference(
        uid=uid,
        split="test",
        corpus_file="intent/x.txt",
        title=False,
        record_date=None,
        text="...",
        kind=kind,
        id=ref_id,
        surface=ref_id,
        right=right,
    )


def test_given_judgments_when_todays_references_are_scored_then_each_lands_in_one_column():
    verdicts = [
        judged("a", "org:acme", True),
        judged("a", "org:video player", False),
        judged("b", "org:globex", True),
        judged("b", "org:engineering vp", False),
    ]
    # today: acme still found, the wrong video player still found, globex lost, engineering vp fixed, one new org
    found = {
        "a": [("organization", "org:acme"), ("organization", "org:video player")],
        "b": [("organization", "org:x")],
    }
    (row,) = judge(verdicts, found)
    assert (row.right, row.wrong, row.unjudged, row.lost_right, row.lost_wrong) == (1, 1, 1, 1, 1)
    assert row.precision == 0.5
    assert row.precision_ci is not None and row.precision_ci[0] < 0.5 < row.precision_ci[1]


def test_given_a_line_that_is_no_judgment_when_loaded_then_the_error_names_file_and_line(tmp_path):
    good = judged("a", "org:acme", True).model_dump(mode="json")
    path = tmp_path / "judged.jsonl"
    path.write_text(json.dumps(good) + "\n" + json.dumps({**good, "right": "maybe"}) + "\n", encoding="utf-8")
    with pytest.raises(JudgedReferenceError, match=r"judged\.jsonl:2"):
        load_judged(path)
    path.write_text(json.dumps(good) + "\n", encoding="utf-8")
    assert load_judged(tmp_path) == [judged("a", "org:acme", True)]
