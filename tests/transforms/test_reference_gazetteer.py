"""Parties learned from the export (transforms/reference_gazetteer.py): people from headers and user objects,
organisations from mail domains and Salesforce accounts, used by the extractor and by build_episodes."""

import datetime as dt

import pytest

from connectors.registry import source_traits
from ground.records import Actor, SourceRecord
from transforms.build import EpisodeSettings, build_episodes
from transforms.reference_gazetteer import KnownParties, domain_organisation, person_name
from transforms.references import ReferenceConfig, extract_references

TRAITS = source_traits()

WHEN = dt.datetime(2018, 10, 2, tzinfo=dt.UTC)


def record(key: str, body: str, actor: Actor, source: str = "jira", kind: str = "comment", title: str = ""):
    return SourceRecord(
        source=source, kind=kind, source_key=key, title=title, body=body, actor=actor, occurred_at=WHEN, updated_at=WHEN
    )


JAN = Actor(id="jvennemann@axway.com", name="Jan Vennemann", email="jvennemann@axway.com")
HANS = Actor(id="hans.knoechel@gmail.com", name="Hans Knöchel", email="hans.knoechel@gmail.com")


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("Jan Vennemann", "Jan Vennemann"),
        ("Jan Vennemann (Unlicensed)", "Jan Vennemann"),
        ("Example User (Unlicensed)", None),  # generic words: a placeholder account
        ("ABC", None),  # one word
        ("Apache Jenkins Server", None),  # a bot (stop names)
        ("Some Person", None),  # generic words
        ("jvennemann@axway.com", None),
        (None, None),
    ],
)
def test_display_names_that_are_person_names(raw, expected):
    assert person_name(raw) == expected


@pytest.mark.parametrize(
    ("address", "expected"),
    [
        ("jvennemann@axway.com", "Axway"),
        ("dev@maven.apache.org", "Apache"),
        ("someone@bbc.co.uk", "Bbc"),
        ("hans.knoechel@gmail.com", None),  # free mail
        ("x@mail.example.com", None),  # reserved
        ("x@graphfeed.invalid", None),
        ("no-address", None),
    ],
)
def test_mail_domains_that_name_an_organisation(address, expected):
    assert domain_organisation(address) == expected


def test_known_people_and_organisations_are_found_where_ner_is_not_sure():
    # given the parties a Jira export's comment authors carry
    known = KnownParties()
    known.learn(traits=TRAITS, records=[record("C-1", "first", JAN), record("C-2", "second", HANS)])
    config = known.config(ReferenceConfig())
    text = "Thanks [~jvennemann], as Hans Knöchel said: we will check it with Axway tomorrow."
    # when extracted without and with the learned parties
    before = {r.id for r in extract_references(text)}
    after = {(r.id, r.text, r.confidence) for r in extract_references(text, config=config)}
    # then the handle is the known person, the full name is found, the domain's org is confirmed
    assert "person:jan vennemann" not in before
    assert ("person:jan vennemann", "jvennemann", 1.0) in after
    assert ("person:hans knöchel", "Hans Knöchel", 1.0) in after
    assert ("org:axway", "Axway", 1.0) in after


def test_salesforce_accounts_and_contacts_are_known_parties():
    system = Actor(type="system", id="salesforce", name="Salesforce")
    known = KnownParties()
    known.learn(
        traits=TRAITS,
        records=[
            record("001A", "", system, source="salesforce", kind="account", title="Rick Thomas Company"),
            record("001B", "", system, source="salesforce", kind="account", title="Test 1234"),
            record("003A", "", system, source="salesforce", kind="contact", title="Janet Yellen"),
        ],
    )
    assert known.names == {"Rick Thomas Company": "org:rick thomas company", "Janet Yellen": "person:janet yellen"}
    refs = extract_references("Met Janet Yellen from Rick Thomas Company.", config=known.config(ReferenceConfig()))
    assert [(r.kind, r.id) for r in refs] == [
        ("person", "person:janet yellen"),
        ("organization", "org:rick thomas company"),
    ]


def test_the_users_name_map_wins_and_an_unchanged_gazetteer_keeps_its_config():
    known = KnownParties()
    known.learn(traits=TRAITS, records=[record("C-1", "x", JAN)])
    base = ReferenceConfig(name_map={"Jan Vennemann": "person:jan@vennemann"})
    first = known.config(base)
    assert first.name_map["Jan Vennemann"] == "person:jan@vennemann" and first.name_map["@jvennemann"]
    assert known.config(base) is first


class Intent:
    def predict(self, texts, languages=None, threshold=0.5, **inputs):
        return [("inform", 0.9) for _ in texts]


def test_build_episodes_learns_the_parties_of_earlier_batches():
    # given a comment by Jan Vennemann, then (next batch) a comment that addresses him by handle
    records = [record("C-1", "I pushed the fix.", JAN), record("C-2", "[~jvennemann] verified, thanks!", HANS)]
    settings = EpisodeSettings(batch_size=1, references=ReferenceConfig(ner=False))
    # when the episodes are built in one run
    episodes = list(build_episodes(records, Intent(), settings))
    # then the handle became the known person
    assert "person:jan vennemann" in episodes[1].references


def test_a_handle_is_read_only_from_mentions_and_an_os_domain_is_no_organisation():
    # given a sender "bob@..." named Bob Marley and a sender at linux.org (seen in the ASF mail corpus as "Linux")
    bob = Actor(id="bob@bob-marley.example.net", name="Bob Marley", email="bob@marley.io")
    tux = Actor(id="tux@linux.org", name="Tux Penguin", email="tux@linux.org")
    known = KnownParties()
    known.learn(
        traits=TRAITS,
        records=[record("M-1", "x", bob, source="email", kind="email"), record("M-2", "y", tux, source="email")],
    )
    config = known.config(ReferenceConfig())
    # when a greeting names "Bob" and the text names Linux
    refs = {r.id for r in extract_references("Hello Bob,\n\nthe build works on Linux now. @bob thanks", config=config)}
    # then "Bob" is not the handle's person, the mention is, and Linux is no organisation
    assert "person:bob marley" in refs  # from "@bob"
    assert [r.text for r in extract_references("Hello Bob,", config=config) if r.id == "person:bob marley"] == []
    assert "org:linux" not in refs and "Linux" not in known.names


def test_a_jira_issue_url_in_one_mail_makes_its_project_keys_count_in_later_mail():
    # given a mail linking an issue of a Jira this export has no project list for, then (next batch) a mail naming
    # another issue of that project and a key-shaped token of no known project
    ada = Actor(id="ada@example.org", name="Ada Lovelace", email="ada@example.org")
    first = record("<m1@x>", "Vote: https://issues.apache.org/jira/browse/MNG-6296 is fixed.", ada, source="email")
    second = record("<m2@x>", "MNG-6300 too, and the file is UTF-8 encoded.", ada, source="email")
    settings = EpisodeSettings(batch_size=1, references=ReferenceConfig(ner=False))
    # when the episodes are built in one run
    episodes = list(build_episodes([first, second], Intent(), settings))
    # then the later mail's key of the learned project is a reference, the other token is not
    assert "jira:issue:MNG-6300" in episodes[1].references
    assert not [r for r in episodes[1].references if r.startswith("jira:issue:UTF")]
