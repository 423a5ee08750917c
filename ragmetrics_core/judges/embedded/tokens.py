"""Text → tokens, and what each word token is (a function word, a negation cue, a number word, content).

:func:`prepare` normalises the writing (NFKC, ё → е, one apostrophe); :func:`tokens` splits prepared text into
``(kind, text, start, end)`` tokens; :func:`word_info` and :func:`known_word` say what a word is, with its term
key (stemmed, synonyms merged) and base weight.
"""

from __future__ import annotations

import re
import unicodedata

from ragmetrics_core.judges.embedded import lexicon
from ragmetrics_core.judges.embedded.knobs import KNOBS
from ragmetrics_core.judges.embedded.numbers import is_number_word
from ragmetrics_core.judges.embedded.stem import stem

CJK = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
_LETTER = rf"[^\W\d_{CJK}]"
TOKEN_RE = re.compile(
    rf"(?P<mixed>\d*{_LETTER}+\d[^\W_{CJK}]*)"
    # Digit groups use one separator throughout: "286,723 213,723" is two numbers, "1 000 000,5" one.
    r"|(?P<num>\d{1,3}(?:,\d{3})+(?:\.\d+)?(?!\d)|\d{1,3}(?:[\u00a0\u202f\u2009 ]\d{3})+(?:[.,]\d+)?(?!\d)"
    r"|\d+(?:[.,]\d+)?)"
    rf"|(?P<cjk>[{CJK}]+)"
    rf"|(?P<word>[^\W\d_{CJK}]+(?:'[^\W\d_{CJK}]+)*)"
)
"""Every token kind, for text the whitespace split cannot read alone: ``mixed`` ("CO2"), ``num``, ``cjk``,
``word``."""
HAS_CJK_RE = re.compile(f"[{CJK}]")
SPACED_DIGITS_RE = re.compile(r"\d[\u00a0\u202f\u2009 ]\d")
"""Digit groups that may form one number across a space ("1 889"): only the pattern over the whole text reads them."""
EDGE_PUNCTUATION = "\"'()[]{}<>«»“”‘’„.,;:!?…—–-/\\|*•·"
MAX_TOKEN_CHARS = 64
"""No word is longer: a longer token is cut, which keeps the word caches small on garbage input."""

Token = tuple[str, str, int, int]
"""(kind, text, start, end) with kind one of ``word``, ``num``, ``mixed``, ``cjk``."""

STOP, NEGATION, NUMBER_WORD, SCALE, WEAK, CONTENT = range(6)
"""Word kinds, ordered: from ``WEAK`` on a word is content and adds its key."""

Special = tuple[int, bool, str | None, bool]
"""(kind, capitalised, key as a name or None, all-capitals name) of a word that is not plain lower-case content."""
TokenInfo = tuple[str, float, Special | None]
"""(key, weight, special) of a word; ``special`` is None for a plain lower-case content word."""


def prepare(text: str) -> str:
    """Unicode and spelling normalisation shared by segmentation and term extraction."""
    text = unicodedata.normalize("NFKC", text)
    if text.isascii():  # a flag of the string: the searches below for non-ASCII characters are skipped
        return text.replace("`", "'") if "`" in text else text
    if "ё" in text or "Ё" in text:
        text = text.replace("ё", "е").replace("Ё", "Е")
    if "’" in text or "`" in text:
        text = text.replace("’", "'").replace("`", "'")
    return text


def tokens(text: str) -> list[Token]:
    """Split on whitespace and classify each part (:func:`part_tokens`); the same tokens as scanning the whole text
    with :data:`TOKEN_RE`, several times faster on ordinary prose."""
    if (not text.isascii() and HAS_CJK_RE.search(text)) or SPACED_DIGITS_RE.search(text):
        return scan_tokens(text)
    found: list[Token] = []
    position = 0
    for raw in text.split():
        position = text.find(raw, position)
        found += part_tokens(raw, position)
        position += len(raw)
    return found


def scan_tokens(text: str) -> list[Token]:
    """The tokens of the whole text by :data:`TOKEN_RE`: what a text with Chinese or digit groups needs."""
    return [(match.lastgroup or "word", match.group(), match.start(), match.end()) for match in TOKEN_RE.finditer(text)]


def part_tokens(raw: str, start: int) -> list[Token]:
    """The tokens of one whitespace-separated part of a text without Chinese, the part starting at ``start``: only
    a part with inner punctuation or digits goes through the pattern."""
    if raw.isalpha():
        return [("word", raw, start, start + len(raw))]
    core = raw.strip(EDGE_PUNCTUATION)
    if not core:
        return []
    offset = start + raw.find(core)
    if core.isalpha():
        return [("word", core, offset, offset + len(core))]
    if core.isdigit():
        return [("num", core, offset, offset + len(core))]
    return [(match.lastgroup or "word", match.group(), offset + match.start(), offset + match.end())
            for match in TOKEN_RE.finditer(core)]


def _word_key(word: str) -> str:
    return stem(word.casefold().replace("ё", "е"))


def _canonical_forms() -> dict[str, str]:
    mapping: dict[str, str] = {}
    for group in lexicon.SYNONYM_GROUPS:
        canonical = _word_key(group[0])
        for word in group:
            mapping[_word_key(word)] = canonical
    return mapping


_CANONICAL = _canonical_forms()


def word_key(word: str) -> str:
    """The term key of one word (stemmed, synonyms merged)."""
    key = _word_key(word)
    return _CANONICAL.get(key, key)


TOKEN_INFOS: dict[str, TokenInfo | None] = {}
""":func:`known_word` by word. A plain dict, read with one subscript in the term loop (an ``lru_cache`` call costs
twice as much there); emptied when it reaches :data:`TOKEN_INFO_LIMIT` words, so it stays bounded. Its keys are
exactly the parts that tokenize to themselves (one word token): the fast reader of :mod:`.terms` looks whole
parts up."""
TOKEN_INFO_LIMIT = 32768


def known_word(token: str) -> TokenInfo | None:
    """What the term loop needs about one word token (see :func:`_token_info`), from :data:`TOKEN_INFOS`."""
    try:
        return TOKEN_INFOS[token]
    except KeyError:
        if len(token) > MAX_TOKEN_CHARS:
            token = token[:MAX_TOKEN_CHARS]
        return TOKEN_INFOS[token] if token in TOKEN_INFOS else _learn_token(token)


def _learn_token(token: str) -> TokenInfo | None:
    if len(TOKEN_INFOS) >= TOKEN_INFO_LIMIT:
        TOKEN_INFOS.clear()
    info = _token_info(token)
    if not token.endswith("'") and not token.isdigit():
        # A word cut at 64 characters may end in an apostrophe, which tokenizing would strip, and a few digits
        # (Kharosthi) are words to the pattern but digits to isdigit: neither is a part that tokenizes to itself.
        TOKEN_INFOS[token] = info
    return info


def _token_info(token: str) -> TokenInfo | None:
    """What the term loop needs about one word, worked out once per distinct word: its key and weight, and
    unless it is a plain lower-case content word, its kind (:func:`word_info`), whether it is capitalised, its
    key as a name (content words only) and whether it is an all-capitals name. ``None`` for a function word
    that adds nothing (not a dialogue pronoun)."""
    word_kind, key, weight = word_info(token)
    if word_kind == STOP and key not in lexicon.DIALOGUE_PRONOUNS:
        return None
    capitalised = token[0].isupper()
    if word_kind >= WEAK and not capitalised:
        return key, weight, None  # a plain content word, the commonest: the term loop adds it directly
    # A name keeps its own stem, synonyms left apart ("Swift" is a singer, not "fast").
    as_name = _word_key(token) if capitalised and word_kind == CONTENT else None
    return key, weight, (word_kind, capitalised, as_name, len(token) >= 2 and token.isupper())


def word_info(token: str) -> tuple[int, str, float]:
    """What one word is (stopword, negation, number word, content) with its key and base weight."""
    lower = token.casefold()
    if lower in lexicon.NEGATIONS_EN or lower in lexicon.NEGATIONS_RU or lower.endswith("n't"):
        return NEGATION, lower, 0.0
    if lower in lexicon.NUMBER_SCALES:
        return (SCALE, lower, 0.0) if lower in lexicon.NUMBER_WORDS else (STOP, lower, 0.0)
    if is_number_word(lower):
        return NUMBER_WORD, lower, 0.0
    if lower in lexicon.EN_STOPWORDS or lower in lexicon.RU_STOPWORDS:
        return STOP, lower, 0.0
    if len(lower) == 1 and not token.isupper():
        return STOP, lower, 0.0
    key = word_key(lower)
    if lower in lexicon.EN_WEAK or lower in lexicon.RU_WEAK or _is_manner_adverb(lower):
        return WEAK, key, KNOBS.weak_weight
    if lower in lexicon.OPINION_WORDS:
        return CONTENT, key, KNOBS.name_weight
    return CONTENT, key, KNOBS.long_word_weight if len(lower) >= KNOBS.long_word else KNOBS.word_weight


def _is_manner_adverb(lower: str) -> bool:
    """English "-ly" adverbs ("eventually", "actually", "colloquially") qualify a claim; they rarely carry it."""
    return len(lower) >= 7 and lower.endswith("ly") and lower.isascii() and lower not in _LY_NOUNS


_LY_NOUNS = lexicon.EN.set("ly_nouns")
