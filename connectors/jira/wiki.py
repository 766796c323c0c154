"""Jira wiki markup (Server/DC v2 bodies, CSV and XML exports) -> plain text that keeps structure.

Same conventions as connectors/atlassian/adf.py so both kinds of Jira text read alike: '#' headings, '- ' / '1. ' lists with
nesting, '> ' quotes, fenced code, pipe tables, link text with its target, @user mentions, attachment references.
Line-based and regex-only: unknown macros lose their braces and keep their text; nothing raises.
"""

import re

_BLOCK_MACRO = re.compile(
    r"(?<!\{)\{(code|noformat|quote|panel|color|section|column|expand|info|note|tip|warning)(?::([^}]{0,1000}))?\}(?!\})",
    re.IGNORECASE,
)
_HEADING = re.compile(r"^\s*h([1-6])\.\s+(.*)$")
_BQ = re.compile(r"^\s*bq\.\s+(.*)$")
_LIST = re.compile(r"^\s*([*#-]+)\s+(.*)$")
_TABLE_HEADER = re.compile(r"^\s*\|\|(.*)\|\|\s*$")
_TABLE_ROW = re.compile(r"^\s*\|(.*)\|\s*$")
_RULE = re.compile(r"^\s*-{4,}\s*$")

# Inline spans are bounded ({0,1000}): an opening mark with no close was otherwise rescanned to the end of its line
# from every later opening, quadratic in the line's length (4 s for 10k characters of "{").
_LINK = re.compile(r"\[([^\[\]|]{0,1000}?)\|([^\[\]]{1,1000}?)\]|\[([^\[\]\s|][^\[\]|]{0,1000}?)\]")
_IMAGE = re.compile(r"!([^!\s|][^!|\n]{0,1000}?)(?:\|[^!\n]{0,1000})?!")
_MONO = re.compile(r"\{\{(.{1,1000}?)\}\}")
_STRONG = re.compile(r"(?<![\w*])\*(?=\S)([^*\n]{1,1000}?)(?<=\S)\*(?![\w*])")
_EMPH = re.compile(r"(?<![\w_])_(?=\S)([^_\n]{1,1000}?)(?<=\S)_(?![\w_])")
_INS = re.compile(r"(?<![\w+])\+(?=\S)([^+\n]{1,1000}?)(?<=\S)\+(?![\w+])")
_CITE = re.compile(r"\?\?(.{1,1000}?)\?\?")
_INLINE_MACRO = re.compile(r"\{(color|anchor|span)(?::[^}]{0,1000})?\}", re.IGNORECASE)
_EMOTICONS = {
    ":)": "🙂",
    ":(": "🙁",
    ":D": "😀",
    ";)": "😉",
    "(y)": "👍",
    "(n)": "👎",
    "(/)": "✅",
    "(x)": "❌",
    "(!)": "⚠️",
    "(i)": "ℹ️",
}

PANEL_MACROS = {"panel": "Panel", "info": "Info", "note": "Note", "tip": "Tip", "warning": "Warning"}


def wiki_to_text(markup: str | None) -> str:
    if not markup:
        return ""
    text = str(markup).replace("\r\n", "\n").replace("\r", "\n")
    out: list[str] = []
    mode: str | None = None  # code/noformat: verbatim; quote/panel: prefixed
    prefix = ""
    for raw in text.split("\n"):
        if mode in ("code", "noformat"):
            end = re.search(r"\{" + mode + r"\}", raw, re.IGNORECASE)
            if end:
                if raw[: end.start()]:
                    out.append(raw[: end.start()])
                out.append("```")
                mode = None
                rest = raw[end.end() :]
                if rest.strip():
                    out.append(_line(rest))
            else:
                out.append(raw)
            continue
        line = raw
        opened = _BLOCK_MACRO.search(line)
        if opened and opened.group(1).lower() in ("code", "noformat"):
            before = line[: opened.start()]
            if before.strip():
                out.append(prefix + _line(before))
            name = opened.group(1).lower()
            params = opened.group(2) or ""
            language = params.split("|")[0] if name == "code" and "=" not in params.split("|")[0] else ""
            out.append(prefix + f"```{language}")
            after = line[opened.end() :]
            close = re.search(r"\{" + name + r"\}", after, re.IGNORECASE)
            if close:  # {code}x{code} on one line
                out.append(after[: close.start()])
                out.append("```")
                if after[close.end() :].strip():
                    out.append(_line(after[close.end() :]))
            else:
                mode = name
                if after.strip():
                    out.append(after)
            continue
        # quote / panel toggles (the same tag opens and closes): text between tags takes the prefix in force
        pos = 0
        emitted = False
        for match in list(_BLOCK_MACRO.finditer(line)):
            name = match.group(1).lower()
            if name not in PANEL_MACROS and name != "quote":
                continue
            segment = line[pos : match.start()]
            if segment.strip():
                out.append(_shown(prefix) + _block_line(segment))
            pos = match.end()
            emitted = True
            if name == "quote":
                prefix = "" if prefix == "> " else "> "
            elif prefix.startswith("["):
                prefix = ""
            else:
                title = re.search(r"title=([^|}]*)", match.group(2) or "")
                out.append(f"[{PANEL_MACROS[name]}" + (f": {title.group(1).strip()}]" if title else "]"))
                prefix = "[  "
        rest = line[pos:] if emitted else line
        if emitted and not rest.strip():
            continue
        out.append(_shown(prefix) + _block_line(rest))
    if mode:
        out.append("```")  # unclosed {code}: close it so the text stays readable
    return _tidy("\n".join(out))


def _shown(prefix: str) -> str:
    return "  " if prefix.startswith("[") else prefix


def _block_line(line: str) -> str:
    if m := _HEADING.match(line):
        return "#" * int(m.group(1)) + " " + _line(m.group(2))
    if m := _BQ.match(line):
        return "> " + _line(m.group(1))
    if _RULE.match(line):
        return "---"
    if m := _TABLE_HEADER.match(line):
        cells = [_line(c).strip() for c in m.group(1).split("||")]
        return "| " + " | ".join(cells) + " |\n|" + "---|" * len(cells)
    if m := _TABLE_ROW.match(line):
        cells = [_line(c).strip() for c in _split_cells(m.group(1))]
        return "| " + " | ".join(cells) + " |"
    if m := _LIST.match(line):
        markers = m.group(1)
        if not (markers.startswith("-") and len(markers) > 1):
            depth = len(markers) - 1
            bullet = "1. " if markers[-1] == "#" else "- "
            return "  " * depth + bullet + _line(m.group(2))
    return _line(line)


def _split_cells(row: str) -> list[str]:
    """Cells split on '|' but not inside [text|url] links."""
    cells, depth, current = [], 0, []
    for ch in row:
        if ch == "[":
            depth += 1
        elif ch == "]" and depth:
            depth -= 1
        if ch == "|" and depth == 0:
            cells.append("".join(current))
            current = []
        else:
            current.append(ch)
    cells.append("".join(current))
    return cells


def _link(match: re.Match) -> str:
    if match.group(3) is not None:
        target = match.group(3).strip()
        label = ""
    else:
        label, target = match.group(1).strip(), match.group(2).strip()
    if target.startswith("~"):
        user = target[1:]
        if user.lower().startswith("accountid:"):
            user = user.split(":", 1)[1]
        return f"@{label or user}" + (f" ({user})" if label and label != user else "")
    if target.startswith("^"):
        return f"[attachment: {target[1:]}]"
    if target.startswith("#"):
        return label or target[1:]
    if label and label != target:
        return f"{label} ({target})"
    return target


def _link_in(match: re.Match) -> str:
    """A bare ``[x]`` glued to a word (``children[0]``, ``assertiond[65]``) is an index in code, not a link: kept as
    written. A mention glued to the next word keeps a space, so both stay words."""
    text, start, end = match.string, match.start(), match.end()
    bare = match.group(3) is not None and not match.group(3).startswith(("~", "^", "#", "http", "mailto:"))
    if bare and start and (text[start - 1].isalnum() or text[start - 1] in "_."):
        return match.group(0)
    shown = _link(match)
    if shown.startswith("@") and end < len(text) and text[end].isalnum():
        shown += " "
    return shown


def _line(text: str) -> str:
    text = _MONO.sub(lambda m: f"`{m.group(1)}`", text)
    text = _LINK.sub(_link_in, text)
    text = _IMAGE.sub(lambda m: f"[attachment: {m.group(1).strip()}]", text)
    text = _INLINE_MACRO.sub("", text)
    text = _STRONG.sub(r"\1", text)
    text = _EMPH.sub(r"\1", text)
    text = _INS.sub(r"\1", text)
    text = _CITE.sub(r"-- \1", text)
    for code, emoji in _EMOTICONS.items():
        text = text.replace(code, emoji)
    return text.replace("\\\\", "\n").replace("&nbsp;", " ")


def _tidy(text: str) -> str:
    text = re.sub(r"[ \t]+\n", "\n", text)
    text = re.sub(r"\n{3,}", "\n\n", text)
    return text.strip()
