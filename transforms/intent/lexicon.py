"""Cue lexicon: maps paraphrases to concept tokens ("postpone", "verschieben", "推迟" -> RESCHEDULE).

Bag-of-words models only know the words they saw in training; the lexicon lets the textcat
learn one weight per *concept* and apply it to any paraphrase listed here. The lexicon is data
(data/intent/cues.json). Matching runs over word tokens with dict lookups (regex alternations
with look-arounds cost ~2 ms per record), CJK entries by substring search.
"""

import json
import re
from dataclasses import dataclass, field
from pathlib import Path

NEG = "NEG"
# English entries also apply to de/zh text: enterprise DE/ZH mail is full of English loanwords.
EXTRA_LANGS = {"de": ("en",), "zh": ("en",)}
FALLBACK_LANG = "en"
_CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")
_TOKEN = re.compile(r"[^\W_]+(?:'[^\W_]+)*'?|[%?？]")
_WORDLIKE = re.compile(r"^[\w' \-*~%?]+$")
GAP = "~"


class LexiconError(ValueError):
    pass


@dataclass(frozen=True)
class CueMatch:
    concept: str
    start: int
    end: int
    entry: str = ""


@dataclass
class _Compiled:
    """Per-language lookup tables built from the entries."""

    exact: dict = field(default_factory=dict)  # word -> [(concept, entry)]
    prefix: dict = field(default_factory=dict)  # stem -> [(concept, entry)]
    suffix: list = field(default_factory=list)  # [(suffix, concept, entry)]
    multi: dict = field(default_factory=dict)  # first word -> [(elements, concept, entry)]
    multi_prefix: dict = field(default_factory=dict)  # first stem -> [(elements, concept, entry)]
    literal: list = field(default_factory=list)  # [(substring, concept, entry)]  (CJK)
    regex: list = field(default_factory=list)  # [(pattern, concept, entry)]


def _words(entry: str) -> list[str]:
    return [w for w in re.split(r"[\s\-]+", entry.strip().lower()) if w]


def _add(table: dict, key: str, value) -> None:
    table.setdefault(key, []).append(value)


def _compile_entry(c: _Compiled, concept: str, entry: str, lang: str) -> None:
    if entry.startswith("re:"):
        c.regex.append((re.compile(entry[3:], re.IGNORECASE), concept, entry))
    elif lang == "zh" or _CJK.search(entry):
        c.literal.append((entry.lower(), concept, entry))
    elif not _WORDLIKE.match(entry):
        c.regex.append((re.compile(re.escape(entry), re.IGNORECASE), concept, entry))
    else:
        words = _words(entry)
        if len(words) == 1:
            w = words[0]
            if w.startswith("*"):
                c.suffix.append((w[1:], concept, entry))
            elif w.endswith("*"):
                _add(c.prefix, w[:-1], (concept, entry))
            else:
                _add(c.exact, w, (concept, entry))
        else:
            first = words[0]
            item = (words[1:], concept, entry)
            if first.endswith("*"):
                _add(c.multi_prefix, first[:-1], item)
            else:
                _add(c.multi, first, item)


def _word_ok(pattern: str, token: str) -> bool:
    return token.startswith(pattern[:-1]) if pattern.endswith("*") else token == pattern


def _match_rest(elements: list[str], toks: list, i: int) -> int:
    """Index of the last token matched by `elements` starting at toks[i], or -1."""
    if not elements:
        return i - 1
    head, rest = elements[0], elements[1:]
    if head == GAP:
        for skip in range(0, 4):
            end = _match_rest(rest, toks, i + skip)
            if end >= 0:
                return end
        return -1
    if i < len(toks) and _word_ok(head, toks[i][0]):
        return _match_rest(rest, toks, i + 1)
    return -1


@dataclass
class Lexicon:
    """Compiled cue lexicon. `source` is the parsed JSON, kept so the model can save it verbatim."""

    source: dict
    tables: dict[str, _Compiled] = field(default_factory=dict)
    negation_window: dict[str, int] = field(default_factory=dict)

    @classmethod
    def from_dict(cls, data: dict, origin: str = "<lexicon>") -> "Lexicon":
        concepts = data.get("concepts")
        if not isinstance(concepts, dict) or not concepts:
            raise LexiconError(f"{origin}: a cue lexicon needs a non-empty 'concepts' object")
        tables: dict[str, _Compiled] = {}
        for concept, by_lang in concepts.items():
            if not isinstance(by_lang, dict):
                raise LexiconError(f"{origin}: concept {concept!r} must map languages to lists of entries")
            for lang, entries in by_lang.items():
                table = tables.setdefault(lang, _Compiled())
                for entry in entries:
                    if not isinstance(entry, str) or not entry.strip():
                        raise LexiconError(f"{origin}: concept {concept!r} ({lang}) has an empty or non-text entry")
                    try:
                        _compile_entry(table, concept, entry, lang)
                    except re.error as exc:
                        raise LexiconError(f"{origin}: concept {concept!r} ({lang}) entry {entry!r}: {exc}") from exc
        window = {k: int(v) for k, v in data.get("negation_window", {}).items()}
        return cls(source=data, tables=tables, negation_window=window)

    @classmethod
    def from_path(cls, path: Path) -> "Lexicon":
        path = Path(path)
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError) as exc:
            raise LexiconError(f"{path}: cannot read cue lexicon: {exc}") from exc
        return cls.from_dict(data, origin=str(path))

    def matches(self, text: str, lang: str) -> list[CueMatch]:
        text = text.replace("\u2019", "'")
        low = text.lower()
        toks = [(m.group(), m.start(), m.end()) for m in _TOKEN.finditer(low)]
        langs = (lang, *EXTRA_LANGS.get(lang, ())) if lang in self.tables else (FALLBACK_LANG,)
        found: list[CueMatch] = []
        for lg in dict.fromkeys(langs):
            t = self.tables.get(lg)
            if t is None:
                continue
            for i, (tok, s, e) in enumerate(toks):
                for concept, entry in t.exact.get(tok, ()):
                    found.append(CueMatch(concept, s, e, entry))
                for k in range(1, len(tok) + 1):
                    stem = tok[:k]
                    for concept, entry in t.prefix.get(stem, ()):
                        found.append(CueMatch(concept, s, e, entry))
                    for rest, concept, entry in t.multi_prefix.get(stem, ()):
                        end = _match_rest(rest, toks, i + 1)
                        if end >= 0:
                            found.append(CueMatch(concept, s, toks[end][2], entry))
                for suf, concept, entry in t.suffix:
                    if tok.endswith(suf) and tok != suf:
                        found.append(CueMatch(concept, s, e, entry))
                for rest, concept, entry in t.multi.get(tok, ()):
                    end = _match_rest(rest, toks, i + 1)
                    if end >= 0:
                        found.append(CueMatch(concept, s, toks[end][2], entry))
            for lit, concept, entry in t.literal:
                pos = low.find(lit)
                while pos >= 0:
                    found.append(CueMatch(concept, pos, pos + len(lit), entry))
                    pos = low.find(lit, pos + 1)
            for rx, concept, entry in t.regex:
                found.extend(
                    CueMatch(concept, m.start(), m.end(), entry) for m in rx.finditer(text) if m.end() > m.start()
                )
        return found

    def concepts(self, text: str, lang: str) -> list[str]:
        """Concept tokens for a text; a concept right after a negation becomes NOT_<concept>."""
        found = self.matches(text, lang)
        negs = [m for m in found if m.concept == NEG]
        window = self.negation_window.get(lang, 14)
        out: set[str] = set()
        for m in found:
            if m.concept == NEG:
                continue
            negated = any(n.end <= m.start and m.start - n.end <= window for n in negs)
            out.add(f"NOT_{m.concept}" if negated else m.concept)
        if negs:
            out.add(NEG)
        return sorted(out)


def attested_subset(data: dict, texts: list[tuple[str, str]]) -> tuple[dict, int, int]:
    """Copy of a lexicon keeping only entries that match at least one of the (text, lang) pairs.

    Used by the bench as a leakage check: a lexicon restricted to what the *training* texts
    contain cannot have been fitted to held-out phrasings. Returns (subset, kept, total).
    """
    lex = Lexicon.from_dict(data)
    hit: set[tuple[str, str]] = set()
    for text, lang in texts:
        hit.update((m.concept, m.entry) for m in lex.matches(text, lang))
    kept = total = 0
    out = {k: v for k, v in data.items() if k != "concepts"}
    out["concepts"] = {}
    for concept, by_lang in data["concepts"].items():
        out["concepts"][concept] = {}
        for lang, entries in by_lang.items():
            keep = [e for e in entries if (concept, e) in hit]
            total += len(entries)
            kept += len(keep)
            out["concepts"][concept][lang] = keep
    return out, kept, total
