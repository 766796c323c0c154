"""Write the bundled Confluence sample: space ACME of the Northwind/Acme story (docs/sample-company.md).

Deterministic, standard library only. Writes sample/exports/confluence/:
  ACME-xml-export.zip          a Confluence XML space export (entities.xml + exportDescriptor.properties) with every
                               page version: Project Charter 131073 v1-v3 (owner Dana Whitfield, then Priya Raman on
                               2026-06-10), Data Migration Plan 131074 v1-v3, Go-Live Runbook 131075 v1-v2, comments,
                               labels, attachments, one read-restricted page (131076) and one broken comment (a date
                               that does not exist);
  ACME-xml-export-2026-06-30.zip  the same export cut off mid-file (a broken download).
`write_html_export(path)` writes the HTML space export of the same space (current versions) for tests.

    python sample/make_confluence_sample.py [--out DIR]
"""

import argparse
import io
import zipfile
from pathlib import Path
from xml.sax.saxutils import escape

BASE = "https://northwind.atlassian.net/wiki"
ZIP_DATE = (2026, 7, 1, 0, 0, 0)
SPACE_ID, SPACE_KEY, SPACE_NAME = "98305", "ACME", "Acme Data Platform"

USERS = {  # user key -> (username, display name, email)
    "8a7f808a8e5b1c01": ("michael.chen", "Michael Chen", "michael.chen@northwind.example"),
    "8a7f808a8e5b1c02": ("dana.whitfield", "Dana Whitfield", "dana.whitfield@acme.example"),
    "8a7f808a8e5b1c03": ("priya.raman", "Priya Raman", "priya.raman@acme.example"),
    "8a7f808a8e5b1c04": ("sarah.okafor", "Sarah Okafor", "sarah.okafor@northwind.example"),
    "8a7f808a8e5b1c05": ("tom.brennan", "Tom Brennan", "tom.brennan@northwind.example"),
}
MICHAEL, DANA, PRIYA, SARAH, TOM = USERS


def mention(key: str) -> str:
    return f'<ac:link><ri:user ri:userkey="{key}" /></ac:link>'


def charter(version: int) -> str:
    owner = PRIYA if version >= 3 else DANA
    go_live = "2026-07-15 (confirmed by Acme's steering committee on 2026-06-10)" if version >= 3 else "2026-07-01"
    data_owner = f"<tr><th>Data owner</th><td>{mention(PRIYA)}</td></tr>" if version >= 2 else ""
    contact = f"<tr><th>Acme contact</th><td>{mention(PRIYA if version >= 3 else DANA)}</td></tr>"
    return (
        '<ac:structured-macro ac:name="details" ac:schema-version="1"><ac:rich-text-body><table><tbody>'
        f"<tr><th>Owner</th><td>{mention(owner)}</td></tr>"
        f"<tr><th>Delivery lead</th><td>{mention(MICHAEL)}</td></tr>{contact}{data_owner}"
        '<tr><th>Status</th><td><ac:structured-macro ac:name="status"><ac:parameter ac:name="colour">Green</ac:parameter>'
        '<ac:parameter ac:name="title">Active</ac:parameter></ac:structured-macro></td></tr>'
        "</tbody></table></ac:rich-text-body></ac:structured-macro>"
        "<h1>Acme data platform rollout</h1>"
        "<p>Northwind Analytics delivers its data platform to Acme Corp (epic ACME-1).&nbsp;"
        f"Go-live target: <strong>{go_live}</strong>.</p>"
        "<h2>Scope</h2><ul><li>Migration of the legacy Oracle warehouse (14 TB, ACME-12)</li>"
        "<li>SAP ECC export connector (NW-101, built by Datenwerk)</li><li>Okta SSO (ACME-15)</li></ul>"
        "<h2>Governance</h2><p>The steering committee meets every other Thursday.</p>"
        '<p>Details: <ac:link><ri:page ri:content-title="Data Migration Plan" /></ac:link> and '
        f'<a href="{BASE}/spaces/ACME/pages/131075/Go-Live+Runbook">Go-Live Runbook</a>.</p>'
    )


def migration(version: int) -> str:
    plan = ("<p>Revised plan (2026-05-08): migrate the recent three years first, the archive later.</p>"
            if version >= 2 else "<p>Full load of all 14 TB in one pass.</p>")
    report = ('<h2>Reconciliation</h2><p>All 14 TB migrated on 2026-06-26; see '
              '<ac:link><ri:attachment ri:filename="reconciliation-report.pdf" ri:version-at-save="1" /></ac:link>.</p>'
              if version >= 3 else "")
    return (
        '<ac:structured-macro ac:name="details"><ac:rich-text-body><table><tbody>'
        f"<tr><th>Owner</th><td>{mention(MICHAEL)}</td></tr></tbody></table></ac:rich-text-body></ac:structured-macro>"
        "<h1>Data Migration Plan</h1>" + plan +
        "<table><tbody><tr><th>Source</th><th>Volume</th><th>Tool</th></tr>"
        "<tr><td>Oracle warehouse</td><td>14 TB</td><td>Huaxin migration tooling (NW-108)</td></tr>"
        "<tr><td>SAP ECC</td><td>6 GB/night</td><td>NW-101 connector</td></tr></tbody></table>"
        '<ac:structured-macro ac:name="code"><ac:parameter ac:name="language">sql</ac:parameter>'
        "<ac:plain-text-body><![CDATA[SELECT COUNT(*) FROM dw.orders WHERE order_date >= DATE '2023-01-01';]]>"
        "</ac:plain-text-body></ac:structured-macro>" + report
    )


def runbook(version: int) -> str:
    cutover = ("<h2>Cutover</h2><p>Rehearsal 2026-07-07; cutover 2026-07-11/12; go-live 2026-07-15 (ACME-18).</p>"
               if version >= 2 else "<h2>Cutover</h2><p>Dates to be confirmed (ACME-18).</p>")
    return (
        "<h1>Go-Live Runbook</h1>"
        '<ac:structured-macro ac:name="excerpt-include"><ac:parameter ac:name="">'
        '<ac:link><ri:page ri:content-title="Project Charter" /></ac:link></ac:parameter></ac:structured-macro>'
        + cutover +
        "<ac:task-list><ac:task><ac:task-id>1</ac:task-id><ac:task-status>complete</ac:task-status>"
        "<ac:task-body>Freeze the legacy warehouse</ac:task-body></ac:task>"
        "<ac:task><ac:task-id>2</ac:task-id><ac:task-status>incomplete</ac:task-status>"
        f"<ac:task-body>{mention(MICHAEL)} confirms DNS switch</ac:task-body></ac:task></ac:task-list>"
        '<ac:structured-macro ac:name="warning"><ac:rich-text-body><p>No schema changes after the rehearsal.</p>'
        '</ac:rich-text-body></ac:structured-macro>'
        '<ac:structured-macro ac:name="roadmap-planner"><ac:rich-text-body><p>Hypercare two weeks.</p>'
        "</ac:rich-text-body></ac:structured-macro>"
    )


# (object id, current id or None, title, version, creator, modifier, created, modified, body, parent id)
PAGES = [
    ("1310731", "131073", "Project Charter", 1, MICHAEL, MICHAEL, "2026-03-23 15:05:00", "2026-03-23 15:05:00", charter(1), None),
    ("1310732", "131073", "Project Charter", 2, MICHAEL, MICHAEL, "2026-03-23 15:05:00", "2026-03-25 14:00:00", charter(2), None),
    ("131073", None, "Project Charter", 3, MICHAEL, MICHAEL, "2026-03-23 15:05:00", "2026-06-10 20:30:00", charter(3), None),
    ("1310741", "131074", "Data Migration Plan", 1, MICHAEL, MICHAEL, "2026-04-01 13:00:00", "2026-04-01 13:00:00", migration(1), "131073"),
    ("1310742", "131074", "Data Migration Plan", 2, MICHAEL, MICHAEL, "2026-04-01 13:00:00", "2026-05-08 15:20:00", migration(2), "131073"),
    ("131074", None, "Data Migration Plan", 3, MICHAEL, MICHAEL, "2026-04-01 13:00:00", "2026-06-26 17:45:00", migration(3), "131073"),
    ("1310751", "131075", "Go-Live Runbook", 1, MICHAEL, MICHAEL, "2026-05-21 14:10:00", "2026-05-21 14:10:00", runbook(1), "131073"),
    ("131075", None, "Go-Live Runbook", 2, MICHAEL, MICHAEL, "2026-05-21 14:10:00", "2026-06-10 21:00:00", runbook(2), "131073"),
    ("131076", None, "Commercial terms (restricted)", 1, SARAH, SARAH, "2026-05-07 18:00:00", "2026-05-07 18:00:00",
     "<p>Revised quote Q-2026-0142-R2: USD 94,800. Internal margin notes.</p>", None),
]
# (id, page id, author, created, body, inline?, selection)
COMMENTS = [
    ("131101", "131073", DANA, "2026-03-24 14:30:00",
     f"<p>Looks good. Please list {mention(PRIYA)} as the data owner for the warehouse migration.</p>", False, None),
    ("131102", "131074", PRIYA, "2026-05-08 16:05:00",
     "<p>Recent three years first works for us.</p>", True, "recent three years first"),
    ("131103", "131075", DANA, "2026-06-31 10:00:00", "<p>Thanks!</p>", False, None),   # broken: 31 June
]
ATTACHMENTS = [("131201", "131074", "reconciliation-report.pdf", "application/pdf", 48213, "2026-06-26 17:40:00")]
LABELS = [("131301", "charter"), ("131302", "migration"), ("131303", "runbook")]
LABELLINGS = [("131073", "131301"), ("131074", "131302"), ("131075", "131303")]


def prop(name: str, value: str) -> str:
    value = value.replace("]]>", "]]]]><![CDATA[>")          # how Confluence nests CDATA
    return f'<property name="{name}"><![CDATA[{value}]]></property>'


def ref(name: str, cls: str, ident: str, package: str = "com.atlassian.confluence.pages", id_name: str = "id") -> str:
    return f'<property name="{name}" class="{cls}" package="{package}"><id name="{id_name}">{ident}</id></property>'


def user_ref(name: str, key: str) -> str:
    return ref(name, "ConfluenceUserImpl", key, "com.atlassian.confluence.user", "key")


def entities_xml() -> str:
    out = ['<?xml version="1.0" encoding="UTF-8"?>', '<hibernate-generic datetime="2026-07-01 00:00:00">']
    out.append(f'<object class="Space" package="com.atlassian.confluence.spaces"><id name="id">{SPACE_ID}</id>'
               f'{prop("name", SPACE_NAME)}{prop("key", SPACE_KEY)}</object>')
    for key, (username, display, email) in USERS.items():
        out.append(f'<object class="ConfluenceUserImpl" package="com.atlassian.confluence.user"><id name="key">{key}</id>'
                   f'{prop("name", username)}{prop("lowerName", username)}{prop("email", email)}</object>')
        out.append(f'<object class="InternalUser" package="com.atlassian.crowd.model.user"><id name="id">{key[-4:]}</id>'
                   f'{prop("name", username)}{prop("displayName", display)}{prop("emailAddress", email)}</object>')
    for oid, current, title, version, creator, modifier, created, modified, body, parent in PAGES:
        parts = [f'<object class="Page" package="com.atlassian.confluence.pages"><id name="id">{oid}</id>',
                 prop("title", title), f'<property name="version">{version}</property>',
                 user_ref("creator", creator), prop("creationDate", created + ".000"),
                 user_ref("lastModifier", modifier), prop("lastModificationDate", modified + ".000"),
                 prop("contentStatus", "historical" if current else "current"),
                 ref("space", "Space", SPACE_ID, "com.atlassian.confluence.spaces")]
        if current:
            parts.append(ref("originalVersion", "Page", current))
        if parent:
            parts.append(ref("parent", "Page", parent))
        parts.append("</object>")
        out.append("".join(parts))
        out.append(f'<object class="BodyContent" package="com.atlassian.confluence.core"><id name="id">9{oid}</id>'
                   f'{prop("body", body)}{ref("content", "Page", oid)}<property name="bodyType">2</property></object>')
    for cid, page, author, created, body, inline, selection in COMMENTS:
        out.append(f'<object class="Comment" package="com.atlassian.confluence.pages"><id name="id">{cid}</id>'
                   f'<property name="version">1</property>{user_ref("creator", author)}'
                   f'{prop("creationDate", created + ".000")}{user_ref("lastModifier", author)}'
                   f'{prop("lastModificationDate", created + ".000")}{prop("contentStatus", "current")}'
                   f'{ref("containerContent", "Page", page)}</object>')
        out.append(f'<object class="BodyContent" package="com.atlassian.confluence.core"><id name="id">9{cid}</id>'
                   f'{prop("body", body)}{ref("content", "Comment", cid)}<property name="bodyType">2</property></object>')
        if inline:
            for i, (name, value) in enumerate((("inline-comment", "true"), ("inline-original-selection", selection))):
                out.append(f'<object class="ContentProperty" package="com.atlassian.confluence.content">'
                           f'<id name="id">8{cid}{i}</id>{prop("name", name)}{prop("stringValue", value)}'
                           f'{ref("content", "Comment", cid)}</object>')
    for aid, page, name, media, size, created in ATTACHMENTS:
        out.append(f'<object class="Attachment" package="com.atlassian.confluence.pages"><id name="id">{aid}</id>'
                   f'{prop("title", name)}<property name="version">1</property>{prop("creationDate", created + ".000")}'
                   f'{prop("contentStatus", "current")}{ref("containerContent", "Page", page)}</object>')
        for i, (pname, kind, value) in enumerate((("MEDIA_TYPE", "stringValue", media), ("FILESIZE", "longValue", str(size)))):
            out.append(f'<object class="ContentProperty" package="com.atlassian.confluence.content">'
                       f'<id name="id">7{aid}{i}</id>{prop("name", pname)}{prop(kind, value)}'
                       f'{ref("content", "Attachment", aid)}</object>')
    for lid, name in LABELS:
        out.append(f'<object class="Label" package="com.atlassian.confluence.labels"><id name="id">{lid}</id>'
                   f'{prop("name", name)}{prop("namespace", "global")}</object>')
    for i, (page, lid) in enumerate(LABELLINGS):
        out.append(f'<object class="Labelling" package="com.atlassian.confluence.labels"><id name="id">6{i}</id>'
                   f'{ref("label", "Label", lid, "com.atlassian.confluence.labels")}{ref("content", "Page", page)}</object>')
    out.append('<object class="ContentPermissionSet" package="com.atlassian.confluence.security"><id name="id">5001</id>'
               f'{prop("type", "View")}{ref("owningContent", "Page", "131076")}</object>')
    for i, key in enumerate((SARAH, TOM)):
        out.append(f'<object class="ContentPermission" package="com.atlassian.confluence.security"><id name="id">500{i + 2}</id>'
                   f'{prop("type", "View")}{user_ref("userSubject", key)}'
                   f'{ref("owningSet", "ContentPermissionSet", "5001", "com.atlassian.confluence.security")}</object>')
    out.append("</hibernate-generic>")
    return "\n".join(out) + "\n"


DESCRIPTOR = ("#Thu Jul 01 00:00:00 UTC 2026\nexportType=space\nspaceKey=ACME\nbackupAttachments=false\n"
              "createdByBuildNumber=8804\nsource=server\n")


def _zip(members: list[tuple[str, bytes]]) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_STORED) as archive:
        for name, data in members:
            info = zipfile.ZipInfo(name, ZIP_DATE)
            info.external_attr = 0o644 << 16
            archive.writestr(info, data)
    return buf.getvalue()


def xml_export() -> bytes:
    return _zip([("entities.xml", entities_xml().encode("utf-8")), ("exportDescriptor.properties", DESCRIPTOR.encode())])


def html_page(page_id: str, title: str, body: str, author: str, editor: str, day: str, crumbs: list[tuple[str, str]],
              attachments: list[tuple[str, str, str]] = ()) -> bytes:
    crumb_html = '<li class="first"><span><a href="index.html">Acme Data Platform</a></span></li>' + "".join(
        f'<li><span><a href="{escape(f)}">{escape(t)}</a></span></li>' for f, t in crumbs)
    att_html = ""
    if attachments:
        att_html = ('<div class="pageSection group"><div class="pageSectionHeader"><h2 id="attachments" '
                    'class="pageSectionTitle">Attachments:</h2></div><div class="greybox" align="left">' + "".join(
                        f'<img src="images/icons/bullet_blue.gif" height="8" width="8" alt=""/><a href="{href}">{escape(n)}</a> ({m})<br/>'
                        for href, n, m in attachments) + "</div></div>")
    return (f'<!DOCTYPE html><html><head><title>{SPACE_NAME} : {escape(title)}</title><meta charset="UTF-8"></head><body>'
            f'<div id="page"><div id="main" class="aui-page-panel"><div id="main-header"><div id="breadcrumb-section">'
            f'<ol id="breadcrumbs">{crumb_html}</ol></div><h1 id="title-heading" class="pagetitle">'
            f'<span id="title-text">{SPACE_NAME} : {escape(title)}</span></h1></div><div id="content" class="view">'
            f"<div class=\"page-metadata\">Created by <span class='author'> {author}</span>, last modified by "
            f"<span class='editor'> {editor}</span> on {day}</div>"
            f'<div id="main-content" class="wiki-content group">{body}</div>{att_html}</div></div></div></body></html>'
            ).encode("utf-8")


def write_html_export(path: Path) -> Path:
    """HTML space export of ACME (current versions only): what Confluence's 'Export space > HTML' writes."""
    charter_html = ("<table class=\"confluenceTable\"><tbody><tr><th>Owner</th><td>Priya Raman</td></tr></tbody></table>"
                    "<h1>Acme data platform rollout</h1><p>Go-live target: <strong>2026-07-15</strong>.</p>"
                    "<ul><li>Migration of the legacy Oracle warehouse (14 TB, ACME-12)</li></ul>"
                    '<p>Details: <a href="Data-Migration-Plan_131074.html">Data Migration Plan</a></p>')
    members = [
        ("ACME/index.html", b"<html><head><title>Acme Data Platform</title></head><body><p>Space index</p></body></html>"),
        ("ACME/Project-Charter_131073.html", html_page("131073", "Project Charter", charter_html, "Michael Chen",
                                                       "Michael Chen", "Jun 10, 2026", [])),
        ("ACME/Data-Migration-Plan_131074.html", html_page(
            "131074", "Data Migration Plan", "<h1>Data Migration Plan</h1><table><tr><td>Oracle warehouse</td>"
            "<td>14 TB</td></tr></table><pre>SELECT 1;</pre>", "Michael Chen", "Michael Chen", "Jun 26, 2026",
            [("Project-Charter_131073.html", "Project Charter")],
            [("attachments/131074/131201.pdf", "reconciliation-report.pdf", "application/pdf")])),
        ("ACME/131075.html", html_page("131075", "Go-Live Runbook", "<p>Cutover 2026-07-11/12.</p>", "Michael Chen",
                                       "Michael Chen", "Jun 10, 2026", [("Project-Charter_131073.html", "Project Charter")])),
        ("ACME/Broken-Page_131077.html", b"<html><body><p>Saved from a browser: no Confluence page structure</p></body></html>"),
        ("ACME/attachments/131074/131201.pdf", b"%PDF-1.4\n%%EOF\n"),
    ]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(_zip(members))
    return path


def write(out: Path) -> list[Path]:
    folder = out / "exports" / "confluence"
    folder.mkdir(parents=True, exist_ok=True)
    full = xml_export()
    files = [(folder / "ACME-xml-export.zip", full),
             (folder / "ACME-xml-export-2026-06-30.zip", full[: len(full) // 3])]   # a download cut off mid-file
    for path, data in files:
        path.write_bytes(data)
    return [p for p, _ in files]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path(__file__).resolve().parent)
    args = parser.parse_args()
    for path in write(args.out):
        print(path)


if __name__ == "__main__":
    main()
