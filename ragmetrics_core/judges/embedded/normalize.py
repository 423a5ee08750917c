"""Turn a piece of text into weighted content terms: the one representation every check compares.

A term is a string key: a stem (``invest``), a number (``#1889``), or a Chinese character bigram (``#`` never
starts a word key, so numbers never collide with words). Function words are dropped per language, numbers are
normalised across formats ("1,889", "1 889", "1889-го", "1889 году", "1889年" → ``#1889``), and each term gets
a weight for how much evidence it carries: numbers and names weigh most, hedging verbs least.
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections import Counter
from functools import lru_cache
from itertools import pairwise
from typing import Any, NamedTuple

from ragmetrics_core.judges.embedded import lexicon
from ragmetrics_core.judges.embedded.lexicon import words
from ragmetrics_core.judges.embedded.memo import text_cache
from ragmetrics_core.judges.embedded.stem import stem

_CJK = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
_LETTER = rf"[^\W\d_{_CJK}]"
_TOKEN_RE = re.compile(
    rf"(?P<mixed>\d*{_LETTER}+\d[^\W_{_CJK}]*)"
    # Digit groups use one separator throughout: "286,723 213,723" is two numbers, "1 000 000,5" one.
    r"|(?P<num>\d{1,3}(?:,\d{3})+(?:\.\d+)?(?!\d)|\d{1,3}(?:[\u00a0\u202f\u2009 ]\d{3})+(?:[.,]\d+)?(?!\d)"
    r"|\d+(?:[.,]\d+)?)"
    rf"|(?P<cjk>[{_CJK}]+)"
    rf"|(?P<word>[^\W\d_{_CJK}]+(?:'[^\W\d_{_CJK}]+)*)"
)
_HAS_CJK_RE = re.compile(f"[{_CJK}]")
# "2018–19", not part of a date or a version ("2010-12-04", "1.2010-11")
_YEAR_RANGE_RE = re.compile(r"(?<![\d./-])((?:1[5-9]|20)\d\d)([-–])(\d\d)(?!\d|[./-]\d)")
# A time of day, "7:00", "14:00", "2:00 PM", "7 a.m.", "2pm": one term (see :func:`_clock_time`). Minutes have
# two digits, so a score or a ratio ("won 3:2") stays two numbers.
_CLOCK_RE = re.compile(
    r"(?<![\d:.,])(?:(\d{1,2}):([0-5]\d)(?::[0-5]\d)?(?![\d:]|[.,]\d)|(\d{1,2})(?=\s?[aApP]\.?[mM]\b))"
    r"(?:\s?([aApP])\.?[mM]\b\.?)?"
)
_TIME_TERM_RE = re.compile(r"h[0-2]\d[0-5]\d")
_CLOCK_HINT_RE = re.compile(r"\d(?::\d|\s?[aApP]\.?[mM]\b)")
_US_RE = re.compile(r"(?<![\w.])U\.?S\.?(?![\w.])")
_SPACED_DIGITS_RE = re.compile(r"\d[\u00a0\u202f\u2009 ]\d")  # the digit-group separators the pattern accepts
_THOUSANDS_RE = re.compile(r"\d{1,3}(?:,\d{3})+(?:\.\d+)?")
_ZH_DATE_UNIT_RE = re.compile(r"(?<=\d)\s*[年月日号]")
_PHRASE_RE = re.compile(
    "|".join(re.escape(phrase) for phrase in sorted(lexicon.PHRASES, key=len, reverse=True)), re.IGNORECASE
)
_PHRASE_SEARCH_RE = re.compile("|".join(re.escape(phrase) for phrase in lexicon.PHRASES))
"""Whether a casefolded text holds a phrase: one scan instead of a substring test per phrase."""
_PHRASE_CUES = tuple(
    sorted({max(re.split(r"[\s-]+", phrase), key=len) for phrase in lexicon.PHRASES if phrase.isascii()})
)
"""The longest word of every English phrase: an ASCII text holds a phrase only if it holds one of these, which a
few substring tests tell faster than the scan."""
_ZH_STOPWORD_RE = re.compile("|".join(sorted(lexicon.ZH_STOPWORDS, key=len, reverse=True)))
_ZH_SYNONYMS = {
    word: group[0]
    for group in lexicon.SYNONYM_GROUPS
    for word in group
    if all("\u4e00" <= char <= "\u9fff" for char in word)
}
_ZH_SYNONYM_RE = re.compile("|".join(sorted(_ZH_SYNONYMS, key=len, reverse=True)))

SPEAKER = "@dialogue"
"""Term standing for the speaker or listener ("I", "you", "я", "我"): a claim about them needs a premise
that talks about them too."""
NUMBER_WEIGHT = 3.0
NAME_WEIGHT = 2.0
WORD_WEIGHT = 1.0
LONG_WORD_WEIGHT = 1.3
WEAK_WEIGHT = 0.4
ZH_BIGRAM_WEIGHT = 1.0
ZH_UNIGRAM_WEIGHT = 0.5
_LONG_WORD = 9
MAX_TOKEN_CHARS = 64
MAX_ACRONYM = 12
"""Initials of at most this many words of a name become terms: no acronym is longer, and a run of capitalised
words without punctuation ("Paris London Berlin …") would otherwise give every prefix of its initials (quadratic
in time and memory)."""
PREFIX_LENGTH = 4
"""Terms sharing this many leading characters are candidates for a near match."""
_ZH_NAME_TAIL = 10
_NEGATION_SCOPE = 3
"""Content terms after a negation cue that it negates (the scope also ends at a clause break)."""
_CLAUSE_BREAK_RE = re.compile(r"[,;:.!?()—]")
_NOT_NEGATING_FOLLOWERS = frozenset(
    {"only", "just", "really", "sure", "quite", "bad", "least", "surprisingly", "doubt", "wonder", "matter"}
)
"""Words after a cue that make it an idiom rather than a negation: "not only", "no doubt X" and "no wonder X"
assert X, "no matter" concedes."""
_SPAN_CONNECTORS = frozenset({"of", "the", "for", "de", "du", "la", "von", "van", "&"})
_NUMBER_WORD_EXCLUDED = frozenset({"one", "один", "одна", "одно"})
_UNITS = frozenset(
    words("% percent per cent km kilometers kilometres miles mile m meters metres cm mm kg kilograms g grams t tons "
    "tonnes lb pounds ft feet inches $ usd eur dollars euros rubles км м см мм кг г т тонн процентов процента "
    "рублей долларов 公里 米 公斤 吨 元 美元")
)
_NUMBER_FOLLOWERS = _UNITS | frozenset(lexicon.NUMBER_SCALES)
"""Words that change the number before them (a scale multiplies it, a unit sets its kind)."""


def _canonical_forms() -> dict[str, str]:
    mapping: dict[str, str] = {}
    for group in lexicon.SYNONYM_GROUPS:
        canonical = _word_key(group[0])
        for word in group:
            mapping[_word_key(word)] = canonical
    return mapping


def _word_key(word: str) -> str:
    return stem(word.casefold().replace("ё", "е"))


_CANONICAL = _canonical_forms()


class Number(NamedTuple):
    """A number found in text; ``kind`` separates years from other quantities for contradiction checks.

    Named tuples (here and :class:`Terms`): immutable like a frozen dataclass, and several times cheaper to
    build, which matters for the tens of thousands of sentences a second this module analyses."""

    value: float
    kind: str
    key: str
    text: str


class Terms(NamedTuple):
    """The content of one span of text."""

    weights: dict[str, float]
    order: tuple[str, ...]
    numbers: tuple[Number, ...]
    negated: bool
    negated_keys: frozenset[str]
    """Content terms within the scope of a negation ("not [built in 1889]")."""
    proper: tuple[str, ...]
    """Capitalised content terms in order, sentence-initial ones included (for swapped-role checks)."""
    total: float
    """Sum of the weights: the claim content a premise must cover."""
    text: str
    """The text as read (prepared): relation checks (:mod:`.relations`) look at its words in order."""


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


def _full_range(match: re.Match[str]) -> str:
    first, dash, short = match.group(1), match.group(2), match.group(3)
    end = int(first[:2] + short)
    return f"{first}{dash}{end}" if end > int(first) else match.group(0)


def _clock_time(match: re.Match[str]) -> str:
    """A time of day as one number on the 24-hour clock ("2:00 PM" and "14:00" → ``h1400``, of kind "time"): the
    two numbers of "7:00" would each match any 7 or 0, and "2 PM" would never match "14:00"."""
    hours = int(match.group(1) or match.group(3))
    minutes = int(match.group(2) or 0)
    half = (match.group(4) or "").casefold()
    if half and 1 <= hours <= 12:
        hours = hours % 12 + (12 if half == "p" else 0)
    elif half or hours > 24:
        return match.group(0)  # "14 pm", "31:00": not a time of day
    return f"h{hours:02d}{minutes:02d}"


def word_key(word: str) -> str:
    """The term key of one word (stemmed, synonyms merged)."""
    key = _word_key(word)
    return _CANONICAL.get(key, key)


def number_key(value: float) -> str:
    return "#" + (str(int(value)) if value.is_integer() else repr(round(value, 6)))


def parse_number(raw: str) -> float | None:
    """The value of a number token ("1,889", "1 889", "1 000 000,5", "3.5", "3,5"), or ``None`` when it cannot be
    read (e.g. a comma-grouped number cut mid-group by the token length cap): one unreadable token is left out,
    it never costs the sample."""
    compact = raw.replace("\u00a0", "").replace("\u202f", "").replace("\u2009", "").replace(" ", "")
    if "," in compact:
        compact = compact.replace(",", "") if _THOUSANDS_RE.fullmatch(compact) else compact.replace(",", ".", 1)
    try:
        value = float(compact)
    except ValueError:
        return None
    return value if math.isfinite(value) else None


@text_cache(maxsize=8192, max_chars=2_000)
def terms(text: str) -> Terms:
    """Weighted content terms of ``text`` (already :func:`prepare`-d or not: preparing twice is harmless).

    Memoised: the result is immutable and depends on ``text`` only, so the cache changes speed, never output.
    """
    text = prepare(text)
    if ("-" in text or "–" in text) and _YEAR_RANGE_RE.search(text):
        # "2018–19" is 2018 to 2019: the second year in full, so it matches "2018-2019" (terms only: the
        # claim's text stays as written).
        text = _YEAR_RANGE_RE.sub(_full_range, text)
    if _CLOCK_HINT_RE.search(text):
        text = _CLOCK_RE.sub(_clock_time, text)
    if "U" in text and _US_RE.search(text):
        text = _US_RE.sub("USA", text)  # "US", "U.S." are the country, not the pronoun "us"
    lowered = text.casefold()
    if _may_hold_phrase(lowered) and _PHRASE_SEARCH_RE.search(lowered):
        text = _PHRASE_RE.sub(lambda match: lexicon.PHRASES[match.group(0).casefold()], text)
    if not text.isascii():
        if "年" in text or "月" in text or "日" in text or "号" in text:
            text = _ZH_DATE_UNIT_RE.sub(" ", text)
        if _HAS_CJK_RE.search(text):
            return _token_terms(text, _tokens(text))
    return _plain_terms(text) or _token_terms(text, _tokens(text))


def _may_hold_phrase(lowered: str) -> bool:
    """Whether a casefolded text may hold a phrase of :data:`lexicon.PHRASES`: a non-ASCII text, or one holding a
    cue. A plain loop of substring tests: ``any()`` over a generator or a map costs more than the four tests."""
    if not lowered.isascii():
        return True
    for cue in _PHRASE_CUES:
        if cue in lowered:
            break
    else:
        return False
    return True


def _token_terms(text: str, matches: list[_Token]) -> Terms:
    """:func:`terms` from the token list: every text, Chinese included (:func:`_plain_terms` is the fast path)."""
    weights: dict[str, float] = {}
    order: list[str] = []
    numbers: list[Number] = []
    negated = False
    keys_at: list[str | None] = [None] * len(matches)
    aliased: list[str] = []
    capitals: list[int] = []
    negated_keys: set[str] = set()
    scope = 0
    for index, (kind, token, start, end) in enumerate(matches):
        if scope and _CLAUSE_BREAK_RE.search(text, matches[index - 1][3], start):
            scope = 0
        if kind == "word":
            info = _word_token_info(token)
            if info is None:  # a plain function word, the commonest token
                continue
            key, weight, special = info
            word_kind, capitalised, name_key, upper_name = _PLAIN_WORD if special is None else special
            if word_kind >= _WEAK:
                if capitalised:
                    capitals.append(index)
                    if name_key is not None and (index > 0 or upper_name):
                        # Names keep their own stem: "Swift" is a singer, not "fast".
                        key = name_key
                        weight = NAME_WEIGHT
                keys_at[index] = key
                _add(weights, order, key, weight)
                if scope:
                    negated_keys.add(key)
                    scope -= 1
            elif word_kind == _STOP or (word_kind == _SCALE and index > 0 and matches[index - 1][0] == "num"):
                if key in lexicon.DIALOGUE_PRONOUNS:
                    _add(weights, order, SPEAKER, NAME_WEIGHT)
            elif word_kind == _NEGATION:
                following = matches[index + 1][1].casefold() if index + 1 < len(matches) else ""
                if following not in _NOT_NEGATING_FOLLOWERS:
                    negated = True
                    scope = _NEGATION_SCOPE
            else:  # a number word or a scale word ("three", "million")
                number = _number_word(key, token)
                numbers.append(number)
                _add(weights, order, number.key, NUMBER_WEIGHT)
        elif kind == "num":
            follower = after = ""
            if index + 1 < len(matches):
                next_token = matches[index + 1]
                after = next_token[1].casefold()
                if next_token[2] == end or not text[end : next_token[2]].strip():
                    follower = after
            read = _number(token[:MAX_TOKEN_CHARS], follower if follower in _NUMBER_FOLLOWERS else "",
                           text[end : end + 1] == "%")
            if read is None:
                continue  # unreadable as a number: this one token is left out
            number = read
            if number.kind == "count" and number.value <= 31:
                before = matches[index - 1][1].casefold() if index > 0 else ""
                number = _day_or_count(number, before, after)
            numbers.append(number)
            _add(weights, order, number.key, NUMBER_WEIGHT)
            if scope:
                negated_keys.add(number.key)
                scope -= 1
        elif kind == "mixed":
            if _TIME_TERM_RE.fullmatch(token):  # a time of day, written so by _clock_time
                number = Number(float(token[1:]), "time", token, f"{token[1:3]}:{token[3:]}")
                numbers.append(number)
                _add(weights, order, token, NUMBER_WEIGHT)
                continue
            _add(weights, order, word_key(token[:MAX_TOKEN_CHARS].casefold()), NAME_WEIGHT)
        else:
            if "我" in token or "你" in token or "您" in token:
                _add(weights, order, SPEAKER, NAME_WEIGHT)
            negated = _cjk_terms(token, weights, order, negated_keys) or negated
            follower_token = matches[index + 1] if index + 1 < len(matches) else None
            if (
                follower_token is not None
                and text[end : follower_token[2]].strip() == "("
                and follower_token[1].isupper()
                and follower_token[0] == "word"
            ):
                aliased.append(token)
    if len(capitals) >= 2:
        _add_acronyms(text, matches, keys_at, capitals, weights, order)
    for name in aliased:
        # "印度人寿保险公司(LIC)": the acronym carries the name's weight, as for Latin-script names.
        name_weights: dict[str, float] = {}
        _cjk_terms(name[-_ZH_NAME_TAIL:], name_weights, [])
        for key in name_weights:
            weights[key] = 0.0
    capital_keys = [key for key in (keys_at[position] for position in capitals) if key]
    return _terms_tuple(weights, tuple(order), numbers, negated, negated_keys, capital_keys, text)


_NOTHING_WAITS, _NEGATION_WAITS, _NUMBER_WAITS = range(3)


def _plain_terms(text: str) -> Terms | None:
    """:func:`_token_terms` of a text without Chinese characters, in one pass over its whitespace-separated parts
    without building the token list: the judge's hottest loop, where most parts are function words that add
    nothing and most others are known words. A negation cue or a number is settled at the next token (which
    decides what it means); offsets are worked out only inside a negation's scope. ``None`` (the token list
    decides) when a part is not a plain word, plain digits or a known word (mixed tokens such as "CO2", "1.5",
    "50%"), when digit groups may need joining ("1 889"), or when a name may be followed by its acronym in
    parentheses.

    Every part here gives exactly one token (or none, for bare punctuation), so a part's index stands for its
    token's; ``tests/embedded/test_terms_paths.py`` checks both paths agree.
    """
    parts = text.split()
    count = len(parts)
    first = 0  # the part of the first token (text may start with bare punctuation)
    while first < count and not parts[first].strip(_EDGE_PUNCTUATION):
        first += 1
    get = _TOKEN_INFOS.get
    weights: dict[str, float] = {}
    add = weights.setdefault
    numbers: list[Number] = []
    negated = False
    negated_keys: set[str] = set()
    capitals: list[int] = []
    capital_keys: list[str] = []
    untokened: list[int] = []
    scope = 0
    waiting = _NOTHING_WAITS
    waiting_at = 0
    waiting_token = ""
    watch = False  # a token waits for this one or a negation scope is open: every part is looked at
    number_before = -1  # the part after a number (a scale word there multiplies it)
    starts: list[int] | None = None
    previous_end = 0
    for at, raw in enumerate(parts):
        info = get(raw, _UNSEEN)
        if watch or info is _UNSEEN:
            token = raw
            is_number = False
            if info is _UNSEEN:
                if raw.isalpha():
                    info = _word_token_info(raw)
                else:
                    token = raw.strip(_EDGE_PUNCTUATION)
                    if not token:
                        untokened.append(at)
                        continue
                    if token.isdigit():
                        is_number = True
                        info = None
                    else:
                        # A known word ("end." at a sentence's end, the commonest case here) is read at once.
                        info = get(token, _UNSEEN)
                        if info is _UNSEEN:
                            if not token.isalpha():
                                return None
                            info = _word_token_info(token)
            if watch:
                if waiting == _NEGATION_WAITS:
                    if token.casefold() not in _NOT_NEGATING_FOLLOWERS:
                        negated = True
                        scope = _NEGATION_SCOPE
                        if starts is None:
                            starts = _part_starts(text, parts)
                        previous_end = starts[waiting_at] + parts[waiting_at].find(waiting_token) + len(waiting_token)
                elif waiting == _NUMBER_WAITS:
                    if is_number and len(token) == 3 and len(waiting_token) <= 3:
                        return None  # perhaps digit groups ("1 889"): the token list joins them
                    after = token.casefold()
                    # A scale or unit counts when only whitespace separates it from the number.
                    adjacent = (
                        after in _NUMBER_FOLLOWERS
                        and at == waiting_at + 1
                        and parts[waiting_at].endswith(waiting_token)
                        and raw.startswith(token)
                    )
                    number = _number(waiting_token[:MAX_TOKEN_CHARS], after if adjacent else "", False)
                    if number is None:
                        return None  # the token list leaves the unreadable token out
                    if number.kind == "count" and number.value <= 31:
                        number = _day_or_count(number, _token_before(parts, waiting_at, first), after)
                    numbers.append(number)
                    add(number.key, NUMBER_WEIGHT)
                    if scope:
                        negated_keys.add(number.key)
                        scope -= 1
                    number_before = at
                waiting = _NOTHING_WAITS
                if scope:
                    if starts is None:
                        starts = _part_starts(text, parts)
                    start = starts[at] + raw.find(token)
                    if _CLAUSE_BREAK_RE.search(text, previous_end, start):
                        scope = 0
                    previous_end = start + len(token)
                watch = scope > 0
            if is_number:
                waiting, waiting_at, waiting_token, watch = _NUMBER_WAITS, at, token, True
                continue
            if info is None:
                continue
        elif info is None:
            continue  # a plain function word, the commonest part
        key, weight, special = info
        if special is not None:  # not a plain lower-case content word
            word_kind, capitalised, name_key, upper_name = special
            if word_kind < _WEAK:
                if word_kind == _STOP or (word_kind == _SCALE and number_before == at):
                    if key in lexicon.DIALOGUE_PRONOUNS:
                        add(SPEAKER, NAME_WEIGHT)
                elif word_kind == _NEGATION:
                    # The token is the part without edge punctuation (a known word has none).
                    waiting, waiting_at, waiting_token, watch = _NEGATION_WAITS, at, raw.strip(_EDGE_PUNCTUATION), True
                else:  # a number word or a scale word ("three", "million")
                    number = _number_word(key, raw.strip(_EDGE_PUNCTUATION))
                    numbers.append(number)
                    add(number.key, NUMBER_WEIGHT)
                continue
            if capitalised:
                if name_key is not None and (at > first or upper_name):
                    # Names keep their own stem: "Swift" is a singer, not "fast".
                    key = name_key
                    weight = NAME_WEIGHT
                capitals.append(at)
                capital_keys.append(key)
        if add(key, weight) < weight:
            weights[key] = weight
        if scope:
            negated_keys.add(key)
            scope -= 1
            watch = scope > 0
    if waiting == _NEGATION_WAITS:
        negated = True  # nothing follows the cue
    elif waiting == _NUMBER_WAITS:
        number = _number(waiting_token[:MAX_TOKEN_CHARS], "", False)
        if number is None:
            return None
        if number.kind == "count" and number.value <= 31:
            number = _day_or_count(number, _token_before(parts, waiting_at, first), "")
        numbers.append(number)
        add(number.key, NUMBER_WEIGHT)
        if scope:
            negated_keys.add(number.key)
    if len(capitals) >= 2 and _may_form_a_name(parts, capitals):
        if "(" in text:
            return None  # "Life Insurance Corporation of India (LIC)": the acronym rule reads every token's key
        if untokened:
            capitals = [at - sum(1 for gap in untokened if gap < at) for at in capitals]  # part → token index
        _add_acronyms(text, _tokens(text), None, capitals, weights, [])  # the order is the dict's
    # Every key was added in order of appearance, and only ever reweighted after: the order is the dict's.
    return _terms_tuple(weights, tuple(weights), numbers, negated, negated_keys, capital_keys, text)


def _may_form_a_name(parts: list[str], capitals: list[int]) -> bool:
    """Whether two consecutive capitalised parts have only connectors between them, which :func:`_joined` needs
    of every word between their tokens: without such a pair the acronym rule adds nothing, and the text is not
    tokenized for it (a sentence's first word and a name further on, the commonest case)."""
    for before, after in pairwise(capitals):
        if all(part.casefold() in _SPAN_CONNECTORS for part in parts[before + 1 : after]):
            return True
    return False


def _part_starts(text: str, parts: list[str]) -> list[int]:
    starts: list[int] = []
    position = 0
    for raw in parts:
        position = text.find(raw, position)
        starts.append(position)
        position += len(raw)
    return starts


def _token_before(parts: list[str], at: int, first: int) -> str:
    """The casefolded token before the one of part ``at`` ("" for the first token), in :func:`_plain_terms`."""
    for index in range(at - 1, first - 1, -1):
        core = parts[index].strip(_EDGE_PUNCTUATION)
        if core:
            return core.casefold()
    return ""


def _terms_tuple(
    weights: dict[str, float],
    order: tuple[str, ...],
    numbers: list[Number],
    negated: bool,
    negated_keys: set[str],
    capital_keys: list[str],
    text: str,
) -> Terms:
    proper: tuple[str, ...]
    if len(capital_keys) == 1:  # the commonest case: only the sentence's first word
        proper = (capital_keys[0],) if capital_keys[0] else ()
    else:
        proper = tuple(dict.fromkeys(filter(None, capital_keys))) if capital_keys else ()
    # tuple.__new__ is what the named tuple's own constructor calls, without its Python-level frame.
    return tuple.__new__(Terms, (weights, order, tuple(numbers), negated,
                                 frozenset(negated_keys) if negated_keys else _NO_KEYS, proper, sum(weights.values()),
                                 text))


_NO_KEYS: frozenset[str] = frozenset()
"""Shared by every text without negated terms (most): one object less to allocate and for the collector to track."""


_UNSEEN: Any = object()


def _word_token_info(token: str) -> _TokenInfo | None:
    try:
        return _TOKEN_INFOS[token]
    except KeyError:
        if len(token) > MAX_TOKEN_CHARS:
            # No word is this long; a cut key keeps the word caches small on garbage input.
            token = token[:MAX_TOKEN_CHARS]
        return _TOKEN_INFOS[token] if token in _TOKEN_INFOS else _learn_token(token)


_STOP, _NEGATION, _NUMBER_WORD, _SCALE, _WEAK, _CONTENT = range(6)


_Special = tuple[int, bool, str | None, bool]
_TokenInfo = tuple[str, float, _Special | None]
_PLAIN_WORD: _Special = (_CONTENT, False, None, False)
_TOKEN_INFOS: dict[str, _TokenInfo | None] = {}
""":func:`_token_info` by word. A plain dict, read with one subscript in the term loop (an ``lru_cache`` call costs
twice as much there); emptied when it reaches :data:`_TOKEN_INFO_LIMIT` words, so it stays bounded."""
_TOKEN_INFO_LIMIT = 65536


def _learn_token(token: str) -> _TokenInfo | None:
    if len(_TOKEN_INFOS) >= _TOKEN_INFO_LIMIT:
        _TOKEN_INFOS.clear()
    info = _token_info(token)
    if not token.endswith("'") and not token.isdigit():
        # Kept keys are exactly the parts that tokenize to themselves (one word token): the fast path of
        # :func:`terms` looks whole parts up. A word cut at 64 characters may end in an apostrophe, which
        # tokenizing would strip, and a few digits (Kharosthi) are words to the pattern but digits to isdigit.
        _TOKEN_INFOS[token] = info
    return info


def _token_info(token: str) -> _TokenInfo | None:
    """What the term loop needs about one word, worked out once per distinct word: its key and weight, and
    unless it is a plain lower-case content word, its kind (:func:`_word_info`), whether it is capitalised, its
    key as a name (content words only) and whether it is an all-capitals name. ``None`` for a function word
    that adds nothing (not a dialogue pronoun)."""
    word_kind, key, weight = _word_info(token)
    if word_kind == _STOP and key not in lexicon.DIALOGUE_PRONOUNS:
        return None
    capitalised = token[0].isupper()
    if word_kind >= _WEAK and not capitalised:
        return key, weight, None  # a plain content word, the commonest: the term loop adds it directly
    name_key = _word_key(token.casefold()) if capitalised and word_kind == _CONTENT else None
    return key, weight, (word_kind, capitalised, name_key, len(token) >= 2 and token.isupper())


@lru_cache(maxsize=65536)
def _word_info(token: str) -> tuple[int, str, float]:
    """What one word is (stopword, negation, number word, content) with its key and base weight."""
    lower = token.casefold()
    if lower in lexicon.NEGATIONS_EN or lower in lexicon.NEGATIONS_RU or lower.endswith("n't"):
        return _NEGATION, lower, 0.0
    if lower in lexicon.NUMBER_SCALES:
        return (_SCALE, lower, 0.0) if lower in lexicon.NUMBER_WORDS else (_STOP, lower, 0.0)
    if lower in lexicon.NUMBER_WORDS and lower not in _NUMBER_WORD_EXCLUDED:
        return _NUMBER_WORD, lower, 0.0
    if lower in lexicon.EN_STOPWORDS or lower in lexicon.RU_STOPWORDS:
        return _STOP, lower, 0.0
    if len(lower) == 1 and not token.isupper():
        return _STOP, lower, 0.0
    key = word_key(lower)
    if lower in lexicon.EN_WEAK or lower in lexicon.RU_WEAK or _is_manner_adverb(lower):
        return _WEAK, key, WEAK_WEIGHT
    if lower in lexicon.OPINION_WORDS:
        return _CONTENT, key, NAME_WEIGHT
    return _CONTENT, key, LONG_WORD_WEIGHT if len(lower) >= _LONG_WORD else WORD_WEIGHT


def _is_manner_adverb(lower: str) -> bool:
    """English "-ly" adverbs ("eventually", "actually", "colloquially") qualify a claim; they rarely carry it."""
    return len(lower) >= 7 and lower.endswith("ly") and lower.isascii() and lower not in _LY_NOUNS


_LY_NOUNS = frozenset(words("family assembly monopoly butterfly anomaly supply reply ally italy july homily"))


@lru_cache(maxsize=8192)
def _number(token: str, follower: str, percent: bool) -> Number | None:
    """A number token (at most 64 characters); ``follower`` is the casefolded scale or unit right after it, or
    "" (only the words of :data:`_NUMBER_FOLLOWERS` change a number, so only they reach this cache). ``None`` for
    a token that cannot be read as a number."""
    plain = token.isdigit()
    value = float(token) if plain else parse_number(token)  # plain digits: nothing for parse_number to clean
    if value is None:
        return None
    scale = lexicon.NUMBER_SCALES.get(follower)
    if scale is not None:
        value *= scale
    unit = "%" if percent else (follower if follower in _UNITS else "")
    number_kind = "year" if plain and 1000 <= value <= 2100 and not unit else (unit or "count")
    return Number(value, number_kind, number_key(value), token)


def _day_or_count(number: Number, before: str, after: str) -> Number:
    """A small count next to a month name ("March 1", "1 марта") is a day of the month."""
    if before in lexicon.MONTHS or after in lexicon.MONTHS:
        return number._replace(kind="day")
    return number


def _number_word(key: str, token: str) -> Number:
    value = float(lexicon.NUMBER_WORDS[key])
    return Number(value, "count", number_key(value), token)


def _add_acronyms(
    text: str,
    matches: list[_Token],
    keys_at: list[str | None] | None,
    capitals: list[int],
    weights: dict[str, float],
    order: list[str],
) -> None:
    """Let "LIC" and "Life Insurance Corporation" match each other.

    Every capitalised span of two or more words also yields its initials (weight 0: they help a premise
    match, they never make a claim harder to cover). A span followed by its own acronym in parentheses,
    "Life Insurance Corporation of India (LIC)", hands its weight to the acronym, so a premise that only
    says "LIC" still covers the claim.
    """
    spans: list[list[int]] = []
    key_counts: Counter[str] | None = None  # every key's count in the text, counted once, when a name needs it
    for position in capitals:
        if spans and _joined(text, matches[spans[-1][-1]][3], matches[position][2]):
            spans[-1].append(position)
        else:
            spans.append([position])
    for span in spans:
        if len(span) < 2:
            continue
        initials = "".join(matches[position][1][0].casefold() for position in span[:MAX_ACRONYM])
        for length in range(3 if len(initials) > 2 else 2, len(initials) + 1):
            _add(weights, order, initials[:length], 0.0)
        follower_at = span[-1] + 1
        follower = matches[follower_at] if follower_at < len(matches) else None
        if (
            keys_at is not None  # None only when the text has no "(" for an acronym to follow
            and follower is not None
            and text[matches[span[-1]][3] : follower[2]].strip() == "("
            and follower[1].isupper()
            and len(follower[1]) >= 2
            and initials.startswith(follower[1].casefold())
        ):
            acronym = word_key(follower[1][:MAX_TOKEN_CHARS].casefold())
            if key_counts is None:
                key_counts = Counter(key for key in keys_at if key)
            inside = Counter(key for key in (keys_at[position] for position in span) if key)
            for key, count in inside.items():
                if key_counts[key] == count and key != acronym:  # the key appears nowhere outside the name
                    weights[key] = 0.0


def _joined(text: str, end: int, start: int) -> bool:
    """Whether two capitalised words belong to one name: only spaces and connectors ("of") between them."""
    gap = text[end:start]
    if not gap.strip():
        return True
    return all(word.casefold() in _SPAN_CONNECTORS for word in gap.split()) and gap[0] == " " and gap[-1] == " "


_Token = tuple[str, str, int, int]
"""(kind, text, start, end) with kind one of ``word``, ``num``, ``mixed``, ``cjk``."""
_EDGE_PUNCTUATION = "\"'()[]{}<>«»“”‘’„.,;:!?…—–-/\\|*•·"


def _tokens(text: str) -> list[_Token]:
    """Split on whitespace and classify; only tokens with inner punctuation or digits go through the regex.

    Equivalent to scanning the whole text with the token pattern, several times faster on ordinary prose.
    """
    if (not text.isascii() and _HAS_CJK_RE.search(text)) or _SPACED_DIGITS_RE.search(text):
        # Chinese, or digit groups that may form one number across a space ("1 889"): the pattern decides.
        return [(match.lastgroup or "word", match.group(), match.start(), match.end())
                for match in _TOKEN_RE.finditer(text)]
    found: list[_Token] = []
    find = text.find
    parts = text.split()
    # One whitespace character between words (the usual case) gives every offset by addition, without a search.
    single = len(text) == sum(map(len, parts)) + len(parts) - 1
    position = -1 if single else 0
    for raw in parts:
        start = position + 1 if single else find(raw, position)
        position = start + len(raw)
        if raw.isalpha():
            # The common case, a bare word: nothing to strip, no offsets to adjust.
            found.append(("word", raw, start, position))
            continue
        core = raw.strip(_EDGE_PUNCTUATION)
        if not core:
            continue
        offset = start + raw.find(core)
        if core.isalpha():
            found.append(("word", core, offset, offset + len(core)))
        elif core.isdigit():
            found.append(("num", core, offset, offset + len(core)))
        else:
            found.extend(
                (match.lastgroup or "word", match.group(), offset + match.start(), offset + match.end())
                for match in _TOKEN_RE.finditer(core)
            )
    return found


def _add(weights: dict[str, float], order: list[str], key: str, weight: float) -> None:
    previous = weights.get(key)
    if previous is None:
        weights[key] = weight
        order.append(key)
    elif weight > previous:
        weights[key] = weight


def _cjk_terms(run: str, weights: dict[str, float], order: list[str], negated_keys: set[str] | None = None) -> bool:
    """Add character bigrams (unigrams for lone content characters); return whether the run negates.

    What follows a negation character ("不", "没", "未", ...) up to the end of the run is recorded as negated.
    """
    negated = _zh_negated(run)
    run = _ZH_SYNONYM_RE.sub(lambda match: _ZH_SYNONYMS[match.group(0)], run)
    if negated:
        for friend in lexicon.ZH_NEGATION_FALSE_FRIENDS:
            run = run.replace(friend, friend[0] + "\u200b" + friend[1:])
    run = _ZH_STOPWORD_RE.sub("|", run)
    segment: list[str] = []
    in_scope = False
    for char in run + "|":
        if char == "\u200b":
            continue
        if char == "|" or char in lexicon.ZH_STOP_CHARS or char in lexicon.NEGATIONS_ZH:
            added = _segment_terms(segment, weights, order)
            if in_scope and negated_keys is not None:
                negated_keys.update(added)
            if char in lexicon.NEGATIONS_ZH and negated:
                in_scope = True
            segment = []
        else:
            segment.append(char)
    return negated


def _segment_terms(segment: list[str], weights: dict[str, float], order: list[str]) -> list[str]:
    if not segment:
        return []
    if len(segment) == 1:
        _add(weights, order, segment[0], ZH_UNIGRAM_WEIGHT)
        return [segment[0]]
    for char in segment:
        # Weightless unigrams let a claim's lone content character (a one-character segment, which weighs) be
        # found inside a longer run of the premise: "外" of "…组织以外" in "政府以外的".
        _add(weights, order, char, 0.0)
    bigrams = [first + second for first, second in pairwise(segment)]
    for bigram in bigrams:
        _add(weights, order, bigram, WEAK_WEIGHT if bigram in lexicon.ZH_WEAK else ZH_BIGRAM_WEIGHT)
    return bigrams


def _zh_negated(run: str) -> bool:
    if not any(char in run for char in lexicon.NEGATIONS_ZH):
        return False
    for friend in lexicon.ZH_NEGATION_FALSE_FRIENDS:
        run = run.replace(friend, "")
    return any(char in run for char in lexicon.NEGATIONS_ZH)
