"""extract_references matching: offsets and first-occurrence order, Jira keys (project keys, base URLs, boundaries next
to CJK, punctuation and ASCII), attachment and file names (hash ids, name map, CJK brackets) and their regressions."""

import pytest

from ground.records import Attachment
from transforms.references import ReferenceConfig, extract_references
from transforms.text import normalise

RULES = ReferenceConfig(ner=False)


def ids(text, **kwargs):
    kwargs.setdefault("config", RULES)
    return [r.id for r in extract_references(text, **kwargs)]


# ------------------------------------------------------------------------------------------------ offsets, order


def test_given_text_references_then_offsets_point_at_the_surface_form():
    text = "相关工单ABC-123，见 https://example.com/x。金额$48,500"
    for ref in extract_references(text, config=ReferenceConfig(jira_project_keys=["ABC"], ner=False)):
        assert text[ref.start : ref.end] == ref.text
    assert ids(text, config=ReferenceConfig(jira_project_keys=["ABC"], ner=False)) == [
        "jira:issue:ABC-123",
        "url:https://example.com/x",
        "money:USD:48500",
    ]


def test_given_repeated_mentions_then_first_occurrence_kept_and_metadata_after_text():
    text = "SALES-2 then SALES-1 then SALES-2 again, see a.pdf"
    refs = extract_references(
        text,
        attachments=[Attachment(name="z.pdf"), Attachment(name="a.pdf")],
        config=ReferenceConfig(jira_project_keys=["SALES"], ner=False),
    )
    assert [r.id for r in refs] == [
        "jira:issue:SALES-2",
        "jira:issue:SALES-1",
        "attachment:name:a.pdf",
        "attachment:name:z.pdf",
    ]
    assert refs[2].start == text.index("a.pdf")
    assert refs[3].start is None and refs[3].end is None


def test_given_fullwidth_input_when_normalised_first_then_keys_found():
    raw = "相关工单ＡＢＣ－１２３，谢谢"
    config = ReferenceConfig(jira_project_keys=["ABC"], ner=False)
    assert ids(raw, config=config) == []
    assert ids(normalise(raw), config=config) == ["jira:issue:ABC-123"]


# ------------------------------------------------------------------------------------------------ jira


@pytest.mark.parametrize("token", ["UTF-8", "COVID-19", "ISO-9001", "MP-3"])
def test_given_jira_shaped_token_not_in_project_keys_then_rejected(token):
    assert ids(f"we use {token} here", config=ReferenceConfig(jira_project_keys=["SALES"], ner=False)) == []
    assert ids(f"we use {token} here") == []


def test_given_project_keys_in_lower_case_config_then_still_matched():
    config = ReferenceConfig(jira_project_keys=[" sales "], ner=False)
    assert ids("fix SALES-9", config=config) == ["jira:issue:SALES-9"]


def test_given_jira_base_urls_then_browse_links_elsewhere_are_plain_urls():
    config = ReferenceConfig(jira_base_urls=["https://jira.acme.example"], ner=False)
    assert ids("https://jira.acme.example/browse/OPS-1 https://elsewhere.example/browse/OPS-2", config=config) == [
        "jira:issue:OPS-1",
        "url:https://elsewhere.example/browse/OPS-2",
    ]


@pytest.mark.parametrize("text", ["相关工单ABC-123，", "工单ABC-123号", "(ABC-123)", "ABC-123.", "«ABC-123»"])
def test_given_key_next_to_cjk_or_punctuation_then_found(text):
    assert ids(text, config=ReferenceConfig(jira_project_keys=["ABC"], ner=False)) == ["jira:issue:ABC-123"]


@pytest.mark.parametrize("text", ["XABC-123", "ABC-123X", "ABC-123-4", "ABC-0123", "abc-123"])
def test_given_key_glued_to_ascii_then_not_found(text):
    assert ids(text, config=ReferenceConfig(jira_project_keys=["ABC"], ner=False)) == []


# ------------------------------------------------------------------------------------------------ names


def test_given_attachment_name_in_text_then_its_hash_id_with_offsets():
    text = "Please review the attached q3_QUOTE.xlsx today."
    refs = extract_references(text, attachments=[Attachment(name="Q3_quote.xlsx", sha256="AB" * 32)], config=RULES)
    assert [(r.id, r.text, r.start) for r in refs] == [
        ("attachment:sha256:" + "ab" * 32, "q3_QUOTE.xlsx", text.index("q3_QUOTE"))
    ]


def test_given_attachment_name_with_spaces_then_matched_whole():
    refs = ids("see Price list 2025.pdf", attachments=[Attachment(name="Price list 2025.pdf", sha256="cd" * 32)])
    assert refs == ["attachment:sha256:" + "cd" * 32]


def test_given_name_map_then_file_names_map_to_canonical_ids():
    config = ReferenceConfig(name_map={"Q3_quote.xlsx": "doc:quote-q3"}, ner=False)
    assert ids("see q3_quote.xlsx", config=config) == ["doc:quote-q3"]
    assert ids("see other.xlsx", config=config) == ["attachment:name:other.xlsx"]


def test_given_cjk_brackets_then_whole_name_taken():
    assert ids("请看《合同 草案 v2.docx》和「报价单.xlsx」", language="zh") == [
        "attachment:name:合同 草案 v2.docx",
        "attachment:name:报价单.xlsx",
    ]


# ------------------------------------------------------------------------------------------------ regressions


def test_given_quoted_path_then_file_name_is_the_base_name():
    text = 'Attached: src="/images/logo.png" alt="x"'
    refs = extract_references(text, config=RULES)
    assert [(r.id, text[r.start : r.end]) for r in refs] == [("attachment:name:logo.png", "logo.png")]


def test_given_config_copied_with_other_keys_then_new_keys_apply():
    config = ReferenceConfig(jira_project_keys=["ABC"], ner=False)
    assert ids("ABC-1 XYZ-2", config=config) == ["jira:issue:ABC-1"]
    other = config.model_copy(update={"jira_project_keys": ["XYZ"]})
    assert ids("ABC-1 XYZ-2", config=other) == ["jira:issue:XYZ-2"]


def test_given_chinese_text_without_spaces_then_file_rule_stays_linear():
    # 20k chars of Chinese with many dots: the old left-to-right lazy regex took ~1 s here.
    text = ("合同草案第" + "1." * 5 + "版说明") * 1000
    assert ids(text, language="zh") == []
