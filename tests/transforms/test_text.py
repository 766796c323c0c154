"""normalise / fold_for_fingerprint: the forms episode content and fingerprints are built from."""

from transforms.text import fold_for_fingerprint, normalise


def test_given_fullwidth_and_nbsp_when_normalised_then_nfkc_forms():
    assert normalise("ＡＢＣ－１２３\u00a0ok") == "ABC-123 ok"


def test_given_control_and_invisible_characters_when_normalised_then_removed():
    assert normalise("a\x00b\x07c\u200bd\ufeffe\u00adf") == "abcdef"


def test_given_runs_of_spaces_and_tabs_when_normalised_then_one_space():
    assert normalise("a  \t b\t\tc") == "a b c"


def test_given_many_blank_lines_when_normalised_then_at_most_one_blank_line():
    assert normalise("a\n\n\n\n\nb\n\nc\nd") == "a\n\nb\n\nc\nd"


def test_given_crlf_and_trailing_spaces_when_normalised_then_plain_newlines():
    assert normalise("line one   \r\nline two\t\r\n\r\n\r\n\r\nend  ") == "line one\nline two\n\nend"


def test_given_chinese_text_when_normalised_then_cjk_kept_and_fullwidth_punctuation_folded():
    assert normalise("相关工单ＡＢＣ-123，《合同草案.docx》") == "相关工单ABC-123,《合同草案.docx》"


def test_normalise_is_idempotent_and_total():
    sample = " Hi\u3000there\r\n\r\n\r\n\tＳＡＬＥＳ-1\x0c\u2028x "
    once = normalise(sample)
    assert normalise(once) == once
    assert normalise("") == ""
    assert normalise(" \n\t ") == ""


def test_given_cosmetic_variants_when_folded_then_same_fingerprint_text():
    a = "Hello  WORLD,\r\n\r\n\r\nsee ＳＡＬＥＳ-1423 Straße"
    b = "hello world, see SALES-1423 STRASSE"
    assert fold_for_fingerprint(a) == fold_for_fingerprint(b) == "hello world, see sales-1423 strasse"


def test_given_different_words_when_folded_then_different():
    assert fold_for_fingerprint("confirm the date") != fold_for_fingerprint("reject the date")


def test_undecodable_bytes_as_lone_surrogates_become_replacement_characters():
    # given text decoded with surrogateescape (raw 8-bit bytes), when normalised, then it is valid UTF-8 again
    assert normalise("Gr\udcfc\udcdfe  aus") == "Gr\ufffd\ufffde aus"
    normalise("x\udcfc").encode("utf-8")
