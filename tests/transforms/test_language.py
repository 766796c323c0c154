"""detect_language: en/de/zh routing, CJK pre-check, short-text default; checked on real corpus sentences."""

import csv
from pathlib import Path

import pytest

from tests.corpus import corpus_dir
from transforms.language import detect_language


@pytest.mark.parametrize(
    "text, expected",
    [
        ("Hello, could you please confirm the delivery date for the Acme order?", "en"),
        ("Können Sie bitte den Liefertermin für die Bestellung bestätigen? Vielen Dank!", "de"),
        ("Wir haben das Angebot von Acme Corp erhalten und prüfen es bis Freitag.", "de"),
        ("请查看附件Q3报价单_V2.pdf和合同草案.docx，相关工单ABC-123，链接：https://example.cn/a/b。", "zh"),
        ("请把Acme Corporation GmbH的报价发给我", "zh"),
        ("好的，谢谢", "zh"),
    ],
)
def test_given_text_when_detected_then_language(text, expected):
    assert detect_language(text) == expected


@pytest.mark.parametrize("text", ["OK", "Danke!", "Re: SALES-1423", "Meeting um 10 Uhr", "", "   ", "12345 67"])
def test_given_too_short_text_when_detected_then_default(text):
    assert detect_language(text) == "en"
    assert detect_language(text, default="de") == "de"


def test_given_locale_style_default_when_detected_then_primary_subtag_or_en():
    assert detect_language("ok", default="de-DE") == "de"
    assert detect_language("ok", default="zh_CN") == "zh"
    assert detect_language("ok", default="fr") == "en"


def test_given_latin_text_when_detected_then_never_zh():
    text = "Xiaomi Huawei Zhongguancun Beijing Shenzhen Guangzhou Hangzhou Tencent Alibaba"
    assert detect_language(text) in {"en", "de"}


def test_given_ids_and_urls_when_detected_then_they_do_not_count_as_letters():
    # Long but only ids: falls back to the default instead of guessing.
    text = "https://acme.atlassian.net/browse/SALES-1423 0065g00000XyZ12AAF anna.mueller@firma.de OPS-77"
    assert detect_language(text, default="de") == "de"


def test_given_real_english_email_sentences_when_detected_then_english():
    path = corpus_dir("intent", "parakweet_email_intent") / "Ask0729-fixed.txt"
    lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
    sentences = [line.split("\t", 1)[1] for line in lines if "\t" in line]
    long_enough = [s for s in sentences if sum(c.isalpha() for c in s) >= 40][:1000]
    assert len(long_enough) >= 500
    english = sum(detect_language(s) == "en" for s in long_enough)
    assert english / len(long_enough) >= 0.98


def test_given_real_jira_summaries_when_detected_then_mostly_english():
    path = corpus_dir("intent", "jira_resolution_labels") / "tidev_jira_resolution_labels.csv"
    with path.open(encoding="utf-8", newline="") as handle:
        summaries = [row["summary"] for _, row in zip(range(2000), csv.DictReader(handle))]
    judged = [s for s in summaries if sum(c.isalpha() for c in s) >= 30]
    english = sum(detect_language(s) == "en" for s in judged)
    assert english / len(judged) >= 0.98


# ---------------------------------------------------------------------------- per-segment language (issue 28 #3)

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "references"


def test_given_a_korean_page_with_latin_ui_labels_then_no_segment_is_english():
    # given a real Korean Confluence page (CC BY 4.0, tests/fixtures/references/SOURCES.md) whose lines mix Hangul
    # with Latin labels ("Workflow", "Approval Rule", "DB Access Request") and carry short Latin-only headings
    from transforms.language import segments

    text = (FIXTURES / "querypie_880181257_ko.txt").read_text(encoding="utf-8")
    # when segmented; then every segment is Korean, the Latin-only heading included, except the line that quotes an
    # English UI message at length (an English sentence is English wherever it stands)
    found = segments(text)
    quoted = [s for s in found if "Please assign privileges" in text[s.start : s.end]]
    assert [s.language for s in quoted] == ["en"]
    assert len(found) > 10 and {s.language for s in found if s not in quoted} == {"ko"}
    assert [s for s in found if text[s.start : s.end].startswith("Custom Data Source 접속하기")][0].language == "ko"


def test_given_mixed_text_then_each_segment_gets_its_own_language():
    from transforms.language import segments

    korean = "사용자 화면 상단 Workflow 메뉴로 이동합니다. 관리자의 승인을 받았다면 좌측 메뉴에서 확인할 수 있습니다."
    english = "Sarah Miller from Globex Corporation confirmed the rollout plan for the new approval workflow."
    russian = "Информируем вас о том, что документы направлены в адрес вашей организации для подписания."
    text = f"{korean}\n\n{english}\n{russian}\nOK"
    found = {text[s.start : s.end]: s.language for s in segments(text)}
    assert found[korean] == "ko"
    assert found[english] == "en"
    assert found[russian] == "ru"
    assert (
        found["OK"] == "en"
    )  # too short to tell: the language of the text's longer segments (by letters)... or default


def test_english_spans_cover_only_english_segments():
    from transforms.language import foreign_spans

    text = (
        "Hello Sarah, the deploy is done and the release notes are online.\n\n작업을 완료했다면 하단 버튼을 클릭합니다."
    )
    spans = foreign_spans(text)
    assert [text[a:b] for a, b in spans] == ["작업을 완료했다면 하단 버튼을 클릭합니다."]
