"""Structured values, asked the way `graphfeed search` asks (SyncGraphWriter.search, as cmd_search calls it), on
FalkorDB and Neo4j: every "now" and "as of" question of the second scenario (tests/fixtures/second_company: a
contact-role flip in a single-currency org without any currency field, a multi-currency org, Jira assignee changes) and of the bundled
sample's Salesforce exports gets the right value, interval and source episode."""

import datetime as dt
import re
from pathlib import Path

from pydantic import BaseModel

from connectors.jira import JiraExportReader
from connectors.registry import episode_facts, traits_of
from connectors.salesforce import SalesforceExportReader
from connectors.salesforce.facts import salesforce_facts
from graph.sync_facade import SyncGraphReader, SyncGraphWriter
from ground.contract import split
from transforms.build import EpisodeSettings, make_episode, record_text

UTC = dt.UTC
REPO = Path(__file__).resolve().parents[2]
SCENARIO = REPO / "tests" / "fixtures" / "second_company" / "salesforce"
JIRA = REPO / "tests" / "fixtures" / "second_company" / "jira"
SAMPLE = sorted((REPO / "sample" / "exports" / "salesforce").glob("*/*.ZIP"))


def at(text: str) -> dt.datetime:
    return dt.datetime.fromisoformat(text).replace(tzinfo=UTC)


class Question(BaseModel):
    ask: str
    as_of: dt.datetime | None = None
    relation: str
    subject: str
    value: str  # the fact's object (person, stage, amount as rendered)
    valid_at: dt.datetime
    invalid_at: dt.datetime | None = None
    episode: str  # source key of the episode the fact comes from


def extractor(episode, domain_orgs):
    return (
        salesforce_facts(episode, domain_orgs)
        if episode.source == "salesforce"
        else episode_facts(episode, domain_orgs)
    )


def episodes(paths: list[Path], group_id: str, currency: str | None = None, failures_expected: int = 0):
    out, failed = [], 0
    for path in paths:
        records, failures = split(SalesforceExportReader([path], currency=currency).read())
        failed += len(failures)
        out.append(
            [
                make_episode(
                    r, record_text(r, traits_of(r.source)), "en", "other", 1.0, [], EpisodeSettings(group_id=group_id)
                )
                for r in records
            ]
        )
    assert failed == failures_expected
    return out


def wrong_answers(writer: SyncGraphWriter, group_id: str, questions: list[Question]) -> list[str]:
    wrong = []
    reader = SyncGraphReader(writer)
    for q in questions:
        hits = reader.search(q.ask, group_id=group_id, as_of=q.as_of, limit=10)
        hit = next((h for h in hits if h.name == q.relation and h.subject == q.subject), None)
        got = None if hit is None else (hit.object, hit.valid_at, hit.invalid_at, [e.name for e in hit.episodes][:1])
        want = (q.value, q.valid_at, q.invalid_at, [q.episode])
        if got != want:
            wrong.append(f"{q.ask!r} as of {q.as_of}: got {got}, want {want}")
    return wrong


FJORD = "Fjordline Logistics"
TELEMATICS = "Fjordline - Fleet telematics"
LARS_ROLE, INGRID_ROLE = "OpportunityContactRole:00K2o00000FjRLrEAN", "OpportunityContactRole:00K2o00000FjRInEAN"
TELEMATICS_KEY = "Opportunity:0062o00000FjTelAAF"
FLIP, PROPOSAL = at("2026-05-12T09:30"), at("2026-04-20T14:00")


def fjordline_questions(amounts: tuple[str, str]) -> list[Question]:
    contact = f"Who is the primary contact of {FJORD}?"
    amount = f"{TELEMATICS} has the amount"
    stage = f"{TELEMATICS} is in stage"
    return [
        Question(
            ask=contact,
            relation="HAS_CONTACT",
            subject=FJORD,
            value="Ingrid Solberg",
            valid_at=FLIP,
            episode=INGRID_ROLE,
        ),
        Question(
            ask=contact,
            as_of=at("2026-04-01"),
            relation="HAS_CONTACT",
            subject=FJORD,
            value="Lars Haugen",
            valid_at=at("2026-02-10T12:05"),
            invalid_at=FLIP,
            episode=LARS_ROLE,
        ),
        Question(
            ask=contact,
            as_of=FLIP - dt.timedelta(seconds=1),
            relation="HAS_CONTACT",
            subject=FJORD,
            value="Lars Haugen",
            valid_at=at("2026-02-10T12:05"),
            invalid_at=FLIP,
            episode=LARS_ROLE,
        ),
        Question(
            ask=amount,
            relation="HAS_AMOUNT",
            subject=TELEMATICS,
            value=amounts[1],
            valid_at=PROPOSAL,
            episode=TELEMATICS_KEY,
        ),
        Question(
            ask=amount,
            as_of=at("2026-03-01"),
            relation="HAS_AMOUNT",
            subject=TELEMATICS,
            value=amounts[0],
            valid_at=at("2026-02-10T12:00"),
            invalid_at=PROPOSAL,
            episode=TELEMATICS_KEY,
        ),
        Question(
            ask=stage,
            relation="IN_STAGE",
            subject=TELEMATICS,
            value="Proposal/Price Quote",
            valid_at=PROPOSAL,
            episode=TELEMATICS_KEY,
        ),
        Question(
            ask=stage,
            as_of=at("2026-03-01"),
            relation="IN_STAGE",
            subject=TELEMATICS,
            value="Prospecting",
            valid_at=at("2026-02-10T12:00"),
            invalid_at=PROPOSAL,
            episode=TELEMATICS_KEY,
        ),
    ]


# What the classifier would read into FJL-7's comments, fixed here so the test does not train a model.
COMMENT_INTENTS = {
    "FJL-7#50001": ("status_update", "en"),
    "FJL-7#50002": ("status_update", "de"),
    "FJL-7#50003": ("request_info", "en"),
    "FJL-7#50004": ("status_update", "en"),
}


def jira_episodes(group_id: str):
    records, failures = split(JiraExportReader([JIRA]).read())
    assert not failures
    settings = EpisodeSettings(group_id=group_id)
    return [
        make_episode(r, record_text(r, traits_of(r.source)), lang, intent, 0.9, [], settings)
        for r in records
        for intent, lang in [COMMENT_INTENTS.get(r.source_key, ("other", "en"))]
    ]


ISSUE = "FJL-7"
ASSIGNEE = f"Who is {ISSUE} assigned to?"
REASSIGNED, HANDED_OVER = at("2026-05-13T10:00"), at("2026-06-02T15:30")
JIRA_QUESTIONS = [
    Question(
        ask=ASSIGNEE, relation="ASSIGNED_TO", subject=ISSUE, value="Maja Berg", valid_at=HANDED_OVER, episode=ISSUE
    ),
    Question(
        ask=ASSIGNEE,
        as_of=at("2026-05-01"),
        relation="ASSIGNED_TO",
        subject=ISSUE,
        value="Lars Haugen",
        valid_at=at("2026-04-22T08:00"),
        invalid_at=REASSIGNED,
        episode=ISSUE,
    ),
    Question(
        ask=ASSIGNEE,
        as_of=at("2026-05-20"),
        relation="ASSIGNED_TO",
        subject=ISSUE,
        value="Ingrid Solberg",
        valid_at=REASSIGNED,
        invalid_at=HANDED_OVER,
        episode=ISSUE,
    ),
]

LAB, TOKYO = "Kestrel - Lab sensors", "Kestrel - Tokyo office"
LAB_KEY, TOKYO_KEY = "Opportunity:0062o00000KeLabAAF", "Opportunity:0062o00000KeTokAAF"
KESTREL = [
    Question(
        ask=f"{LAB} has the amount",
        relation="HAS_AMOUNT",
        subject=LAB,
        value="EUR 135,500",
        valid_at=at("2026-03-18T11:00"),
        episode=LAB_KEY,
    ),
    Question(
        ask=f"{LAB} has the amount",
        as_of=at("2026-03-01"),
        relation="HAS_AMOUNT",
        subject=LAB,
        value="EUR 120,000",
        valid_at=at("2026-02-02T10:00"),
        invalid_at=at("2026-03-18T11:00"),
        episode=LAB_KEY,
    ),
    Question(
        ask=f"{TOKYO} has the amount",
        relation="HAS_AMOUNT",
        subject=TOKYO,
        value="JPY 15,000,000",
        valid_at=at("2026-03-01T01:00"),
        episode=TOKYO_KEY,
    ),
    Question(
        ask=f"{LAB} is in stage",
        as_of=at("2026-03-01"),
        relation="IN_STAGE",
        subject=LAB,
        value="Qualification",
        valid_at=at("2026-02-02T10:00"),
        invalid_at=at("2026-03-18T11:00"),
        episode=LAB_KEY,
    ),
]


def test_second_company_now_and_as_of_answers(backend_config, group_id):
    with SyncGraphWriter(backend_config(), extractor=extractor) as writer:
        reader = SyncGraphReader(writer)
        groups = {"plain": (group_id, None), "nok": (group_id + "_nok", "NOK"), "kestrel": (group_id + "_k", "USD")}
        for batch in episodes([SCENARIO / "fjordline"], groups["plain"][0]):
            writer.write_batch(batch)
        writer.write_batch(jira_episodes(groups["plain"][0]))
        for batch in episodes([SCENARIO / "fjordline"], groups["nok"][0], currency="NOK"):
            writer.write_batch(batch)
        for batch in episodes([SCENARIO / "kestrel"], groups["kestrel"][0], currency="USD"):
            writer.write_batch(batch)
        wrong = wrong_answers(writer, groups["plain"][0], fjordline_questions(("48,000", "52,000")))
        wrong += wrong_answers(writer, groups["nok"][0], fjordline_questions(("NOK 48,000", "NOK 52,000")))
        wrong += wrong_answers(writer, groups["kestrel"][0], KESTREL)
        wrong += wrong_answers(writer, groups["plain"][0], JIRA_QUESTIONS)
        # no unit the data does not carry: the currency-less org's amount facts name none
        plain = reader.search(f"{TELEMATICS} has the amount", group_id=groups["plain"][0], limit=20)
        units = [h.fact for h in plain if h.name == "HAS_AMOUNT" and re.search(r"\b[A-Z]{3} \d", h.fact)]
    assert wrong == []
    assert units == []


ACME, OPP = "Acme Corp", "Acme Corp - Data Platform 2026"
OPP_KEY = "Opportunity:0068d00000NwAcmAAF"
DANA_ROLE, PRIYA_ROLE = "OpportunityContactRole:00K8d00000RlDwhEAF", "OpportunityContactRole:00K8d00000RlPrrEAF"


def test_bundled_sample_salesforce_now_and_as_of_answers(backend_config, group_id):
    """Without GRAPHFEED_DOMAIN_ORGS the sample's mail names the organisation by its domain (acme.example) and the CRM
    account by its name: the node carries the account's name whatever came first (a bare domain was the name before)."""
    contact, stage = f"Who is the primary contact of {ACME}?", f"{OPP} is in stage"
    org = ACME
    flip = at("2026-06-08T14:10")
    questions = [
        Question(
            ask=contact, relation="HAS_CONTACT", subject=org, value="Priya Raman", valid_at=flip, episode=PRIYA_ROLE
        ),
        Question(
            ask=contact,
            as_of=at("2026-05-01"),
            relation="HAS_CONTACT",
            subject=org,
            value="Dana Whitfield",
            valid_at=at("2026-03-02T16:05"),
            invalid_at=flip,
            episode=DANA_ROLE,
        ),
        Question(
            ask=stage,
            relation="IN_STAGE",
            subject=OPP,
            value="Closed Won",
            valid_at=at("2026-06-24T19:00"),
            episode=OPP_KEY,
        ),
        Question(
            ask=stage,
            as_of=at("2026-04-01"),
            relation="IN_STAGE",
            subject=OPP,
            value="Negotiation/Review",
            valid_at=at("2026-03-16T20:45"),
            invalid_at=at("2026-06-24T19:00"),
            episode=OPP_KEY,
        ),
    ]
    with SyncGraphWriter(backend_config(), extractor=extractor) as writer:
        for batch in episodes(SAMPLE, group_id, failures_expected=2):  # the sample's two broken rows
            writer.write_batch(batch)
        wrong = wrong_answers(writer, group_id, questions)
    assert wrong == []
