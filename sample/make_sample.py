"""Write the bundled sample company's mail exports and sample/expected.json.

Deterministic and standard library only: the same Python gives the same bytes, so the committed files can be
checked against a fresh run (tests/sample/test_sample_data.py). Every timestamp, MIME boundary, zip entry date and
attachment byte is derived from the data below, never from the clock or a random source.

    python sample/make_sample.py               # rewrite the committed files next to this script
    python sample/make_sample.py --out DIR     # write the same tree into DIR (DIR/exports/..., DIR/expected.json)

The story and the cast are described in docs/sample-company.md; sample/README.md lists what each file tests.
"""

import argparse
import datetime as dt
import hashlib
import html
import io
import json
import re
import textwrap
import zipfile
from dataclasses import dataclass, field
from email import policy
from email.message import EmailMessage
from email.headerregistry import Address
from email.utils import format_datetime
from pathlib import Path

DATE_START = dt.date(2026, 3, 2)
DATE_END = dt.date(2026, 6, 30)          # inclusive, UTC

MBOX = "exports/email/northwind-sales.mbox"
ARCHIVE_DIR = "exports/email/archive-2026-q2"
LEGACY_ZIP = "exports/email/legacy-export.zip"
LEGACY_MBOX_MEMBER = "legacy/acme-2026-03.mbox"
LEGACY_EML_DIR = "legacy/eml"

CONFLUENCE = "https://northwind.atlassian.net/wiki/spaces/ACME/pages"
CHARTER_URL = f"{CONFLUENCE}/131073/Project+Charter"
MIGRATION_PLAN_URL = f"{CONFLUENCE}/131074/Data+Migration+Plan"
RUNBOOK_URL = f"{CONFLUENCE}/131075/Go-Live+Runbook"
JIRA_BROWSE = "https://northwind.atlassian.net/browse"

# --------------------------------------------------------------------------------------------------------------
# Salesforce ids: 15-char id + 3-char case checksum (per 5-char chunk, bit j set when char j is upper case).

_SF_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZ012345"


def sf_id18(id15: str) -> str:
    """Extend a 15-char Salesforce id with its checksum suffix (what the API returns as the 18-char id)."""
    assert len(id15) == 15 and id15.isalnum(), id15
    suffix = ""
    for chunk in range(3):
        bits = sum(1 << j for j, c in enumerate(id15[chunk * 5:chunk * 5 + 5]) if "A" <= c <= "Z")
        suffix += _SF_ALPHABET[bits]
    return id15 + suffix


SF_OPPORTUNITY = sf_id18("0068d00000NwAcm")     # Acme Corp - Data Platform 2026
SF_ACCOUNT = sf_id18("0018d00000AcmeC")         # Acme Corp
SF_CONTACT_DANA = sf_id18("0038d00000DwHtF")
SF_CONTACT_PRIYA = sf_id18("0038d00000PrRmN")
SF_CONTACT_OLIVIA = sf_id18("0038d00000OgGrT")

# --------------------------------------------------------------------------------------------------------------
# Time zones without zoneinfo (CI images may lack tzdata): the 2026 DST rules of the four offices.

_DST_US = (dt.datetime(2026, 3, 8, 2, 0), dt.datetime(2026, 11, 1, 2, 0))
_DST_EU = (dt.datetime(2026, 3, 29, 2, 0), dt.datetime(2026, 10, 25, 3, 0))


def utc_offset(zone: str, local: dt.datetime) -> dt.timedelta:
    """Offset of a wall-clock time in one of the sample's zones (US Eastern/Central, Berlin, Shanghai)."""
    if zone == "us_east":
        hours = -4 if _DST_US[0] <= local < _DST_US[1] else -5
    elif zone == "us_central":
        hours = -5 if _DST_US[0] <= local < _DST_US[1] else -6
    elif zone == "berlin":
        hours = 2 if _DST_EU[0] <= local < _DST_EU[1] else 1
    elif zone == "shanghai":
        hours = 8
    elif zone == "utc":
        hours = 0
    else:
        raise ValueError(zone)
    return dt.timedelta(hours=hours)


# --------------------------------------------------------------------------------------------------------------
# The cast. `client` decides quoting style, signature delimiter and X-Mailer, as real clients differ.


@dataclass(frozen=True)
class Person:
    key: str            # local part before the dot, used in Message-IDs
    name: str
    email: str
    role: str
    org: str
    zone: str
    client: str         # gmail | outlook | outlook_de | thunderbird_de | foxmail | jira
    signature: str


def _sig(*lines: str) -> str:
    return "\n".join(lines)


PEOPLE = {p.key: p for p in [
    Person("sarah", "Sarah Okafor", "sarah.okafor@northwind.example", "Account Executive", "Northwind Analytics",
           "us_east", "gmail", _sig("Sarah Okafor", "Account Executive | Northwind Analytics",
                                    "+1 617 555 0142 | northwind.example")),
    Person("michael", "Michael Chen", "michael.chen@northwind.example", "Solutions Architect, delivery lead for Acme",
           "Northwind Analytics", "us_east", "gmail",
           _sig("Michael Chen", "Solutions Architect | Northwind Analytics", "+1 617 555 0199")),
    Person("laura", "Laura Fischer", "laura.fischer@northwind.example", "Delivery Manager EMEA (Berlin)",
           "Northwind Analytics", "berlin", "thunderbird_de",
           _sig("Laura Fischer", "Delivery Manager EMEA | Northwind Analytics GmbH", "Rosenthaler Str. 40, 10178 Berlin")),
    Person("tom", "Tom Brennan", "tom.brennan@northwind.example", "VP Sales", "Northwind Analytics", "us_east",
           "gmail", _sig("Tom Brennan", "VP Sales | Northwind Analytics")),
    Person("grace", "Grace Holloway", "grace.holloway@northwind.example", "Chief Operating Officer",
           "Northwind Analytics", "us_east", "gmail", _sig("Grace Holloway", "COO | Northwind Analytics")),
    Person("ben", "Ben Carter", "ben.carter@northwind.example", "Legal Counsel", "Northwind Analytics", "us_east",
           "gmail", _sig("Ben Carter", "Legal Counsel | Northwind Analytics", "+1 617 555 0107")),
    Person("dana", "Dana Whitfield", "dana.whitfield@acme.example", "Director of IT Operations", "Acme Corp",
           "us_central", "outlook", _sig("Dana Whitfield", "Director of IT Operations | Acme Corp", "+1 312 555 0187")),
    Person("priya", "Priya Raman", "priya.raman@acme.example", "Head of Data Platforms", "Acme Corp",
           "us_central", "outlook", _sig("Priya Raman", "Head of Data Platforms | Acme Corp", "+1 312 555 0121")),
    Person("mark", "Mark Sullivan", "mark.sullivan@acme.example", "Chief Financial Officer", "Acme Corp",
           "us_central", "outlook", _sig("Mark Sullivan", "CFO | Acme Corp")),
    Person("kevin", "Kevin Doyle", "kevin.doyle@acme.example", "IT Security Lead", "Acme Corp", "us_central",
           "outlook", _sig("Kevin Doyle", "IT Security Lead | Acme Corp")),
    Person("olivia", "Olivia Grant", "olivia.grant@acme.example", "Procurement Manager", "Acme Corp", "us_central",
           "outlook", _sig("Olivia Grant", "Procurement Manager | Acme Corp", "+1 312 555 0163")),
    Person("markus", "Markus Vogel", "markus.vogel@datenwerk.example", "Senior Consultant", "Datenwerk GmbH",
           "berlin", "outlook_de", _sig("Markus Vogel", "Senior Consultant | Datenwerk GmbH",
                                        "Friedrichstraße 68, 10117 Berlin")),
    Person("anna", "Anna Schmidt", "anna.schmidt@datenwerk.example", "Projektleiterin (project manager)",
           "Datenwerk GmbH", "berlin", "outlook_de", _sig("Anna Schmidt", "Projektleitung | Datenwerk GmbH")),
    Person("wang", "王伟", "wang.wei@huaxin.example", "Migration lead", "Huaxin Data Services",
           "shanghai", "foxmail", _sig("王伟", "迁移项目负责人 | 华信数据服务有限公司")),
    Person("li", "李娜", "li.na@huaxin.example", "Migration engineer", "Huaxin Data Services", "shanghai",
           "foxmail", _sig("李娜", "数据迁移工程师 | 华信数据服务有限公司")),
    Person("jira", "Jira", "jira@northwind.atlassian.net", "Jira Cloud notifications (system sender)",
           "Northwind Analytics", "utc", "jira", ""),
]}

_MAILERS = {
    "gmail": None,
    "outlook": "Microsoft Outlook 16.0",
    "outlook_de": "Microsoft Outlook 16.0",
    "thunderbird_de": "Mozilla Thunderbird 128.9.0",
    "foxmail": "Foxmail 7.2.25.228[cn]",
    "jira": None,
}
_REPLY_PREFIX = {"outlook_de": "AW: ", "foxmail": "回复: "}
_WEEKDAYS_ZH = ["周一", "周二", "周三", "周四", "周五", "周六", "周日"]


def T(text: str) -> str:
    """Body text written indented in this file, returned as plain paragraphs."""
    return textwrap.dedent(text).strip("\n")


# --------------------------------------------------------------------------------------------------------------
# Attachments: small but well-formed files, built from text so their bytes are reproducible.


def tiny_pdf(lines: list[str]) -> bytes:
    """A one-page PDF with the given text lines and a correct xref table."""
    def esc(s: str) -> str:
        return s.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")
    text_ops = "BT /F1 11 Tf 14 TL 56 780 Td " + " ".join(f"({esc(line)}) '" for line in lines) + " ET"
    stream = text_ops.encode("latin-1")
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 842] /Resources << /Font << /F1 5 0 R >> >> "
        b"/Contents 4 0 R >>",
        b"<< /Length " + str(len(stream)).encode() + b" >>\nstream\n" + stream + b"\nendstream",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    out = io.BytesIO()
    out.write(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(out.tell())
        out.write(f"{number} 0 obj\n".encode() + body + b"\nendobj\n")
    xref = out.tell()
    out.write(f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode())
    for offset in offsets:
        out.write(f"{offset:010d} 00000 n \n".encode())
    out.write(f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n".encode())
    return out.getvalue()


def stored_zip(members: list[tuple[str, bytes]]) -> bytes:
    """A zip without compression or clock: stored entries dated 2026-07-01, so bytes never depend on zlib or time."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", compression=zipfile.ZIP_STORED) as archive:
        for name, data in members:
            info = zipfile.ZipInfo(name, date_time=(2026, 7, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_STORED
            info.create_system = 3
            info.external_attr = 0o100644 << 16
            archive.writestr(info, data)
    return out.getvalue()


def tiny_docx(paragraphs: list[str]) -> bytes:
    """A minimal but valid WordprocessingML document."""
    body = "".join(f"<w:p><w:r><w:t xml:space=\"preserve\">{html.escape(p)}</w:t></w:r></w:p>" for p in paragraphs)
    return stored_zip([
        ("[Content_Types].xml",
         b'<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
         b'<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
         b'<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>'
         b'<Default Extension="xml" ContentType="application/xml"/>'
         b'<Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.'
         b'wordprocessingml.document.main+xml"/></Types>'),
        ("_rels/.rels",
         b'<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
         b'<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
         b'<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/'
         b'officeDocument" Target="word/document.xml"/></Relationships>'),
        ("word/document.xml",
         ('<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
          '<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>'
          + body + "</w:body></w:document>").encode("utf-8")),
    ])


DOCX_TYPE = "application/vnd.openxmlformats-officedocument.wordprocessingml.document"

ATTACHMENTS: dict[str, tuple[str, bytes]] = {
    "Northwind-Quote-Q-2026-0142.pdf": ("application/pdf", tiny_pdf([
        "Northwind Analytics - Quote Q-2026-0142", "Customer: Acme Corp", "Date: 2026-03-04",
        "Data platform subscription, year 1: USD 84,000", "Implementation services: USD 34,500",
        "Total: USD 118,500", f"Salesforce opportunity: {SF_OPPORTUNITY}", "Valid until 2026-04-30"])),
    "Northwind-Quote-Q-2026-0142-R2.pdf": ("application/pdf", tiny_pdf([
        "Northwind Analytics - Quote Q-2026-0142 revision 2", "Customer: Acme Corp", "Date: 2026-05-07",
        "Data platform subscription, year 1 (one sandbox): USD 72,000", "Implementation services: USD 22,800",
        "Total: USD 94,800", f"Salesforce opportunity: {SF_OPPORTUNITY}", "Valid until 2026-06-30"])),
    "Datenwerk-Angebot-2026-031.pdf": ("application/pdf", tiny_pdf([
        "Datenwerk GmbH - Angebot 2026-031", "Kunde: Northwind Analytics GmbH",
        "SAP-Connector fuer Acme (NW-101): 15 Personentage a EUR 1.150", "Summe: EUR 17.250 zzgl. USt."])),
    "Northwind-Acme-MSA-2026.docx": (DOCX_TYPE, tiny_docx([
        "MASTER SUBSCRIPTION AGREEMENT", "between Northwind Analytics, Inc. and Acme Corp",
        "Order Form 1: Northwind Data Platform, dedicated hosted tenant (US-Central), customer-managed keys.",
        "Fees, year 1: USD 94,800. Term: 12 months from 2026-07-01.",
        "Target go-live: 2026-07-15.", "Liability cap: 12 months of fees."])),
    "Northwind-Acme-MSA-2026-signed.pdf": ("application/pdf", tiny_pdf([
        "MASTER SUBSCRIPTION AGREEMENT - executed copy", "Northwind Analytics, Inc. and Acme Corp",
        "Signed for Acme Corp: Olivia Grant, Procurement Manager, 2026-06-24",
        "Signed for Northwind Analytics: Tom Brennan, VP Sales, 2026-06-24", "Fees, year 1: USD 94,800"])),
}

# --------------------------------------------------------------------------------------------------------------
# The mail. `local` is the sender's wall clock; `homes` lists where copies live, the first is the original.


@dataclass
class Mail:
    slug: str
    sender: str
    to: list[str]
    local: str
    subject: str
    text: str
    cc: list[str] = field(default_factory=list)
    lang: str = "en"
    reply_to: str | None = None
    forward_of: str | None = None
    attachments: list[str] = field(default_factory=list)
    html: bool = False
    homes: list[str] = field(default_factory=lambda: ["mbox"])
    archive_name: str | None = None
    message_id: str | None = None       # only for system senders; people get <YYYYMMDD.HHMM.key@domain>
    extra_headers: list[tuple[str, str]] = field(default_factory=list)


MAILS: list[Mail] = [
    Mail("kickoff", "dana", ["sarah"], "2026-03-02 09:15", "Northwind / Acme data platform - kickoff and contacts",
         T("""
         Hi Sarah,

         Thanks again for Friday's call. To keep things simple on our side: I will be Acme's point of contact for the data platform project. Please route questions, documents and meeting requests through me and I will pull in the right people.

         The people you will hear from: Kevin Doyle (IT Security Lead) for security and hosting questions, and Mark Sullivan (our CFO) owns the budget decision. Procurement will join once we get to the contract.

         Could you send us a quote for phase 1 by the end of this week?

         Best regards,
         Dana
         """), cc=["michael"], html=True, homes=["mbox", "legacy-mbox"]),
    Mail("kickoff-re", "sarah", ["dana"], "2026-03-02 13:40", "",
         T("""
         Hi Dana,

         Great, thank you - noted that you are Acme's contact for the project. Michael Chen (cc) will lead the delivery on our side; he will set up the ACME project in our Jira this week. You will have the phase 1 quote by Wednesday.

         Best,
         Sarah
         """), cc=["michael"], reply_to="kickoff"),
    Mail("quote", "sarah", ["dana"], "2026-03-04 14:05", "Northwind quote Q-2026-0142 for the Acme data platform",
         T("""
         Hi Dana,

         As promised, attached is quote Q-2026-0142 for phase 1 of the Acme data platform: the platform subscription for year 1 (USD 84,000) and implementation services (USD 34,500), USD 118,500 in total. The quote is valid until 30 April.

         Happy to walk Mark through it if that helps.

         Best,
         Sarah
         """), cc=["michael"], attachments=["Northwind-Quote-Q-2026-0142.pdf"]),
    Mail("rfi-sources", "michael", ["dana"], "2026-03-05 10:20",
         "Request for information: source systems and data volumes",
         T("""
         Hi Dana,

         To plan the implementation (tracked as ACME-2 in Jira) we need a few facts from Acme:

         1. Which source systems should the platform load in phase 1, and how are they exported today?
         2. Approximate data volumes (total and daily change) for each.
         3. Which identity provider you use for single sign-on.
         4. Any hosting or data residency constraints we should know about.

         Could you send answers by Monday 9 March?

         Thanks,
         Michael
         """), cc=["sarah"]),
    Mail("rfi-sources-re", "dana", ["michael"], "2026-03-09 16:45", "",
         T("""
         Hi Michael,

         Answers below, Kevin is in cc for the hosting part.

         1. Phase 1 sources: our legacy Oracle data warehouse, the nightly SAP ECC CSV exports, and Salesforce.
         2. The Oracle warehouse holds about 14 TB, with roughly 40 GB of daily change. The SAP exports are around 6 GB per night.
         3. We use Okta for SSO.
         4. Kevin's team requires that customer data stays in our own data center, so we need an on-prem deployment option. Kevin will send the details.

         Regards,
         Dana
         """), cc=["sarah", "kevin"], reply_to="rfi-sources", homes=["mbox", "legacy-eml"],
         archive_name="000014.eml"),
    Mail("discovery-notes", "michael", ["sarah", "laura"], "2026-03-10 09:05",
         "Acme discovery notes and Jira tickets",
         T("""
         Hi both,

         Summary of the Acme discovery so far. I created the ACME project in Jira:

         - ACME-1 epic: Acme data platform rollout
         - ACME-7 requirement: on-prem deployment option (raised by Kevin Doyle, Acme IT Security)
         - ACME-12 data migration from the legacy Oracle warehouse (14 TB)
         - ACME-15 Okta SSO integration

         On our side NW-101 covers the SAP ECC export connector. Laura, could Datenwerk take NW-101? The charter draft will go to Confluence this month.

         Michael
         """), homes=["legacy-mbox"]),
    Mail("onprem-req", "kevin", ["michael"], "2026-03-11 13:30", "On-prem deployment requirement (ACME-7)",
         T("""
         Hello Michael,

         Following Dana's note: Acme's data handling policy (section 4.2) requires that customer and financial data is stored in infrastructure we operate. That means we are asking for an on-prem deployment of the Northwind platform in our Chicago data center. I logged this as ACME-7.

         Does Northwind support on-prem installations, and if so, what are the requirements?

         Kevin
         """), cc=["dana"]),
    Mail("onprem-req-re", "michael", ["kevin"], "2026-03-12 10:10", "",
         T("""
         Hi Kevin,

         Thanks for the detail. Northwind runs as a hosted service; we do not ship an on-prem edition today. What we can offer for Acme's policy is a dedicated single-tenant deployment in our US-Central region with customer-managed encryption keys and a private network link, so no data crosses the public internet.

         Could you share the policy document so we can map it clause by clause? I will prepare an assessment for your steering committee.

         Michael
         """), cc=["dana"], reply_to="onprem-req"),
    Mail("budget-approved", "dana", ["sarah"], "2026-03-16 15:20", "Budget approved for phase 1",
         T("""
         Hi Sarah,

         Good news: Mark Sullivan approved a budget of USD 120,000 for phase 1 (subscription year 1 plus implementation). Your quote Q-2026-0142 fits within it.

         Next step on our side is procurement. I will let you know who handles the contract.

         Regards,
         Dana
         """), cc=["michael", "mark"], html=True),
    Mail("budget-approved-re", "sarah", ["dana"], "2026-03-16 17:30", "",
         T("""
         Hi Dana,

         Excellent news, thank you - and thanks to Mark. I have updated the opportunity on our side (Salesforce {opp}). Just let me know the procurement contact when you have it.

         Best,
         Sarah
         """).format(opp=SF_OPPORTUNITY), cc=["michael"], reply_to="budget-approved"),
    Mail("datenwerk-ask", "laura", ["markus"], "2026-03-18 10:12",
         "Unterstützung beim SAP-Connector für Acme (NW-101)",
         T("""
         Hallo Markus,

         wir haben einen neuen Kunden in den USA, die Acme Corp, und brauchen für die Anbindung der nächtlichen SAP-ECC-Exporte Unterstützung von Datenwerk. Das Ticket dazu ist NW-101.

         Könntet ihr ab Ende März zwei Berater stellen? Bitte schick mir bis Freitag eine grobe Aufwandsschätzung.

         Viele Grüße
         Laura
         """), cc=["anna"], lang="de"),
    Mail("datenwerk-ask-re", "markus", ["laura"], "2026-03-19 08:47", "",
         T("""
         Hallo Laura,

         danke für die Anfrage. Wir können ab dem 30. März mit zwei Beratern starten. Den Aufwand für den SAP-Connector schätzen wir auf etwa 15 Personentage, inklusive Tests mit echten Exportdateien von Acme. Anna schickt dir das offizielle Angebot.

         Mit freundlichen Grüßen
         Markus Vogel
         """), cc=["anna"], lang="de", reply_to="datenwerk-ask"),
    Mail("charter", "michael", ["dana", "kevin"], "2026-03-23 11:00", "Acme project charter published",
         T("""
         Hi Dana, hi Kevin,

         The project charter is now in Confluence: {charter}

         Key points: phase 1 loads the Oracle warehouse, the SAP exports and Salesforce; target go-live is 2026-07-01; the steering committee decides on the hosting question (ACME-7) on 9 April. Please review and comment on the page by Friday.

         Michael
         """).format(charter=CHARTER_URL), cc=["sarah", "laura"]),
    Mail("charter-re", "dana", ["michael"], "2026-03-24 09:30", "",
         T("""
         Michael,

         Looks good. Two corrections: our steering committee meets every other Thursday, and please list Priya Raman (Head of Data Platforms) as the data owner for the warehouse migration.

         Dana
         """), reply_to="charter"),
    Mail("jira-nw101", "jira", ["michael"], "2026-03-26 14:00", "[JIRA] (NW-101) SAP ECC export connector for Acme",
         T("""
         Laura Fischer created NW-101:
         -------------------------------

         Summary: SAP ECC export connector for Acme
         Issue Type: Story
         Assignee: Markus Vogel
         Reporter: Laura Fischer
         Priority: High
         Labels: acme, partner-datenwerk

         Read the nightly SAP ECC CSV exports from Acme's SFTP drop and load them into the staging area. Work done by Datenwerk GmbH (see NW-101 in {browse}/NW-101).
         """).format(browse=JIRA_BROWSE), homes=["legacy-mbox"],
         message_id="<JIRA.10101.1774533600000@Atlassian.JIRA>",
         extra_headers=[("Auto-Submitted", "auto-generated"), ("X-JIRA-FingerPrint", "a41c0f2b7e")]),
    Mail("sso", "dana", ["michael"], "2026-03-30 10:00", "SSO test accounts (ACME-15)",
         T("""
         Hi Michael,

         Kevin's team is ready to set up the Okta integration for ACME-15. What exactly do you need from us, and by when?

         Dana
         """)),
    Mail("sso-re", "michael", ["dana"], "2026-03-31 09:20", "",
         T("""
         Hi Dana,

         We need the Okta SAML metadata URL and three test accounts (one admin, two analysts) by 10 April. Details are in ACME-15.

         Michael
         """), cc=["kevin"], reply_to="sso"),
    Mail("status-w14", "michael", ["dana", "kevin"], "2026-04-01 17:00", "Acme weekly status - week 14",
         T("""
         Hi all,

         Status: GREEN

         - SSO (ACME-15): waiting for the Okta metadata, due 10 April.
         - Data migration (ACME-12): the migration plan draft is in Confluence: {plan}
         - SAP connector (NW-101): Datenwerk started on 30 March.
         - Hosting (ACME-7): decision at the steering committee on 9 April.

         Next week: SSO configuration, migration tool tests with Huaxin.

         Michael
         """).format(plan=MIGRATION_PLAN_URL), cc=["sarah", "laura"], homes=["mbox", "archive"],
         archive_name="20260401-weekly-status-week-14.eml"),
    Mail("datenwerk-status", "markus", ["laura"], "2026-04-03 08:30", "Statusbericht SAP-Connector KW 14",
         T("""
         Hallo Laura,

         kurzer Stand zum SAP-Connector (NW-101): Die erste Extraktion aus den Acme-Exporten läuft. Probleme gibt es mit den Datumsformaten im SAP-Export (teils TT.MM.JJJJ, teils JJJJMMTT), dafür habe ich NW-104 angelegt.

         Nächste Woche bauen wir die Validierung und testen mit den Dateien vom 1. April.

         Mit freundlichen Grüßen
         Markus Vogel
         """), lang="de", homes=["archive"], archive_name="20260403-statusbericht-sap-connector-kw14.eml"),
    Mail("onprem-assessment", "michael", ["kevin"], "2026-04-07 11:15", "On-prem assessment for the steering committee",
         T("""
         Hi Kevin,

         For Thursday's steering committee, our assessment of ACME-7:

         - An on-prem deployment would add an estimated USD 60,000 and about three months, which moves go-live into Q4.
         - The dedicated hosted tenant in US-Central with customer-managed keys and a private link meets clauses 4.2.1 to 4.2.6 of your policy; only 4.2.7 (physical location) needs an exception.

         Our recommendation is the dedicated hosted tenant.

         Michael
         """), cc=["dana"]),
    Mail("onprem-rejected", "dana", ["michael", "sarah"], "2026-04-09 16:30",
         "Steering committee decision: on-prem deployment rejected (ACME-7)",
         T("""
         Hi Michael, hi Sarah,

         The steering committee met today and rejected the on-prem deployment requirement (ACME-7). We will go with Northwind's dedicated hosted tenant in US-Central with customer-managed keys; Kevin files the exception for clause 4.2.7. Kevin will close ACME-7 as Won't Do.

         Regards,
         Dana
         """), cc=["kevin"], html=True, homes=["mbox", "archive"],
         archive_name="20260409-steering-decision-on-prem.eml"),
    Mail("onprem-rejected-re", "michael", ["dana"], "2026-04-10 09:00", "",
         T("""
         Thanks Dana, that keeps us on track for July. I will send Kevin the key management design for review next week.

         Michael
         """), cc=["sarah", "kevin"], reply_to="onprem-rejected"),
    Mail("retention", "dana", ["michael"], "2026-04-13 21:40", "Question about data retention",
         T("""
         Michael,

         One more question from our compliance team: how long does Northwind keep the raw extracts after they are loaded, and can we configure that per source?

         Dana
         """)),
    Mail("huaxin-test", "wang", ["li"], "2026-04-14 10:05", "Acme 迁移工具测试结果",
         T("""
         李娜，你好：

         我们用 Acme 的 Oracle 测试库跑了一遍迁移工具。目前单线程导出速度大约是每天 1.2 TB，完整的 14 TB 需要 12 天左右，比计划慢很多。相关工单是 NW-108。

         请你这周内试一下并行导出方案，目标是每天 3 TB。结果出来后发给 Michael。

         谢谢！
         王伟
         """), cc=["michael"], lang="zh"),
    Mail("retention-re", "michael", ["dana"], "2026-04-14 09:30", "",
         T("""
         Hi Dana,

         Raw extracts are kept for 30 days by default and then deleted; the retention can be set per source between 7 and 365 days. The loaded, modelled data is kept for the term of the contract.

         Michael
         """), reply_to="retention"),
    Mail("huaxin-test-re", "michael", ["wang"], "2026-04-15 08:15", "",
         T("""
         Hi Wang Wei,

         Thanks for the numbers. At 1.2 TB per day the migration (ACME-12) does not fit the plan. Please share the parallel export results as soon as you have them; we need at least 2 TB per day to keep the July go-live.

         Michael
         """), cc=["li"], reply_to="huaxin-test"),
    Mail("datenwerk-offer", "anna", ["laura"], "2026-04-20 10:30", "Angebot Datenwerk: SAP-Connector Acme",
         T("""
         Hallo Frau Fischer,

         anbei unser Angebot 2026-031 für den SAP-Connector (NW-101): 15 Personentage zu je 1.150 EUR, also 17.250 EUR zzgl. USt. Das Angebot gilt bis zum 15. Mai.

         Für Rückfragen stehe ich gern zur Verfügung.

         Mit freundlichen Grüßen
         Anna Schmidt
         """), cc=["markus"], lang="de", attachments=["Datenwerk-Angebot-2026-031.pdf"], homes=["archive"],
         archive_name="20260420-angebot-datenwerk.eml"),
    Mail("datenwerk-offer-re", "laura", ["anna"], "2026-04-21 09:00", "",
         T("""
         Hallo Frau Schmidt,

         vielen Dank, das Angebot ist freigegeben. Die Bestellung kommt diese Woche von unserem Einkauf.

         Viele Grüße
         Laura Fischer
         """), lang="de", reply_to="datenwerk-offer", homes=["archive"],
         archive_name="20260421-re-angebot-datenwerk.eml"),
    Mail("delivery-date-ask", "michael", ["markus"], "2026-04-22 09:10", "Delivery date for the SAP connector (NW-101)",
         T("""
         Hi Markus,

         for the Acme project plan I need a firm delivery date for the SAP connector (NW-101). Could you send me one by tomorrow?

         Thanks,
         Michael
         """), cc=["laura"]),
    Mail("status-w17", "michael", ["dana", "kevin"], "2026-04-22 17:00", "Acme weekly status - week 17",
         T("""
         Hi all,

         Status: AMBER

         - SSO (ACME-15): done, Okta login works for all three test accounts.
         - SAP connector (NW-101): on track, date format issue NW-104 fixed.
         - Data migration (ACME-12): AMBER, export throughput is below plan; details follow this week.

         Michael
         """), cc=["sarah", "laura"]),
    Mail("delivery-date-ask-re", "markus", ["michael"], "2026-04-23 09:05", "",
         T("""
         Hallo Michael,

         hiermit bestätige ich den Liefertermin für den SAP-Connector (NW-101): 26.05.2026. Die Abnahme mit den Acme-Testdaten machen wir am selben Tag.

         Mit freundlichen Grüßen
         Markus Vogel
         """), cc=["laura"], lang="de", reply_to="delivery-date-ask"),
    Mail("migration-risk", "michael", ["dana"], "2026-04-28 11:45", "Risk: data migration behind plan (ACME-12)",
         T("""
         Hi Dana,

         I want to flag a risk early. The Oracle export for the data migration (ACME-12) runs at 1.1 TB per day; to finish the 14 TB before the July go-live we need 2 TB per day. Huaxin is testing a parallel export, and we are looking at excluding the archive schemas from the first load.

         I will send a revised plan by 8 May.

         Michael
         """), cc=["sarah"]),
    Mail("migration-risk-re", "dana", ["michael"], "2026-04-29 10:00", "",
         T("""
         Thanks for the heads-up, Michael. 8 May works. Please include what it would mean for the go-live date if the parallel export does not help.

         Dana
         """), reply_to="migration-risk"),
    Mail("budget-cut", "dana", ["sarah", "michael"], "2026-05-06 15:10",
         "Budget change: phase 1 budget reduced to USD 95,000",
         T("""
         Hi Sarah, hi Michael,

         After Acme's Q2 cost review, Mark Sullivan reduced the approved budget for phase 1 from USD 120,000 to USD 95,000. The project itself is not in question, but we need a revised quote that fits the new budget.

         Could you send one by the end of the week?

         Regards,
         Dana
         """), cc=["mark"], html=True, homes=["mbox", "archive"], archive_name="20260506-budget-change.eml"),
    Mail("budget-cut-re", "sarah", ["dana"], "2026-05-07 13:00", "",
         T("""
         Hi Dana,

         Understood. Attached is revision 2 of quote Q-2026-0142: USD 94,800 in total. We removed the second sandbox environment and reduced the training days from six to three; the scope of the migration is unchanged.

         Best,
         Sarah
         """), cc=["michael"], reply_to="budget-cut", attachments=["Northwind-Quote-Q-2026-0142-R2.pdf"]),
    Mail("budget-cut-re2", "dana", ["sarah"], "2026-05-08 09:30", "",
         T("""
         Sarah, thanks - the revised quote works for us. Olivia Grant from procurement will handle the contract with you.

         Dana
         """), reply_to="budget-cut-re"),
    Mail("huaxin-parallel", "li", ["michael"], "2026-05-12 07:10", "并行导出方案测试结果 (ACME-12)",
         T("""
         Michael 您好：

         并行导出方案已经测试完成。使用 8 个并行会话时，导出速度达到每天 1.6 TB，仍然低于每天 2 TB 的目标。瓶颈在 Oracle 源库的 I/O。

         按目前的速度，数据迁移（ACME-12）预计会比计划晚三周左右。我们建议先迁移最近三年的数据，归档数据在上线后再补。

         李娜
         """), cc=["wang"], lang="zh", homes=["archive"], archive_name="20260512-parallel-export-results.eml"),
    Mail("huaxin-parallel-re", "michael", ["li"], "2026-05-14 10:00", "",
         T("""
         Hi Li Na,

         Thank you, clear results. A three-week delay puts the 2026-07-01 go-live at risk, so I will take this to our leadership. Please keep NW-108 open for the I/O tuning.

         Michael
         """), cc=["wang"], reply_to="huaxin-parallel"),
    Mail("escalation", "michael", ["grace", "tom"], "2026-05-19 08:40",
         "ESCALATION: Acme data migration delay (ACME-12)",
         T("""
         Grace, Tom,

         I am escalating the data-migration delay on the Acme project (ACME-12) to leadership. The Oracle export reaches 1.6 TB per day against the 2 TB needed; the migration will finish about three weeks late, and the agreed go-live of 2026-07-01 is no longer realistic.

         What I need:
         1. Two platform engineers for four weeks to tune the export (NW-108).
         2. Approval to propose a new go-live date of 2026-07-15 to Acme.

         The deal is still open and the budget was just cut to USD 95,000, so I want to give Acme a firm date soon.

         Michael
         """), cc=["sarah", "laura"]),
    Mail("escalation-re", "grace", ["michael"], "2026-05-19 12:05", "",
         T("""
         Michael,

         Thanks for raising it early. Approved on both points: Jun and Omar from the platform team join you from Thursday for four weeks, and please propose 15 July to Acme. Keep me posted weekly until the migration is done.

         Grace
         """), cc=["tom", "sarah", "laura"], reply_to="escalation"),
    Mail("golive-proposal", "michael", ["dana"], "2026-05-21 10:00",
         "Proposal: move go-live from 2026-07-01 to 2026-07-15",
         T("""
         Hi Dana,

         As discussed, the data migration (ACME-12) is about three weeks behind. We added two engineers and we propose to move the go-live from 2026-07-01 to 2026-07-15. The cutover plan is tracked in ACME-18 and the runbook is in Confluence: {runbook}

         Could the steering committee confirm the new date?

         Michael
         """).format(runbook=RUNBOOK_URL), cc=["sarah", "kevin"]),
    Mail("golive-proposal-re", "dana", ["michael"], "2026-05-22 11:00", "",
         T("""
         Michael, the date looks acceptable in principle. The steering committee will decide on 4 June; you will get the formal confirmation after that.

         Dana
         """), reply_to="golive-proposal"),
    Mail("escalation-re2", "tom", ["michael"], "2026-05-23 10:15", "",
         T("""
         Michael - spoke to Acme's CFO on Friday at the partner dinner. They appreciate that we flagged the migration delay early. No impact on the deal from their side.

         Tom
         """), cc=["grace"], reply_to="escalation-re"),
    Mail("datenwerk-done", "markus", ["laura"], "2026-05-26 14:20", "NW-101 abgeschlossen",
         T("""
         Hallo Laura,

         der SAP-Connector ist fertig: NW-101 und NW-104 sind geschlossen, die Abnahme mit Acme-Testdaten war heute erfolgreich. Die Rechnung über 17.250 EUR geht nächste Woche raus.

         Mit freundlichen Grüßen
         Markus Vogel
         """), lang="de", homes=["archive"], archive_name="20260526-nw-101-abgeschlossen.eml"),
    Mail("status-w22", "michael", ["dana", "kevin"], "2026-05-27 17:00", "Acme weekly status - week 22",
         T("""
         Hi all,

         Status: AMBER

         - Data migration (ACME-12): 9.8 of 14 TB migrated; two extra engineers since 21 May, throughput now 2.1 TB per day.
         - SAP connector (NW-101): done and accepted.
         - Go-live: proposed for 2026-07-15, waiting for the steering committee on 4 June.

         Michael
         """), cc=["sarah", "laura"]),
    Mail("contact-change", "dana", ["sarah", "michael"], "2026-06-03 10:00", "Change of contact at Acme from 8 June",
         T("""
         Hi Sarah, hi Michael,

         A personal update: I am moving to Acme's logistics division. From Monday, 8 June 2026, Priya Raman (Head of Data Platforms, priya.raman@acme.example) will be Acme's contact for the Northwind project. Priya already knows the migration well as the data owner.

         It has been a pleasure working with you both.

         Dana
         """), cc=["priya"], homes=["mbox", "archive"], archive_name="20260603-change-of-contact.eml"),
    Mail("contact-change-fwd", "sarah", ["michael", "laura", "ben"], "2026-06-03 11:30", "",
         T("""
         FYI - from 8 June our contact at Acme is Priya Raman. Ben, please address the contract to Priya and to Olivia Grant in procurement. I will update the contact roles on the opportunity ({opp}).

         Sarah
         """).format(opp=SF_OPPORTUNITY), forward_of="contact-change"),
    Mail("priya-intro", "priya", ["sarah", "michael"], "2026-06-08 09:05",
         "Introduction: Acme's contact for the Northwind project",
         T("""
         Hello Sarah, hello Michael,

         As of today, 8 June 2026, I am Acme's contact for the Northwind data platform project, taking over from Dana Whitfield. Please send all project communication to me from now on.

         To get up to speed, could you send me the go-live runbook and the list of open risks?

         Thanks,
         Priya
         """), cc=["dana"]),
    Mail("priya-intro-re", "michael", ["priya"], "2026-06-08 10:30", "",
         T("""
         Hi Priya,

         Welcome, and thanks for the quick start. The charter is at {charter} and the go-live runbook at {runbook}. The one open risk is the data migration (ACME-12): 12.1 of 14 TB are done and we expect to finish by 19 June.

         Michael
         """).format(charter=CHARTER_URL, runbook=RUNBOOK_URL), cc=["sarah"], reply_to="priya-intro"),
    Mail("golive-confirmed", "priya", ["michael"], "2026-06-10 16:00", "Go-live confirmed for 2026-07-15",
         T("""
         Hi Michael,

         The steering committee confirmed the new go-live date: 2026-07-15. Please plan the cutover (ACME-18) for the weekend before, 11 and 12 July.

         Regards,
         Priya
         """), cc=["sarah"], html=True),
    Mail("contract", "ben", ["olivia"], "2026-06-12 13:00",
         "Contract for signature: Northwind-Acme MSA and order form",
         T("""
         Dear Olivia,

         Please find attached the Master Subscription Agreement with order form 1 for the Acme data platform: USD 94,800 for year 1, dedicated hosted tenant in US-Central, target go-live 2026-07-15.

         Let me know if your legal team has comments.

         Kind regards,
         Ben
         """), cc=["priya", "sarah"], attachments=["Northwind-Acme-MSA-2026.docx"], homes=["archive"],
         archive_name="20260612-contract-for-signature.eml"),
    Mail("contract-re", "olivia", ["ben"], "2026-06-16 10:30", "",
         T("""
         Hi Ben,

         Thank you. Before we sign we need two things: a current certificate of insurance, and confirmation that the liability cap is twelve months of fees.

         Olivia
         """), cc=["priya", "sarah"], reply_to="contract"),
    Mail("contract-re2", "ben", ["olivia"], "2026-06-17 09:00", "",
         T("""
         Hi Olivia,

         Confirmed: the liability cap is twelve months of fees (section 9.1). Our broker sends the certificate of insurance today.

         Ben
         """), cc=["priya", "sarah"], reply_to="contract-re"),
    Mail("contract-signed", "olivia", ["ben", "sarah"], "2026-06-24 15:45", "Signed: Northwind-Acme MSA",
         T("""
         Hi Ben, hi Sarah,

         Acme signed the contract today. The executed copy is attached.

         Olivia
         """), cc=["priya"], attachments=["Northwind-Acme-MSA-2026-signed.pdf"]),
    Mail("closed-won", "sarah", ["tom", "grace"], "2026-06-24 17:10",
         "Closed won: Acme Corp - Data Platform 2026 (USD 94,800)",
         T("""
         Team,

         Acme signed today: the contract is closed at USD 94,800 for year 1. The opportunity {opp} is now Closed Won. Go-live stays 2026-07-15.

         Thanks to Michael and Laura for carrying the delivery through the migration delay.

         Sarah
         """).format(opp=SF_OPPORTUNITY), cc=["michael", "laura"]),
    Mail("jira-acme12", "jira", ["michael"], "2026-06-26 11:00",
         "[JIRA] (ACME-12) Data migration from the legacy Oracle warehouse",
         T("""
         Li Na changed the status of ACME-12 to Done:
         -------------------------------------------

         Summary: Data migration from the legacy Oracle warehouse
         Status: In Progress -> Done
         Resolution: Done
         Comment: All 14 TB migrated, reconciliation report attached to the Confluence migration plan ({plan}).

         View: {browse}/ACME-12
         """).format(plan=MIGRATION_PLAN_URL, browse=JIRA_BROWSE), homes=["archive"],
         archive_name="20260626-jira-acme-12-done.eml",
         message_id="<JIRA.20012.1782471600000@Atlassian.JIRA>",
         extra_headers=[("Auto-Submitted", "auto-generated"), ("X-JIRA-FingerPrint", "a41c0f2b7e")]),
    Mail("cutover-rfi", "priya", ["michael"], "2026-06-29 10:00", "Cutover rehearsal schedule",
         T("""
         Hi Michael,

         Could you send me the schedule for the cutover rehearsal, and who from Acme needs to be available on 11 and 12 July?

         Priya
         """)),
    Mail("status-w27", "michael", ["priya", "kevin"], "2026-06-30 17:00", "Acme weekly status - week 27",
         T("""
         Hi all,

         Status: GREEN

         - Data migration (ACME-12): done, all 14 TB migrated and reconciled.
         - Contract: signed on 24 June.
         - Go-live: on track for 2026-07-15; cutover rehearsal on 7 July, cutover on 11 and 12 July (ACME-18).

         Michael
         """), cc=["sarah", "laura"]),
]

# --------------------------------------------------------------------------------------------------------------
# Deliberately broken entries. Each is written as raw bytes: the point is that a generator could not produce them.


@dataclass
class Broken:
    slug: str
    home: str                   # mbox | archive | legacy-eml
    name: str | None            # file name for archive/legacy-eml
    defect: str
    outcomes: list[str]         # acceptable reader outcomes, "failure:<error_class>" or "record:degraded"
    message_id: str | None
    date_utc: dt.datetime | None
    sender: str = ""            # for the mbox From_ line
    why: str = ""


def _crlf(text: str) -> bytes:
    return text.replace("\n", "\r\n").encode("ascii")


_BAD_BOUNDARY = T("""
From: Kevin Doyle <kevin.doyle@acme.example>
To: Michael Chen <michael.chen@northwind.example>
Cc: Dana Whitfield <dana.whitfield@acme.example>
Subject: Security questionnaire for the hosted tenant
Date: Thu, 16 Apr 2026 14:02:00 -0500
Message-ID: <20260416.1402.kevin@acme.example>
MIME-Version: 1.0
Content-Type: multipart/mixed; boundary="----=_NextPart_000_0011_01DCAF"
X-Mailer: Microsoft Outlook 16.0

This is a multi-part message in MIME format.

------=_NextPart_000_0010_01DCAF
Content-Type: text/plain; charset="us-ascii"
Content-Transfer-Encoding: 7bit

Hello Michael,

attached is our security questionnaire for the dedicated tenant. Please return it by 30 April.

Kevin

------=_NextPart_000_0010_01DCAF
Content-Type: application/vnd.openxmlformats-officedocument.spreadsheetml.sheet;
\tname="Acme-Security-Questionnaire-v3.xlsx"
Content-Transfer-Encoding: base64
Content-Disposition: attachment;
\tfilename="Acme-Security-Questionnaire-v3.xlsx"

UEsDBBQABgAIAAAAIQBi7p1oXgEAAJAEAAATAAgCW0NvbnRlbnRfVHlwZXNdLnhtbCCiBAIooAAC
AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA
AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA
AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA
AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA
AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA
AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA
AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA
AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA
""") + "\n"

_NO_DATE = T("""
From: Kevin Doyle <kevin.doyle@acme.example>
To: Michael Chen <michael.chen@northwind.example>
Subject: RE: SSO test accounts (ACME-15)
Message-ID: <6f0e2c1a.kevin@acme.example>
In-Reply-To: <20260331.0920.michael@northwind.example>
References: <20260330.1000.dana@acme.example> <20260331.0920.michael@northwind.example>
MIME-Version: 1.0
Content-Type: text/plain; charset="us-ascii"
Content-Transfer-Encoding: 7bit
X-Mailer: Microsoft Outlook 16.0

Michael,

the three Okta test accounts are set up: nw-admin-test, nw-analyst-1 and nw-analyst-2. The SAML metadata URL follows from Dana.

Kevin
""") + "\n"

_UNKNOWN_CHARSET_HEAD = T("""
From: Olivia Grant <olivia.grant@acme.example>
To: Ben Carter <ben.carter@northwind.example>
Subject: Vendor onboarding form
Date: Fri, 29 May 2026 11:20:00 -0500
Message-ID: <20260529.1120.olivia@acme.example>
MIME-Version: 1.0
Content-Type: text/plain; charset="x-acme-legacy-1252"
Content-Transfer-Encoding: 8bit
X-Mailer: Acme Procurement Suite 4.1
""") + "\n\n"
# cp1252 smart quotes and an e-acute: not valid UTF-8, and the charset label names no known codec.
_UNKNOWN_CHARSET_BODY = (
    "Dear Ben,\n\nplease fill in the attached \x93Vendor onboarding\x94 form before we can issue a purchase order "
    "for the Northwind contract. Our procurement r\xe9sum\xe9 template is unchanged from last year.\n\nOlivia\n"
).encode("latin-1")

# Not mail: the first bytes of a PNG scan that someone saved with a .eml name.
_NOT_MAIL = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x04\xb0\x00\x00\x06\x40\x08\x02\x00\x00\x00" + bytes(
    (i * 73 + 41) % 256 for i in range(480))

BROKEN: list[tuple[Broken, bytes]] = [
    (Broken("bad-boundary", "mbox", None, "multipart boundary in the header never occurs in the body; the base64 "
            "attachment is cut off mid-stream", ["failure:parse_error", "record:degraded"],
            "<20260416.1402.kevin@acme.example>", dt.datetime(2026, 4, 16, 19, 2, tzinfo=dt.timezone.utc),
            sender="kevin.doyle@acme.example", why="a truncated MIME message in the middle of an mbox must not stop the "
            "messages after it"),
     _BAD_BOUNDARY.encode("ascii")),
    (Broken("no-date", "archive", "undated-sso-test-accounts.eml", "no Date header and no Received header: "
            "no usable timestamp", ["failure:missing_field"], "<6f0e2c1a.kevin@acme.example>", None,
            why="a message cannot be placed on a day without a date; it must become a failure, not today's date"),
     _crlf(_NO_DATE)),
    (Broken("unknown-charset", "archive", "20260529-vendor-onboarding-form.eml", "charset label "
            "x-acme-legacy-1252 names no codec and the body is not UTF-8",
            ["failure:bad_value", "record:degraded"], "<20260529.1120.olivia@acme.example>",
            dt.datetime(2026, 5, 29, 16, 20, tzinfo=dt.timezone.utc),
            why="decoding must not crash; either a failure or a record decoded with replacement characters"),
     _UNKNOWN_CHARSET_HEAD.replace("\n", "\r\n").encode("ascii") + _UNKNOWN_CHARSET_BODY.replace(b"\n", b"\r\n")),
    (Broken("not-mail", "archive", "scan-0007.eml", "a PNG image saved with a .eml name",
            ["failure:parse_error", "failure:unsupported"], None, None,
            why="a file that is not mail at all must be reported, not parsed into an empty message"),
     _NOT_MAIL),
    (Broken("empty", "legacy-eml", "000017.eml", "zero-byte file inside the zip",
            ["failure:parse_error", "failure:missing_field"], None, None,
            why="an empty member of an archive is reported with its member path"),
     b""),
]

# --------------------------------------------------------------------------------------------------------------
# Rendering


@dataclass
class Built:
    mail: Mail
    message_id: str
    local: dt.datetime
    aware: dt.datetime
    subject: str
    body: str                   # full text/plain body as sent (own text, signature, quote/forward)
    in_reply_to: str | None
    references: list[str]
    thread_root: str


def _addr(key: str) -> Address:
    person = PEOPLE[key]
    local, domain = person.email.split("@", 1)
    return Address(display_name=person.name, username=local, domain=domain)


def _clock12(moment: dt.datetime) -> str:
    """US 12-hour clock without platform-specific strftime flags."""
    return f"{moment.hour % 12 or 12}:{moment:%M} {'AM' if moment.hour < 12 else 'PM'}"


def _attribution(parent: Built, client: str) -> str:
    sender = PEOPLE[parent.mail.sender]
    local = parent.local
    if client in ("outlook", "outlook_de"):
        label = ("Von", "Gesendet", "An", "Betreff") if client == "outlook_de" else ("From", "Sent", "To", "Subject")
        sent = f"{local:%A, %B} {local.day}, {local.year} {_clock12(local)}" if client == "outlook" else f"{local:%d.%m.%Y %H:%M}"
        to = "; ".join(PEOPLE[k].name for k in parent.mail.to)
        return (f"________________________________\n{label[0]}: {sender.name} <{sender.email}>\n{label[1]}: {sent}\n"
                f"{label[2]}: {to}\n{label[3]}: {parent.subject}\n")
    if client == "thunderbird_de":
        return f"Am {local:%d.%m.%y} um {local:%H:%M} schrieb {sender.name}:\n"
    if client == "foxmail":
        return f"在 {local.year}年{local.month}月{local.day}日 {_WEEKDAYS_ZH[local.weekday()]} {local:%H:%M}，{sender.name} <{sender.email}> 写道：\n"
    stamp = f"{local:%a, %b} {local.day}, {local.year} at {_clock12(local)}"
    return f"On {stamp} {sender.name} <{sender.email}> wrote:\n"


def _quote(parent: Built, client: str) -> str:
    header = _attribution(parent, client)
    if client in ("outlook", "outlook_de"):         # Outlook: the original below a rule, not prefixed
        return header + "\n" + parent.body
    return header + "\n".join(">" if not line else "> " + line for line in parent.body.rstrip("\n").split("\n"))


def _forward_block(original: Built) -> str:
    sender = PEOPLE[original.mail.sender]
    to = ", ".join(f"{PEOPLE[k].name} <{PEOPLE[k].email}>" for k in original.mail.to)
    cc = ", ".join(f"{PEOPLE[k].name} <{PEOPLE[k].email}>" for k in original.mail.cc)
    when = f"{original.local:%a, %b} {original.local.day}, {original.local.year} at {_clock12(original.local)}"
    lines = ["---------- Forwarded message ---------", f"From: {sender.name} <{sender.email}>", f"Date: {when}",
             f"Subject: {original.subject}", f"To: {to}"]
    if cc:
        lines.append(f"Cc: {cc}")
    return "\n".join(lines) + "\n\n" + original.body


def _reply_subject(parent_subject: str, client: str) -> str:
    bare = re.sub(r"^(?:(?:Re|RE|AW|Fwd|回复)\s*[:：]\s*)+", "", parent_subject)
    return _REPLY_PREFIX.get(client, "Re: ") + bare


def build_all() -> dict[str, Built]:
    built: dict[str, Built] = {}
    for mail in MAILS:
        person = PEOPLE[mail.sender]
        local = dt.datetime.strptime(mail.local, "%Y-%m-%d %H:%M")
        aware = local.replace(tzinfo=dt.timezone(utc_offset(person.zone, local)))
        domain = person.email.split("@", 1)[1]
        message_id = mail.message_id or f"<{local:%Y%m%d.%H%M}.{person.key}@{domain}>"
        parts = [mail.text]
        if person.signature:
            parts.append(("-- \n" if person.client == "gmail" else "") + person.signature)
        in_reply_to, references, root = None, [], message_id
        subject = mail.subject
        if mail.reply_to:
            parent = built[mail.reply_to]
            in_reply_to = parent.message_id
            references = parent.references + [parent.message_id]
            root = parent.thread_root
            subject = mail.subject or _reply_subject(parent.subject, person.client)
            parts.append(_quote(parent, person.client))
        if mail.forward_of:
            original = built[mail.forward_of]
            references = original.references + [original.message_id]
            subject = mail.subject or "Fwd: " + original.subject
            parts.append(_forward_block(original))
        body = "\n\n".join(part.rstrip("\n") for part in parts) + "\n"
        built[mail.slug] = Built(mail, message_id, local, aware, subject, body, in_reply_to, references, root)
    return built


def _html_body(text: str) -> str:
    paragraphs = "".join(f"<p>{html.escape(p).replace(chr(10), '<br>')}</p>\n" for p in text.split("\n\n"))
    return ("<html><head><meta http-equiv=\"Content-Type\" content=\"text/html; charset=utf-8\"></head>\n"
            "<body><div class=\"WordSection1\">\n" + paragraphs + "</div></body></html>\n")


# Variants of the same message: the same headers and decoded content, different bytes (line endings, transfer
# encoding, an archiver's extra header), as happens when one message passes through two export tools.
VARIANTS = {
    "mbox": {"cte": "8bit", "extra": []},          # readable: long lines and UTF-8 as they are
    "archive": {"cte": "quoted-printable", "extra": [("X-Archived-By", "Northwind Mail Archiver 2.3")]},
    "legacy-mbox": {"cte": "base64", "extra": [("X-Legacy-Folder", "Acme/2026-03")]},
    "legacy-eml": {"cte": "base64", "extra": [("X-Legacy-Folder", "Acme/2026-03")]},
}


def render(item: Built, home: str) -> bytes:
    mail, person = item.mail, PEOPLE[item.mail.sender]
    variant = VARIANTS[home]
    msg = EmailMessage()
    msg["From"] = _addr(mail.sender)
    msg["To"] = tuple(_addr(k) for k in mail.to)
    if mail.cc:
        msg["Cc"] = tuple(_addr(k) for k in mail.cc)
    msg["Subject"] = item.subject
    msg["Date"] = format_datetime(item.aware)
    msg["Message-ID"] = item.message_id
    if item.in_reply_to:
        msg["In-Reply-To"] = item.in_reply_to
    if item.references:
        msg["References"] = " ".join(item.references)
    msg["Content-Language"] = {"en": "en-US", "de": "de-DE", "zh": "zh-CN"}[mail.lang]
    mailer = _MAILERS[person.client]
    if mailer:
        msg["X-Mailer"] = mailer
    for name, value in mail.extra_headers + variant["extra"]:
        msg[name] = value
    msg.set_content(item.body, subtype="plain", charset="utf-8", cte=variant["cte"])
    if mail.html:
        msg.add_alternative(_html_body(item.body), subtype="html", charset="utf-8", cte=variant["cte"])
    for name in mail.attachments:
        media_type, data = ATTACHMENTS[name]
        maintype, subtype = media_type.split("/", 1)
        msg.add_attachment(data, maintype=maintype, subtype=subtype, filename=name)
    for number, part in enumerate(p for p in msg.walk() if p.is_multipart()):
        part.set_boundary(f"=_nw_{mail.slug}_{number}")
    pol = policy.SMTP if home == "archive" else policy.default
    return msg.as_bytes(policy=pol.clone(linesep="\r\n" if home == "archive" else "\n"))


def _from_line(sender_email: str, when_utc: dt.datetime) -> bytes:
    return f"From {sender_email} {when_utc:%a %b} {when_utc.day:2d} {when_utc:%H:%M:%S %Y}\n".encode("ascii")


def mbox_bytes(entries: list[tuple[str, dt.datetime, bytes]]) -> bytes:
    """mboxo: a From_ line per message, body lines starting with 'From ' escaped, a blank line between messages."""
    out = io.BytesIO()
    for sender_email, when_utc, raw in entries:
        out.write(_from_line(sender_email, when_utc))
        lines = raw.split(b"\n")
        if lines and lines[-1] == b"":
            lines.pop()
        for line in lines:
            out.write((b">" + line if line.startswith(b"From ") else line) + b"\n")
        out.write(b"\n")
    return out.getvalue()


# --------------------------------------------------------------------------------------------------------------
# Facts and questions the graph should answer once the sample is ingested.

FACTS = {
    "acme_contact": {"before": "Dana Whitfield", "before_email": "dana.whitfield@acme.example",
                     "after": "Priya Raman", "after_email": "priya.raman@acme.example", "changed_at": "2026-06-08",
                     "announced_at": "2026-06-03", "stated_in": ["<20260302.0915.dana@acme.example>",
                                                             "<20260603.1000.dana@acme.example>",
                                                             "<20260608.0905.priya@acme.example>"]},
    "budget": {"currency": "USD", "before": 120000, "approved_at": "2026-03-16", "after": 95000,
               "changed_at": "2026-05-06", "approved_by": "Mark Sullivan",
               "stated_in": ["<20260316.1520.dana@acme.example>", "<20260506.1510.dana@acme.example>"]},
    "quote": {"id": "Q-2026-0142", "first_total": 118500, "first_at": "2026-03-04", "revised_total": 94800,
              "revised_at": "2026-05-07"},
    "go_live": {"date": "2026-07-15", "confirmed_at": "2026-06-10", "confirmed_by": "Priya Raman",
                "previous_target": "2026-07-01", "proposed_at": "2026-05-21", "jira": "ACME-18",
                "stated_in": ["<20260610.1600.priya@acme.example>"]},
    "requirement_rejected": {"requirement": "on-prem deployment", "jira": "ACME-7", "raised_at": "2026-03-11",
                             "rejected_at": "2026-04-09", "rejected_by": "Acme steering committee",
                             "instead": "dedicated hosted tenant in US-Central with customer-managed keys",
                             "stated_in": ["<20260409.1630.dana@acme.example>"]},
    "risk_escalated": {"risk": "data-migration delay", "jira": "ACME-12", "flagged_at": "2026-04-28",
                       "escalated_at": "2026-05-19", "escalated_by": "Michael Chen",
                       "escalated_to": ["Grace Holloway", "Tom Brennan"], "resolved_at": "2026-06-26",
                       "stated_in": ["<20260519.0840.michael@northwind.example>"]},
    "deal_closed": {"opportunity_id": SF_OPPORTUNITY, "opportunity": "Acme Corp - Data Platform 2026",
                    "stage": "Closed Won", "amount": 94800, "currency": "USD", "signed_at": "2026-06-24",
                    "closed_at": "2026-06-24",
                    "stated_in": ["<20260624.1545.olivia@acme.example>", "<20260624.1710.sarah@northwind.example>"]},
    "delivery_date_confirmed": {"jira": "NW-101", "date": "2026-05-26", "asked_at": "2026-04-22",
                                "asked_by": "Michael Chen", "confirmed_at": "2026-04-23", "confirmed_by": "Markus Vogel",
                                "language": "de", "stated_in": ["<20260423.0905.markus@datenwerk.example>"]},
    "partner_delivery": {"jira": "NW-101", "partner": "Datenwerk GmbH", "started_at": "2026-03-30",
                         "done_at": "2026-05-26", "offer_eur": 17250},
}

QUESTIONS = [
    {"question": "Who is Acme's contact for the Northwind project?", "as_of": "2026-06-30",
     "expect_any": ["Priya Raman"], "expect_none": []},
    {"question": "Who was Acme's contact for the Northwind project in March 2026?", "as_of": "2026-03-31",
     "expect_any": ["Dana Whitfield"], "expect_none": []},
    {"question": "What is Acme's approved budget for phase 1?", "as_of": "2026-06-30",
     "expect_any": ["95,000", "95000"], "expect_none": []},
    {"question": "When is the Acme go-live?", "as_of": "2026-06-30",
     "expect_any": ["2026-07-15", "15 July", "July 15"], "expect_none": []},
    {"question": "Was the on-prem deployment requirement accepted?", "as_of": "2026-06-30",
     "expect_any": ["reject"], "expect_none": []},
    {"question": "Which risk was escalated to leadership?", "as_of": "2026-06-30",
     "expect_any": ["migration"], "expect_none": []},
    {"question": "Has Acme signed the contract?", "as_of": "2026-06-30",
     "expect_any": ["signed", "Closed Won"], "expect_none": []},
    # Answered by facts from text (transforms/intent_facts.py), no LLM.
    {"question": "Who escalated the risk?", "as_of": "2026-06-30", "expect_any": ["Michael Chen"], "expect_none": []},
    {"question": "Who confirmed the delivery date, and which date?", "as_of": "2026-06-30",
     "expect_any": ["Markus Vogel", "2026-05-26"], "expect_none": []},
    {"question": "What did Acme decide about the budget?", "as_of": "2026-06-30", "expect_any": ["Dana Whitfield"],
     "expect_none": []},
]

_JIRA_RE = re.compile(r"(?<![A-Za-z0-9_-])(?:NW|ACME)-[1-9]\d{0,5}(?![A-Za-z0-9_-])")
_URL_RE = re.compile(r"https?://[^\s<>\"')\]]+[^\s<>\"').,;:!?\]]")
_SF_RE = re.compile(r"(?<![A-Za-z0-9])[A-Za-z0-9]{18}(?![A-Za-z0-9])")


def _refs(text: str) -> dict:
    sf = sorted({m for m in _SF_RE.findall(text) if m[:3] in ("006", "001", "003") and sf_id18(m[:15]) == m})
    return {"jira_keys": sorted(set(_JIRA_RE.findall(text))), "urls": sorted(set(_URL_RE.findall(text))),
            "salesforce_ids": sf}


# --------------------------------------------------------------------------------------------------------------
# Writing


def build_files() -> tuple[dict[str, bytes], dict]:
    """Every output file (relative path -> bytes) and the expected.json document."""
    built = build_all()
    ids = [b.message_id for b in built.values()]
    assert len(ids) == len(set(ids)), "duplicate Message-ID in the story"
    for item in built.values():
        if item.in_reply_to:
            parent = next(b for b in built.values() if b.message_id == item.in_reply_to)
            assert parent.aware < item.aware, f"{item.mail.slug} is dated before its parent"

    files: dict[str, bytes] = {}
    at: dict[str, dict[str, dict]] = {slug: {} for slug in built}     # slug -> home -> Origin-like location
    mbox: list[tuple[str, dt.datetime, bytes, str]] = []         # sender, utc, bytes, slug-or-broken
    legacy_mbox: list[tuple[str, dt.datetime, bytes, str]] = []
    legacy_members: dict[str, bytes] = {}

    for slug, item in built.items():
        utc = item.aware.astimezone(dt.timezone.utc)
        sender = PEOPLE[item.mail.sender].email
        for home in item.mail.homes:
            raw = render(item, home)
            if home == "mbox":
                mbox.append((sender, utc, raw, slug))
            elif home == "legacy-mbox":
                legacy_mbox.append((sender, utc, raw, slug))
            elif home == "archive":
                path = f"{ARCHIVE_DIR}/{item.mail.archive_name}"
                files[path] = raw
                at[slug][home] = {"file": path}
            elif home == "legacy-eml":
                member = f"{LEGACY_EML_DIR}/{item.mail.archive_name}"
                legacy_members[member] = raw
                at[slug][home] = {"file": LEGACY_ZIP, "member": member}

    broken_entries = []
    for info, raw in BROKEN:
        if info.home == "mbox":        # the mbox is sorted by time below, so it lands between good messages
            mbox.append((info.sender, info.date_utc, raw, "broken:" + info.slug))
        elif info.home == "archive":
            files[f"{ARCHIVE_DIR}/{info.name}"] = raw
        elif info.home == "legacy-eml":
            legacy_members[f"{LEGACY_EML_DIR}/{info.name}"] = raw

    mbox.sort(key=lambda entry: entry[1])
    legacy_mbox.sort(key=lambda entry: entry[1])
    files[MBOX] = mbox_bytes([(s, w, r) for s, w, r, _ in mbox])
    for index, (_, _, _, tag) in enumerate(mbox):
        if tag.startswith("broken:"):
            broken_entries.append((tag[7:], {"file": MBOX, "index": index}))
        else:
            at[tag]["mbox"] = {"file": MBOX, "index": index}
    legacy_members[LEGACY_MBOX_MEMBER] = mbox_bytes([(s, w, r) for s, w, r, _ in legacy_mbox])
    for index, (_, _, _, tag) in enumerate(legacy_mbox):
        at[tag]["legacy-mbox"] = {"file": LEGACY_ZIP, "member": LEGACY_MBOX_MEMBER, "index": index}
    files[LEGACY_ZIP] = stored_zip(sorted(legacy_members.items()))
    for info, _ in BROKEN:
        if info.home == "archive":
            broken_entries.append((info.slug, {"file": f"{ARCHIVE_DIR}/{info.name}"}))
        elif info.home == "legacy-eml":
            broken_entries.append((info.slug, {"file": LEGACY_ZIP, "member": f"{LEGACY_EML_DIR}/{info.name}"}))

    # The copies of each message in the order of its homes: the first is the original, the rest are duplicates.
    locations = {slug: [at[slug][home] for home in item.mail.homes] for slug, item in built.items()}

    expected = _expected(built, locations, broken_entries)
    files["expected.json"] = (json.dumps(expected, indent=2, ensure_ascii=False) + "\n").encode("utf-8")
    return files, expected


def _expected(built: dict[str, Built], locations: dict[str, list[dict]], broken_entries: list) -> dict:
    per_day: dict[str, dict[str, int]] = {}

    def bump(day: str, key: str) -> None:
        per_day.setdefault(day, {"messages": 0, "duplicates": 0, "broken": 0})[key] += 1

    messages = []
    for slug, item in built.items():
        utc = item.aware.astimezone(dt.timezone.utc)
        day = utc.date().isoformat()
        bump(day, "messages")
        for _ in locations[slug][1:]:
            bump(day, "duplicates")
        own = item.mail.text
        attachments = []
        for name in item.mail.attachments:
            media_type, data = ATTACHMENTS[name]
            attachments.append({"name": name, "size": len(data), "sha256": hashlib.sha256(data).hexdigest(),
                                "media_type": media_type})
        messages.append({
            "message_id": item.message_id, "date": format_datetime(item.aware),
            "date_utc": utc.isoformat(), "day": day, "from": PEOPLE[item.mail.sender].email,
            "to": [PEOPLE[k].email for k in item.mail.to], "cc": [PEOPLE[k].email for k in item.mail.cc],
            "subject": item.subject, "language": item.mail.lang,
            "kind": "forward" if item.mail.forward_of else ("reply" if item.in_reply_to else "new"),
            "in_reply_to": item.in_reply_to, "references": item.references, "thread_root": item.thread_root,
            "has_html": item.mail.html, "system_sender": item.mail.sender == "jira",
            "locations": locations[slug], **_refs(own), "attachments": attachments,
        })
    messages.sort(key=lambda m: (m["date_utc"], m["message_id"]))
    known = {m["message_id"] for m in messages}
    for fact in FACTS.values():
        assert set(fact.get("stated_in", [])) <= known, fact

    broken = []
    by_slug = {info.slug: info for info, _ in BROKEN}
    for slug, location in broken_entries:
        info = by_slug[slug]
        if info.date_utc:
            bump(info.date_utc.date().isoformat(), "broken")
        broken.append({"slug": slug, "location": location, "message_id": info.message_id,
                       "date_utc": info.date_utc.isoformat() if info.date_utc else None, "defect": info.defect,
                       "outcomes": info.outcomes, "why": info.why})

    per_file: dict[str, dict[str, int]] = {}
    for message in messages:
        for n, loc in enumerate(message["locations"]):
            key = loc["file"] + ("!" + loc["member"] if "member" in loc else "")
            per_file.setdefault(key, {"entries": 0, "originals": 0, "duplicates": 0, "broken": 0})
            per_file[key]["entries"] += 1
            per_file[key]["duplicates" if n else "originals"] += 1
    for item in broken:
        loc = item["location"]
        key = loc["file"] + ("!" + loc["member"] if "member" in loc else "")
        per_file.setdefault(key, {"entries": 0, "originals": 0, "duplicates": 0, "broken": 0})
        per_file[key]["entries"] += 1
        per_file[key]["broken"] += 1

    duplicates = [{"message_id": m["message_id"], "copies": m["locations"]}
                  for m in messages if len(m["locations"]) > 1]
    n_dup = sum(len(d["copies"]) - 1 for d in duplicates)
    return {
        "about": "Expected content of the bundled sample (written by sample/make_sample.py; see sample/README.md).",
        "date_range": {"start": DATE_START.isoformat(), "end": DATE_END.isoformat(), "inclusive": True,
                       "timezone": "UTC"},
        "totals": {"entries": len(messages) + n_dup + len(broken), "unique_messages": len(messages),
                   "duplicates": n_dup, "broken": len(broken),
                   "broken_undated": sum(1 for b in broken if b["date_utc"] is None),
                   "threads": len({m["thread_root"] for m in messages}),
                   "languages": {lang: sum(1 for m in messages if m["language"] == lang) for lang in ("en", "de", "zh")}},
        "per_file": dict(sorted(per_file.items())),
        "per_day": dict(sorted(per_day.items())),
        "facts": FACTS,
        "questions": QUESTIONS,
        "salesforce": {"opportunity": SF_OPPORTUNITY, "account": SF_ACCOUNT,
                       "contacts": {"Dana Whitfield": SF_CONTACT_DANA, "Priya Raman": SF_CONTACT_PRIYA,
                                    "Olivia Grant": SF_CONTACT_OLIVIA}},
        "duplicates": duplicates,
        "broken": broken,
        "messages": messages,
    }


def write(out_dir: Path) -> list[Path]:
    files, _ = build_files()
    written = []
    for relative, data in sorted(files.items()):
        path = out_dir / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        written.append(path)
    return written


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=Path(__file__).resolve().parent,
                        help="folder to write exports/ and expected.json into (default: sample/)")
    args = parser.parse_args(argv)
    for path in write(args.out):
        print(path)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
