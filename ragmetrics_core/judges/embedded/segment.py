"""Sentence splitting for English, Russian and Chinese.

A period ends a sentence only when it is followed by whitespace and an upper-case letter, digit, opening quote
or CJK character, and the word before it is not a known abbreviation or an initial; "3.14" and "1,5" never
split because no whitespace follows the separator. Chinese ``。！？；`` always end a sentence, closing quotes
and brackets stay with the sentence they close. Newlines end a sentence when the line before ends with
punctuation or the next line starts a list item. A quotation closed without a period before a capitalised word
ends a sentence too (headlines joined without their periods: "… as 'unreasonable' One parent said …").
"""

from __future__ import annotations

import re
from itertools import islice

from ragmetrics_core.judges.embedded import lexicon
from ragmetrics_core.judges.embedded.memo import text_cache
from ragmetrics_core.judges.embedded.scan import matches_at, searcher
from ragmetrics_core.judges.embedded.tokens import prepare

MAX_SENTENCES = 4000
"""Sentences kept per text; the rest of a huge text is ignored (documented cap)."""

_CLOSERS = "\"'»”’)\\]」』）】"
# A boundary starts at the first mark of a run (the look-behinds): tried inside a long run of marks that no space
# follows ("....", "……"), each position would rescan the rest of the run, quadratic in its length.
BOUNDARY_RE = re.compile(
    rf"((?<![.!?…])[.!?…]+[{_CLOSERS}]*)(\s+)|((?<![。！？；!?;])[。！？；!?;]+[{_CLOSERS}]*)\s*"
)
_MARK_RE = re.compile("[.!?…。！？；;]")
"""Where a boundary can start: ``re`` scans for one character class quickly, but tries the two-branch pattern at
every position."""
_MARKS_BUT_PERIOD = "!?…。！？；;"
"""The characters of ``_MARK_RE`` other than the period: a paragraph without them has boundaries at periods only."""
_ASCII_MARKS_BUT_PERIOD = "".join(mark for mark in _MARKS_BUT_PERIOD if mark.isascii())
_OPENERS = "\"'«“‘([「『（【"
_LIST_ITEM_RE = re.compile(r"^\s*(?:[-*•·–—]|\d{1,3}[.)]|[a-zA-Zа-яА-Я][.)])\s+")
_LINE_END_RE = re.compile(rf"[.!?:;…。！？；：][{_CLOSERS}]*\s*$")
_INITIALS_RE = re.compile(r"(?:[^\W\d_]\.)*[^\W\d_]")
_QUOTE_END_RE = re.compile(r"""(['"”’])(?<![\s,.!?]['"”’])\s+[A-Z][a-z]""")
"""A quotation closed without a period before a capitalised word ("… as 'unreasonable' One parent said …"): news
highlights and bullet lists joined without their periods. It ends a sentence when its opening quote follows a space
(or starts the piece): an apostrophe ("the players' Union") opens nothing."""
_OPENING_QUOTE = {"'": "'", '"': '"', "”": "“", "’": "‘"}
_MAX_QUOTATION = 300
"""Characters looked back for the opening quote (a headline's quotation is short)."""


def sentences(text: str) -> list[str]:
    """Split ``text`` into sentences (at most :data:`MAX_SENTENCES`)."""
    return list(_sentences(text))


@text_cache(maxsize=256, max_chars=50_000)
def _sentences(text: str) -> tuple[str, ...]:
    # Memoised: the claims, entities, questions and premise of one text all start from its sentences.
    stripped = (sentence.strip() for paragraph in _paragraphs(prepare(text)) for sentence in split_paragraph(paragraph))
    return tuple(islice(filter(None, stripped), MAX_SENTENCES))


def _paragraphs(text: str) -> list[str]:
    if "\n" not in text:
        return [text]
    paragraphs: list[str] = []
    current: list[str] = []
    in_item = False
    for line in text.splitlines():
        if not line.strip():
            if current:
                paragraphs.append(" ".join(current))
                current = []
            continue
        is_item = _LIST_ITEM_RE.match(line) is not None
        if current and (is_item or in_item or _LINE_END_RE.search(current[-1])):
            paragraphs.append(" ".join(current))
            current = []
        in_item = is_item
        current.append(_LIST_ITEM_RE.sub("", line, count=1).strip())
    if current:
        paragraphs.append(" ".join(current))
    return paragraphs


def split_paragraph(paragraph: str) -> list[str]:
    pieces: list[str] = []
    start = 0
    for match in boundaries(paragraph):
        closing = match.group(1)  # the period-like branch: only it needs a sentence check
        if closing:
            if not ends_sentence(paragraph, match.start(), closing, match.end()):
                continue
            pieces.append(paragraph[start : match.end(1)])
        else:
            pieces.append(paragraph[start : match.end(3)])
        start = match.end()
    pieces.append(paragraph[start:])
    if _QUOTE_END_RE.search(paragraph) is not None:
        return [part for piece in pieces for part in _split_after_quotes(piece)]
    return pieces


def _split_after_quotes(piece: str) -> list[str]:
    parts: list[str] = []
    start = 0
    for match in _QUOTE_END_RE.finditer(piece):
        closing = match.start(1)
        reach = max(start, closing - _MAX_QUOTATION)  # bounded: linear on a text of quotes that close nothing
        opening = piece.rfind(_OPENING_QUOTE[match.group(1)], reach, closing)
        if opening < 0 or closing - opening <= 3 or (opening > 0 and not piece[opening - 1].isspace()):
            continue
        if match.group(1) == '"' and piece.count('"', reach, opening) % 2:
            continue  # that quote closes an earlier quotation: this one opens none
        parts.append(piece[start : closing + 1])
        start = closing + 1
    parts.append(piece[start:])
    return parts


def boundaries(paragraph: str) -> list[re.Match[str]]:
    """The matches of ``BOUNDARY_RE.finditer(paragraph)``, tried only where a mark is."""
    if any(map(paragraph.__contains__, _ASCII_MARKS_BUT_PERIOD if paragraph.isascii() else _MARKS_BUT_PERIOD)):
        return matches_at(BOUNDARY_RE, paragraph, _next_mark)
    # Periods only, the usual prose: ``str.find`` skips to them far faster than the regex scan.
    return matches_at(BOUNDARY_RE, paragraph, _next_period)


_next_mark = searcher(_MARK_RE)


def _next_period(paragraph: str, position: int) -> int:
    return paragraph.find(".", position)


def ends_sentence(paragraph: str, mark_at: int, mark: str, next_at: int) -> bool:
    if next_at >= len(paragraph):
        return True
    following = paragraph[next_at]
    lower_start = following.islower()
    if not (lower_start or following.isupper() or following.isdigit() or following in _OPENERS
            or _is_cjk(following)):
        return False
    if not mark.startswith("."):
        # "?" and "!" end a sentence even before a lower-case word (chat text is often lower-case).
        return True
    space = paragraph.rfind(" ", 0, mark_at)  # prepare() has made every no-break space a space (NFKC)
    token = paragraph[space + 1 : mark_at].lstrip("([\"'«“")
    if not token:
        return True
    abbreviation = token.casefold().rstrip(".")
    if abbreviation in lexicon.ABBREVIATIONS:
        return abbreviation in lexicon.SENTENCE_FINAL_ABBREVIATIONS and not lower_start
    if lower_start:
        # Before a lower-case word only a plain word followed by one period ends a sentence: not "...",
        # not an initial, not "e.g." or "U.S." (inner periods).
        return mark == "." and len(token) >= 2 and token.isalnum()
    # An initial ("J. Smith") or a run of them ("The A.V. Club", "J.R.R. Tolkien") before a name.
    return not (token.isupper() and _INITIALS_RE.fullmatch(token) is not None)


def _is_cjk(char: str) -> bool:
    return "\u3400" <= char <= "\u9fff" or "\u3040" <= char <= "\u30ff"


def language(text: str) -> str:
    """``zh``, ``ru`` or ``en`` by the script most letters are written in."""
    if text.isascii():
        return "en"
    cjk = cyrillic = latin = 0
    for char in text[:2000]:
        if _is_cjk(char):
            cjk += 1
        elif "\u0400" <= char <= "\u04ff":
            cyrillic += 1
        elif char.isascii() and char.isalpha():
            latin += 1
    if cjk and cjk * 2 >= cyrillic + latin:
        return "zh"
    if cyrillic > latin:
        return "ru"
    return "en"
