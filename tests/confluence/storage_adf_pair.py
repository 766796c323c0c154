"""One small page written twice, as storage XHTML and as ADF, and the one text both must convert to."""

STORAGE = (
    '<h2>Warehouse migration plan</h2><p>Cut-over on <time datetime="2026-07-15" /> is '
    '<ac:structured-macro ac:name="status"><ac:parameter ac:name="title">On track</ac:parameter>'
    '<ac:parameter ac:name="colour">Green</ac:parameter></ac:structured-macro>.</p>'
    "<ul><li><p>Freeze writes</p></li><li><p>Copy <strong>14 TB</strong></p></li></ul>"
    "<ol><li><p>Verify counts</p></li><li><p>Switch DNS</p></li></ol>"
    "<table><tbody><tr><th><p>System</p></th><th><p>Size</p></th></tr>"
    "<tr><td><p>Oracle warehouse</p></td><td><p>14 TB</p></td></tr></tbody></table>"
    '<p>See <a href="https://wiki.example/runbook">the runbook</a>.</p>'
)


def _text(t, marks=None):
    return {"type": "text", "text": t, **({"marks": marks} if marks else {})}


def _para(*content):
    return {"type": "paragraph", "content": list(content)}


def _cell(kind, t):
    return {"type": kind, "content": [_para(_text(t))]}


def _item(*content):
    return {"type": "listItem", "content": [_para(*content)]}


ADF = {
    "type": "doc",
    "version": 1,
    "content": [
        {"type": "heading", "attrs": {"level": 2}, "content": [_text("Warehouse migration plan")]},
        _para(
            _text("Cut-over on "),
            {"type": "date", "attrs": {"timestamp": "1784073600000"}},
            _text(" is "),
            {"type": "status", "attrs": {"text": "On track", "color": "green"}},
            _text("."),
        ),
        {
            "type": "bulletList",
            "content": [_item(_text("Freeze writes")), _item(_text("Copy "), _text("14 TB", [{"type": "strong"}]))],
        },
        {
            "type": "orderedList",
            "attrs": {"order": 1},
            "content": [_item(_text("Verify counts")), _item(_text("Switch DNS"))],
        },
        {
            "type": "table",
            "content": [
                {"type": "tableRow", "content": [_cell("tableHeader", "System"), _cell("tableHeader", "Size")]},
                {"type": "tableRow", "content": [_cell("tableCell", "Oracle warehouse"), _cell("tableCell", "14 TB")]},
            ],
        },
        _para(
            _text("See "),
            _text("the runbook", [{"type": "link", "attrs": {"href": "https://wiki.example/runbook"}}]),
            _text("."),
        ),
    ],
}

TEXT = """## Warehouse migration plan

Cut-over on 2026-07-15 is [ON TRACK].

- Freeze writes
- Copy 14 TB

1. Verify counts
2. Switch DNS

| System | Size |
|---|---|
| Oracle warehouse | 14 TB |

See the runbook (https://wiki.example/runbook)."""
