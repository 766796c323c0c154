"""Confluence HTML space export (zip of rendered pages) -> ContentVersion.

The HTML export holds only the current version, people by display name (no email), the day of the last change
(no time) and page ids in file names (`Title_131073.html` or `131073.html`). The version is therefore keyed as
`html-<YYYYMMDD>` so it never collides with a real version number read from the API or the XML export.
"""

import datetime as dt
import re

from bs4 import BeautifulSoup

from connectors.confluence.identity import ConfluenceUser
from connectors.confluence.records import AttachmentInfo, ContentVersion

PAGE_FILE = re.compile(r"(?:^|[_/])(\d{3,})\.html$")
_MODIFIED = re.compile(r"on\s+([A-Z][a-z]{2})\s+(\d{1,2}),\s+(\d{4})")
_MONTHS = {
    m: i for i, m in enumerate(("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"), 1)
}


class HtmlExportError(ValueError):
    pass


def page_id_from_name(name: str) -> str | None:
    match = PAGE_FILE.search(name)
    return match.group(1) if match else None


def _user(name: str) -> ConfluenceUser | None:
    name = " ".join(name.split())
    return ConfluenceUser(key=f"name:{name}", name=name) if name else None


def page_from_html(data: bytes, name: str, space_hint: str | None = None) -> tuple[ContentVersion, int]:
    """One exported page -> (ContentVersion, html version key date as int). Raises HtmlExportError."""
    page_id = page_id_from_name(name)
    if page_id is None:
        raise HtmlExportError("file name carries no page id (expected Title_<id>.html or <id>.html)")
    soup = BeautifulSoup(data, "lxml")
    main = soup.find(id="main-content")
    if main is None:
        raise HtmlExportError("no main-content block: not a page of a Confluence HTML export")
    heading = soup.find(id="title-text")
    full_title = " ".join((heading.get_text() if heading else (soup.title.string if soup.title else "") or "").split())
    space_name, _, title = full_title.partition(" : ")
    if not title:
        title, space_name = space_name, ""
    meta = soup.find(class_="page-metadata")
    meta_text = " ".join(meta.get_text(" ").split()) if meta else ""
    author = _user(meta.find(class_="author").get_text()) if meta and meta.find(class_="author") else None
    editor = _user(meta.find(class_="editor").get_text()) if meta and meta.find(class_="editor") else author
    match = _MODIFIED.search(meta_text)
    if not match or match.group(1) not in _MONTHS:
        raise HtmlExportError(f"page metadata {meta_text[:120]!r} names no 'on <Mon> <d>, <yyyy>' change date")
    day = dt.datetime(int(match.group(3)), _MONTHS[match.group(1)], int(match.group(2)), tzinfo=dt.UTC)

    crumbs = soup.find(id="breadcrumbs")
    ancestors = []
    if crumbs is not None:
        for link in crumbs.find_all("a"):
            ident = page_id_from_name(link.get("href") or "")
            if ident and ident != page_id:
                ancestors.append((ident, " ".join(link.get_text().split())))

    for link in main.find_all("a"):  # page links -> storage-style links the converter turns into references
        ident = page_id_from_name(link.get("href") or "")
        if ident:
            link.name = "ac:link"
            label = link.get_text()
            link.clear()
            ref = soup.new_tag("ri:page")
            ref["ri:content-id"] = ident
            body = soup.new_tag("ac:plain-text-link-body")
            body.string = label
            link.attrs = {}
            link.append(ref)
            link.append(body)
        elif (link.get("href") or "").startswith("attachments/"):
            link["href"] = "#"
    attachments = []
    section = soup.find(id="attachments")
    box = section.find_parent(class_="pageSection") if section else None
    if box is not None:
        for link in box.find_all("a"):
            href = link.get("href") or ""
            if href.startswith("attachments/"):
                tail = link.next_sibling
                media = None
                if isinstance(tail, str) and "(" in tail:
                    media = tail.strip().strip("()").strip() or None
                attachments.append(
                    AttachmentInfo(
                        name=" ".join(link.get_text().split()),
                        id=href.rsplit("/", 1)[-1].split(".")[0] or None,
                        media_type=media,
                    )
                )
    storage = main.decode_contents()
    version = ContentVersion(
        id=page_id,
        type="page",
        title=title,
        version=0,
        version_key=f"html-{day:%Y%m%d}",
        created_at=None,
        version_at=day,
        author=author,
        editor=editor,
        space_key=space_hint,
        space_name=space_name or None,
        ancestors=ancestors,
        storage=storage,
        attachments=attachments,
    )
    return version, int(day.strftime("%Y%m%d"))
