"""strip_reply golden cases (EN/DE/ZH) and the talon reply fixtures from the shared corpus."""

from pathlib import Path

import pytest

from connectors.email.mime_parts import body_text, find_body_part
from connectors.email.records import parse_message
from transforms.quotes import strip_reply

TALON = Path(__file__).resolve().parents[2] / ".." / "shared" / "corpus" / "email" / "talon" / "fixtures"

GOLDEN = [
    (
        "en_gmail_top_post",
        "Sounds good, ship it.\n\nOn Tue, Mar 14, 2023 at 9:30 AM Jane Doe <jane@example.com> wrote:\n> Can we release?\n> Thanks",
        "Sounds good, ship it.",
    ),
    (
        "en_wrapped_attribution",
        "Yes.\n\nOn Tue, Mar 14, 2023 at 9:30 AM Jane Doe\n<jane@example.com> wrote:\n\n> Can we release?",
        "Yes.",
    ),
    (
        "en_bottom_post_keeps_answer",
        "On 04/02/2012 06:26 PM, Megan wrote:\n> Are you coming?\n\nYes, at six.",
        "Yes, at six.",
    ),
    (
        "en_outlook_original_message",
        "Approved.\n\n-----Original Message-----\nFrom: Bob\nSent: Monday, March 13, 2023 5:00 PM\nTo: Alice\nSubject: PO\n\nPlease approve.",
        "Approved.",
    ),
    (
        "en_outlook_header_block",
        "Done.\n\n________________________________\nFrom: Bob <bob@example.com>\nSent: Monday, March 13, 2023 5:00 PM\n"
        "To: Alice\nSubject: task\n\nCan you do it?",
        "Done.",
    ),
    (
        "en_signature_delimiter",
        "See the attached plan.\n\n-- \nJohn Doe\nACME Corp\n+1 555 0100",
        "See the attached plan.",
    ),
    ("en_sent_from_iphone", "On my way.\n\nSent from my iPhone", "On my way."),
    ("en_closing_name_block", "The report is ready.\n\nBest regards,\nJane Doe\nFinance", "The report is ready."),
    (
        "de_am_schrieb",
        "Passt, danke!\n\nAm 14.03.2023 um 09:30 schrieb Jörg Müller <joerg@example.de>:\n> Passt der Termin?",
        "Passt, danke!",
    ),
    (
        "de_outlook_von_gesendet",
        "Erledigt.\n\nVon: Jörg Müller\nGesendet: Dienstag, 14. März 2023 09:30\nAn: Team\nBetreff: Rechnung\n\nBitte prüfen.",
        "Erledigt.",
    ),
    ("de_closing", "Die Rechnung ist bezahlt.\n\nMit freundlichen Grüßen\nJörg Müller", "Die Rechnung ist bezahlt."),
    ("de_von_meinem_iphone", "Bin unterwegs.\n\nVon meinem iPhone gesendet", "Bin unterwegs."),
    (
        "zh_zai_xiedao",
        "好的，明天发布。\n\n在 2023年3月14日 上午9:30，李明 <li.ming@example.cn> 写道：\n> 可以发布吗？",
        "好的，明天发布。",
    ),
    (
        "zh_outlook_fajianren",
        "已处理。\n\n发件人：李明\n发送时间：2023年3月14日 9:30\n收件人：团队\n主题：发票\n\n请检查发票。",
        "已处理。",
    ),
    ("zh_closing", "合同已经签好了。\n\n谢谢\n李明", "合同已经签好了。"),
    ("never_empty_all_quoted", "> only a quote\n> nothing else", "> only a quote\n> nothing else"),
    ("never_empty_only_signature", "Thanks,\nBob", "Thanks,\nBob"),
    ("keeps_plain_message", "Meeting moved to 3pm.\nRoom 4.", "Meeting moved to 3pm.\nRoom 4."),
    (
        "keeps_long_tail_after_dashes",
        "Agenda:\n--\n" + "\n".join(f"item {i}: something to discuss at length" for i in range(20)),
        "Agenda:\n--\n" + "\n".join(f"item {i}: something to discuss at length" for i in range(20)),
    ),
]


@pytest.mark.parametrize(("name", "text", "expected"), GOLDEN, ids=[g[0] for g in GOLDEN])
def test_strip_reply_golden(name, text, expected):
    assert strip_reply(text) == expected


def test_strip_reply_leaves_empty_input_alone():
    assert strip_reply("") == ""
    assert strip_reply("  \n") == "  \n"


def _talon_replies() -> list[Path]:
    folder = TALON / "standard_replies"
    return sorted(folder.glob("*.eml")) if folder.exists() else []


@pytest.mark.skipif(not _talon_replies(), reason="shared corpus not present")
@pytest.mark.parametrize("path", _talon_replies(), ids=lambda p: p.stem)
def test_talon_standard_replies_strip_to_hello(path):
    body, _ = body_text(find_body_part(parse_message(path.read_bytes())))
    assert strip_reply(body) == "Hello"


SIGNATURES = [
    ("long", "Sed non aliquam lacus."),
    ("short_url", "Please let me know what you see."),
    ("sparse", "Sed non aliquam lacus."),
    ("camel_case", "Really cool shirts!"),
]


@pytest.mark.skipif(not (TALON / "signature").exists(), reason="shared corpus not present")
@pytest.mark.parametrize(("name", "ending"), SIGNATURES, ids=[s[0] for s in SIGNATURES])
def test_talon_signature_fixtures_lose_their_signature(name, ending):
    body = (TALON / "signature" / "emails" / "stripped" / f"{name}_body").read_text()
    assert strip_reply(body).endswith(ending)
