"""The bundled sample company (sample/): reproducible, inside its date range, and described truthfully by
sample/expected.json. Parsed with the standard library only, independently of connectors/email."""

import datetime as dt
import email
import hashlib
import io
import json
import mailbox
import re
import subprocess
import sys
import zipfile
from collections import Counter
from email import policy
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
SAMPLE = REPO / "sample"
EMAIL_DIR = SAMPLE / "exports" / "email"
EXPECTED = json.loads((SAMPLE / "expected.json").read_text(encoding="utf-8"))
SF_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZ012345"


def sf_checksum_ok(sf_id: str) -> bool:
    suffix = "".join(SF_ALPHABET[sum(1 << j for j, c in enumerate(sf_id[i * 5:i * 5 + 5]) if "A" <= c <= "Z")]
                     for i in range(3))
    return len(sf_id) == 18 and sf_id[15:] == suffix


def _mbox_entries(path: Path, location: dict) -> list[tuple[dict, bytes]]:
    box = mailbox.mbox(str(path), create=False)
    try:
        return [({**location, "index": i}, box.get_bytes(key)) for i, key in enumerate(box.keys())]
    finally:
        box.close()


@pytest.fixture(scope="module")
def entries(tmp_path_factory) -> list[tuple[dict, bytes]]:
    """Every message-shaped entry in the exports, with an Origin-like location (file, member, index)."""
    found = _mbox_entries(EMAIL_DIR / "northwind-sales.mbox", {"file": "exports/email/northwind-sales.mbox"})
    for path in sorted((EMAIL_DIR / "archive-2026-q2").iterdir()):
        found.append(({"file": path.relative_to(SAMPLE).as_posix()}, path.read_bytes()))
    unpacked = tmp_path_factory.mktemp("legacy")
    with zipfile.ZipFile(EMAIL_DIR / "legacy-export.zip") as archive:
        for name in archive.namelist():
            data = archive.read(name)
            location = {"file": "exports/email/legacy-export.zip", "member": name}
            if name.endswith(".mbox"):
                target = unpacked / Path(name).name
                target.write_bytes(data)
                found.extend(_mbox_entries(target, location))
            else:
                found.append((location, data))
    return found


def inspect(raw: bytes) -> dict:
    """What a careful stdlib reader sees: the message, or why it is unusable."""
    if not raw.strip():
        return {"problem": "empty"}
    msg = email.message_from_bytes(raw, policy=policy.default)
    defects = [d for part in msg.walk() for d in part.defects]
    message_id = msg["Message-ID"]
    date_header = msg["Date"]
    date = date_header.datetime.astimezone(dt.timezone.utc) if date_header and date_header.datetime else None
    result = {"msg": msg, "message_id": str(message_id) if message_id else None, "date": date}
    if defects:
        return {**result, "problem": "defects: " + ", ".join(type(d).__name__ for d in defects)}
    if not message_id:
        return {**result, "problem": "no Message-ID"}
    if date is None:
        return {**result, "problem": "no Date"}
    try:
        body = msg.get_body(("plain", "html"))
        result["text"] = body.get_content().replace("\r\n", "\n") if body else ""
    except LookupError as error:
        return {**result, "problem": f"charset: {error}"}
    return {**result, "problem": None}


@pytest.fixture(scope="module")
def inspected(entries):
    return [(location, raw, inspect(raw)) for location, raw in entries]


def _key(location: dict) -> tuple:
    return (location["file"], location.get("member"), location.get("index"))


# --- reproducibility -------------------------------------------------------------------------------------------

def test_given_the_generator_when_run_into_a_tmp_dir_then_it_writes_the_committed_bytes(tmp_path):
    subprocess.run([sys.executable, str(SAMPLE / "make_sample.py"), "--out", str(tmp_path)], check=True,
                   capture_output=True)
    generated = {p.relative_to(tmp_path).as_posix(): p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()}
    committed = {p.relative_to(SAMPLE).as_posix(): p.read_bytes()       # the mail; other sources have their own generators
                 for p in [SAMPLE / "expected.json", *(SAMPLE / "exports" / "email").rglob("*")] if p.is_file()}
    assert sorted(generated) == sorted(committed)
    changed = [name for name in generated if generated[name] != committed[name]]
    assert changed == [], f"regenerate with: python sample/make_sample.py  (differs: {changed})"


def test_generator_uses_only_the_standard_library():
    source = (SAMPLE / "make_sample.py").read_text(encoding="utf-8")
    imported = set(re.findall(r"^(?:from|import) ([a-z_]+)", source, flags=re.M))
    assert imported <= set(sys.stdlib_module_names), imported - set(sys.stdlib_module_names)


# --- dates -----------------------------------------------------------------------------------------------------

def test_every_dated_message_falls_in_the_declared_range(inspected):
    start = dt.date.fromisoformat(EXPECTED["date_range"]["start"])
    end = dt.date.fromisoformat(EXPECTED["date_range"]["end"])
    dated = [(loc, info["date"]) for loc, _, info in inspected if info.get("date")]
    assert len(dated) >= EXPECTED["totals"]["unique_messages"]
    outside = [(loc, date) for loc, date in dated if not start <= date.date() <= end]
    assert outside == []


def test_mail_is_spread_over_many_days_mostly_weekdays():
    days = [dt.date.fromisoformat(day) for day in EXPECTED["per_day"]]
    assert len(days) >= 30
    assert sum(day.weekday() < 5 for day in days) >= 0.9 * len(days)
    assert {day.month for day in days} == {3, 4, 5, 6}


# --- counts ----------------------------------------------------------------------------------------------------

def test_expected_totals_match_the_files(inspected):
    good = [info for _, _, info in inspected if info["problem"] is None]
    broken = [info for _, _, info in inspected if info["problem"] is not None]
    ids = Counter(info["message_id"] for info in good)
    totals = EXPECTED["totals"]
    assert len(inspected) == totals["entries"]
    assert len(broken) == totals["broken"]
    assert len(ids) == totals["unique_messages"]
    assert len(good) - len(ids) == totals["duplicates"]
    assert sum(1 for info in broken if info.get("date") is None) == totals["broken_undated"]
    assert 40 <= totals["entries"] <= 70


def test_expected_counts_per_file_match(inspected):
    seen: dict[str, Counter] = {}
    for location, _, info in inspected:
        key = location["file"] + ("!" + location["member"] if "member" in location else "")
        counter = seen.setdefault(key, Counter())
        counter["entries"] += 1
        if info["problem"] is not None:
            counter["broken"] += 1
    assert {k: v["entries"] for k, v in seen.items()} == {k: v["entries"] for k, v in EXPECTED["per_file"].items()}
    assert {k: v["broken"] for k, v in seen.items()} == {k: v["broken"] for k, v in EXPECTED["per_file"].items()}


def test_expected_counts_per_utc_day_match(inspected):
    per_day: dict[str, Counter] = {}
    seen_ids: set[str] = set()
    for _, _, info in inspected:
        if info.get("date") is None:
            continue
        day = per_day.setdefault(info["date"].date().isoformat(), Counter())
        if info["problem"] is not None:
            day["broken"] += 1
        elif info["message_id"] in seen_ids:
            day["duplicates"] += 1
        else:
            seen_ids.add(info["message_id"])
            day["messages"] += 1
    actual = {day: {k: c[k] for k in ("messages", "duplicates", "broken")} for day, c in per_day.items()}
    assert actual == EXPECTED["per_day"]


def test_broken_entries_are_the_declared_ones(inspected):
    broken = {_key(loc): info for loc, _, info in inspected if info["problem"] is not None}
    declared = {_key(item["location"]): item for item in EXPECTED["broken"]}
    assert set(broken) == set(declared)
    for key, item in declared.items():
        assert broken[key].get("message_id") == item["message_id"]
        assert item["outcomes"] and all(re.fullmatch(r"failure:[a-z_]+|record:degraded", o) for o in item["outcomes"])


def test_a_broken_message_inside_the_mbox_does_not_hide_the_ones_after_it(inspected):
    mbox = [(loc, info) for loc, _, info in inspected if loc["file"].endswith("northwind-sales.mbox")]
    broken_at = [loc["index"] for loc, info in mbox if info["problem"]]
    assert broken_at and max(broken_at) < len(mbox) - 10


# --- duplicates ------------------------------------------------------------------------------------------------

def test_duplicates_share_message_id_and_content_but_not_bytes(inspected):
    by_location = {_key(loc): (raw, info) for loc, raw, info in inspected}
    assert EXPECTED["duplicates"], "the sample must carry duplicates across archives"
    homes = set()
    for group in EXPECTED["duplicates"]:
        copies = [by_location[_key(loc)] for loc in group["copies"]]
        assert {info["message_id"] for _, info in copies} == {group["message_id"]}
        assert len({info["text"] for _, info in copies}) == 1
        assert len({str(info["msg"]["Subject"]) for _, info in copies}) == 1
        assert len({raw for raw, _ in copies}) == len(copies), "copies must differ byte-wise"
        homes.update(loc["file"] for loc in group["copies"][1:])
    assert any("archive-2026-q2" in home for home in homes)
    assert any(home.endswith("legacy-export.zip") for home in homes)


def test_every_listed_location_holds_that_message(inspected):
    by_location = {_key(loc): info for loc, _, info in inspected}
    for message in EXPECTED["messages"]:
        for location in message["locations"]:
            info = by_location[_key(location)]
            assert info["message_id"] == message["message_id"]
            assert info["date"].isoformat() == message["date_utc"]


# --- threads, references, attachments --------------------------------------------------------------------------

def test_replies_point_at_known_parents_and_come_after_them():
    by_id = {m["message_id"]: m for m in EXPECTED["messages"]}
    replies = [m for m in EXPECTED["messages"] if m["in_reply_to"]]
    assert len(replies) >= 15
    for reply in replies:
        parent = by_id[reply["in_reply_to"]]
        assert reply["references"][-1] == parent["message_id"]
        assert parent["date_utc"] < reply["date_utc"]
        assert reply["thread_root"] == parent["thread_root"]
    forwards = [m for m in EXPECTED["messages"] if m["kind"] == "forward"]
    assert len(forwards) == 1 and forwards[0]["subject"].startswith("Fwd: ")


def test_message_ids_follow_the_sample_convention():
    pattern = re.compile(r"<2026\d{4}\.\d{4}\.[a-z]+@(northwind|acme|datenwerk|huaxin)\.example>")
    people = [m for m in EXPECTED["messages"] if not m["system_sender"]]
    assert all(pattern.fullmatch(m["message_id"]) for m in people)
    assert "<20260302.0915.dana@acme.example>" in {m["message_id"] for m in people}


def test_references_in_the_mail_are_valid():
    messages = EXPECTED["messages"]
    keys = {key for m in messages for key in m["jira_keys"]}
    assert {"NW-101", "ACME-7", "ACME-12", "ACME-18"} <= keys
    assert {key.split("-")[0] for key in keys} == {"NW", "ACME"}
    urls = {url for m in messages for url in m["urls"]}
    assert "https://northwind.atlassian.net/wiki/spaces/ACME/pages/131073/Project+Charter" in urls
    sf_ids = {sf for m in messages for sf in m["salesforce_ids"]}
    assert sf_ids == {EXPECTED["salesforce"]["opportunity"]}
    assert all(sf_checksum_ok(sf) for sf in [EXPECTED["salesforce"]["opportunity"], EXPECTED["salesforce"]["account"],
                                             *EXPECTED["salesforce"]["contacts"].values()])
    assert not sf_checksum_ok(EXPECTED["salesforce"]["opportunity"][:15] + "AAA")


def test_attachments_are_real_files_with_the_declared_hashes(inspected):
    declared = {a["name"]: a for m in EXPECTED["messages"] for a in m["attachments"]}
    assert any(n.endswith(".pdf") for n in declared) and any(n.endswith(".docx") for n in declared)
    found = {}
    for _, _, info in inspected:
        if info["problem"] is None:
            for part in info["msg"].iter_attachments():
                found[part.get_filename()] = part.get_content()
    assert set(found) == set(declared)
    for name, data in found.items():
        assert hashlib.sha256(data).hexdigest() == declared[name]["sha256"] and len(data) == declared[name]["size"]
        if name.endswith(".pdf"):
            assert data.startswith(b"%PDF-") and data.rstrip().endswith(b"%%EOF")
        else:
            assert b"MASTER SUBSCRIPTION AGREEMENT" in zipfile.ZipFile(io.BytesIO(data)).read("word/document.xml")


def test_languages_are_declared_and_present(inspected):
    by_id = {info["message_id"]: info for _, _, info in inspected if info["problem"] is None}
    langs = Counter(m["language"] for m in EXPECTED["messages"])
    assert langs["de"] >= 3 and 1 <= langs["zh"] <= 2
    for message in EXPECTED["messages"]:
        text = by_id[message["message_id"]]["text"]
        if message["language"] == "zh":
            assert len(re.findall(r"[\u4e00-\u9fff]", text)) > 50
        if message["language"] == "de":
            assert re.search(r"\b(und|wir|für|der|die)\b", text)


# --- the story -------------------------------------------------------------------------------------------------

def _text_of(inspected, message_id: str) -> str:
    return next(info["text"] for _, _, info in inspected if info.get("message_id") == message_id and "text" in info)


def _own_text(text: str) -> str:
    """The part above the first quote or forward marker."""
    return re.split(r"\n(?:On .+ wrote:|_{10,}|-{5,} Forwarded message)", text, maxsplit=1)[0]


def test_the_story_facts_are_stated_in_the_mail(inspected):
    facts = EXPECTED["facts"]
    contact = facts["acme_contact"]
    assert contact == {**contact, "before": "Dana Whitfield", "after": "Priya Raman", "changed_at": "2026-06-08"}
    first, _, last = contact["stated_in"]
    assert "I will be Acme's point of contact" in _own_text(_text_of(inspected, first))
    june = _own_text(_text_of(inspected, last))
    assert "8 June 2026" in june and "Acme's contact" in june and "Dana Whitfield" in june

    budget = facts["budget"]
    assert (budget["before"], budget["after"]) == (120000, 95000)
    assert "USD 120,000" in _own_text(_text_of(inspected, budget["stated_in"][0]))
    assert "from USD 120,000 to USD 95,000" in _own_text(_text_of(inspected, budget["stated_in"][1]))

    assert "confirmed the new go-live date: 2026-07-15" in _text_of(inspected, facts["go_live"]["stated_in"][0])
    assert "rejected the on-prem deployment requirement (ACME-7)" in _text_of(
        inspected, facts["requirement_rejected"]["stated_in"][0])
    escalation = _text_of(inspected, facts["risk_escalated"]["stated_in"][0])
    assert "escalating the data-migration delay" in escalation
    signed, closed = facts["deal_closed"]["stated_in"]
    assert "signed the contract" in _text_of(inspected, signed)
    assert facts["deal_closed"]["opportunity_id"] in _text_of(inspected, closed)


def test_priya_writes_only_from_her_first_day_as_contact():
    """Priya is mentioned earlier (as data owner), but her own mail starts on 2026-06-08, when she takes over."""
    for message in EXPECTED["messages"]:
        if message["from"] == "priya.raman@acme.example":
            assert message["day"] >= "2026-06-08"


def test_cast_in_the_mail_is_documented():
    doc = (REPO / "docs" / "sample-company.md").read_text(encoding="utf-8")
    addresses = {a for m in EXPECTED["messages"] for a in [m["from"], *m["to"], *m["cc"]]}
    assert addresses - set(re.findall(r"[\w.+-]+@[\w.-]+\w", doc)) == set()
    for fact in ("2026-06-08", "2026-07-15", "120,000", "95,000", EXPECTED["salesforce"]["opportunity"]):
        assert fact in doc
