"""People and organisations only where they are (issue 28 patterns 1-3), with the real en_core_web_sm model:
no NER on Korean (or other non-Latin) segments, generic words and abbreviations are no organisations, app/sample/UI
names are no people, a middle initial keeps a name whole."""

from pathlib import Path

import pytest

from transforms.references import ReferenceConfig, extract_references

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "references"


DEFAULT = ReferenceConfig()


def names(text: str, config: ReferenceConfig = DEFAULT, language: str = "en") -> dict[str, str]:
    return {
        r.text: r.kind
        for r in extract_references(text, config=config, language=language)
        if r.kind in ("person", "organization")
    }


@pytest.mark.parametrize("fixture", ["querypie_880181257_ko.txt", "querypie_692355151_ko.txt"])
def test_given_a_korean_page_detected_as_english_then_latin_ui_labels_are_no_names(fixture):
    # given a Korean page that document-level routing calls English (its Latin labels outweigh the Hangul letters)
    from transforms.language import segments

    text = (FIXTURES / fixture).read_text(encoding="utf-8")
    korean = [s for s in segments(text) if s.language == "ko"]
    # when references are extracted with NER; then no UI label of a Korean segment became a person or an organisation
    refs = extract_references(text)
    in_korean = [
        r.text
        for r in refs
        if r.kind in ("person", "organization") and any(s.start <= (r.start or 0) < s.end for s in korean)
    ]
    assert len(korean) > 10 and in_korean == []


def test_given_an_english_paragraph_in_a_korean_page_then_its_names_are_still_found():
    korean = (FIXTURES / "querypie_880181257_ko.txt").read_text(encoding="utf-8")
    text = korean + "\nSarah Miller from Globex Corporation confirmed the rollout plan with the team yesterday.\n"
    found = names(text)
    assert found["Sarah Miller"] == "person" and found["Globex Corporation"] == "organization"
    assert not {"Workflow", "Approval Rule", "Access Request", "Custom Data"} & set(found)
