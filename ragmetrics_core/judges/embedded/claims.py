"""Claim extraction: sentences, then clauses, then list items, each made to stand on its own.

What is no claim is set aside first (:mod:`.answer_rules.nonclaims`, :mod:`.answer_rules.reactions`). A compound
sentence is split where a conjunction, a relative pronoun or a participle opens a clause with its own predicate,
and the sentence subject is carried into clauses that lack one ("France is in Western Europe, and its capital is
Paris" → "France's capital is Paris"). Enumerations of three or more short items become one claim per item. A
leading pronoun takes the previous sentence's subject when that subject names something. Where clauses split and
what ends a subject is each language's (:class:`.answer_rules.ClauseRules`); Chinese sentences are split at their
commas (:func:`.answer_rules.chinese.split_chinese`). Claims keep the input's language.
"""

from __future__ import annotations

import re

from ragmetrics_core.construct import builder
from ragmetrics_core.evidence import Claim
from ragmetrics_core.judges.embedded import lexicon
from ragmetrics_core.judges.embedded.answer_rules import ClauseRules, english, russian
from ragmetrics_core.judges.embedded.answer_rules.chinese import split_chinese
from ragmetrics_core.judges.embedded.answer_rules.nonclaims import Skipped, set_aside
from ragmetrics_core.judges.embedded.answer_rules.reactions import is_reaction, without_hedge
from ragmetrics_core.judges.embedded.memo import text_cache
from ragmetrics_core.judges.embedded.segment import language, sentences
from ragmetrics_core.judges.embedded.terms import terms

_new_claim = builder(Claim)

MAX_CLAIMS = 64
"""Claims kept per text: a 1 MB response is judged on its first 64 claims (documented cap)."""

_SPACE_BEFORE_PUNCT_RE = re.compile(r"\s+([,.;:!?])")
_SPACE_BEFORE_PUNCT_TEST_RE = re.compile(r"\s[,.;:!?]")
"""Where the pattern above matches: a search for the pair is quicker than the substitution."""
_STOPWORDS = lexicon.EN_STOPWORDS | lexicon.RU_STOPWORDS
_LIST_JOINERS = frozenset({"and", "or", "и", "или"})
_CLAUSE_RULES: dict[str, ClauseRules] = {"en": english, "ru": russian}


def extract_claims(text: str) -> list[Claim]:
    """The atomic claims of ``text`` (at most :data:`MAX_CLAIMS`)."""
    return list(read_claims(text)[0])


def read_claims(text: str) -> tuple[tuple[Claim, ...], tuple[Skipped, ...]]:
    """The atomic claims of ``text`` and the pieces set aside as no claim (:mod:`.answer_rules.nonclaims`)."""
    if not text or not text.strip():
        return (), ()
    return _claims(text)


@text_cache(maxsize=256, max_chars=20_000)
def _claims(text: str) -> tuple[tuple[Claim, ...], tuple[Skipped, ...]]:
    # Memoised (claims are immutable): questions and checks re-read the claims of the same response.
    claims: list[Claim] = []
    skipped: list[Skipped] = []
    previous_subject: str | None = None
    for sentence in sentences(text):
        if _SPACE_BEFORE_PUNCT_TEST_RE.search(sentence):
            sentence = _SPACE_BEFORE_PUNCT_RE.sub(r"\1", sentence)
        if sentence.endswith("?"):
            continue  # a question asserts nothing
        lang = language(sentence)
        sentence, aside = set_aside(sentence, lang)
        skipped.extend(aside)
        sentence = without_hedge(sentence)
        if not sentence or is_reaction(sentence):
            continue  # "That is so true!" reacts to the other speaker; it asserts nothing checkable
        if lang == "zh":
            pieces, subject = split_chinese(sentence, previous_subject)
        else:
            pieces, subject = _split_spaced(sentence, previous_subject, _CLAUSE_RULES[lang])
        for piece in pieces:
            cleaned = piece.strip(" ,;:-—")
            if (
                any(map(str.isalnum, cleaned)) and not is_reaction(cleaned) and not _only_openers(cleaned)
                and terms(cleaned).total > 0
            ):
                claims.append(_new_claim({"text": cleaned}))
                if len(claims) >= MAX_CLAIMS:
                    return tuple(claims), tuple(skipped)
        if subject is not None:
            previous_subject = subject
    return tuple(claims), tuple(skipped)


def _only_openers(piece: str) -> bool:
    """A piece that is only a connective ("However", "Overall") states nothing: a clause split left it alone."""
    words = piece.split()
    return len(words) <= 2 and all(word.casefold().strip(",.;:") in lexicon.OPENERS for word in words)


def _split_spaced(sentence: str, previous_subject: str | None, local: ClauseRules) -> tuple[list[str], str | None]:
    """A sentence of a language that writes words apart: its claims and the subject it passes on."""
    if previous_subject is not None:
        sentence = local.resolve_leading_pronoun(sentence, previous_subject)
    body = sentence.rstrip(" .!?…")
    subject = _subject(body, local)
    # No semicolon is left inside: sentences() ends a sentence at every ";".
    expanded = [item for piece in _split_clauses(body, subject, local) for item in _split_list(piece)]
    return expanded, subject if _names_something(subject) else None


def _names_something(subject: str | None) -> bool:
    """Whether a sentence subject can stand for a later pronoun: a short phrase with a capitalised word."""
    return subject is not None and len(subject.split()) <= 8 and any(word[:1].isupper() for word in subject.split())


def _split_clauses(part: str, subject: str | None, local: ClauseRules) -> list[str]:
    lowered = part.lower()
    if not any(cue in lowered for cue in local.SPLIT_CUES):
        return [part.strip()]
    clauses: list[str] = []
    cursor = 0
    left = part
    pending_kind: str | None = None
    pending_word = ""
    for match in local.CLAUSE_SPLIT_RE.finditer(part):
        if match.start() < cursor:
            continue
        right = part[match.end() :]
        kind = match.lastgroup or ""
        if kind == "conj" and (_closes_list(part[cursor : match.start()]) or not _is_clause(right, local)):
            continue
        # "hot pots, which come in portions and are cheap": a verb joined to a relative clause shares its antecedent.
        chained_relative = kind == "verb" and pending_kind == "rel"
        if kind == "verb":
            kind = "rel" if chained_relative else "conj"
        head = part[cursor : match.start()]
        if kind in {"rel", "part"} and "," in right and len(head.split()) <= 4 and not chained_relative:
            # "Paris, which is the capital of France, has 2 million people" / "The tower, located in Paris,
            # was completed in 1889": the inserted clause sits inside the main clause, which continues after
            # the next comma.
            inner, rest = _inserted_clause(right)
            if kind == "rel":
                clauses.append(f"{_antecedent(head)} {inner.strip()}")
            else:
                clauses.append(english.participle_clause(head.strip(), match.group(kind), inner.strip(), None))
            part = f"{part[:match.start()]} {rest.strip()}"
            return [*clauses, *_split_clauses(part[cursor:], subject, local)]
        clauses.append(_complete(part[cursor : match.start()], pending_kind, pending_word, subject, left, local))
        if not chained_relative:
            left = part[cursor : match.start()]
        pending_kind, pending_word = kind, match.group(kind)
        cursor = match.end()
    clauses.append(_complete(part[cursor:], pending_kind, pending_word, subject, left, local))
    return clauses


def _inserted_clause(right: str) -> tuple[str, str]:
    """An inserted clause and what follows its closing comma. A place written with commas ("located in Santa
    Barbara, CA, is …") stays in the clause: a segment of one or two capitalised words between commas continues it."""
    inner, _, rest = right.partition(",")
    while True:
        segment, comma, after = rest.partition(",")
        words = segment.split()
        if not comma or not 1 <= len(words) <= 2 or not all(word[:1].isupper() for word in words):
            return inner, rest
        inner, rest = f"{inner},{segment}", after


def _complete(clause: str, kind: str | None, word: str, subject: str | None, left: str, local: ClauseRules) -> str:
    """Make a clause stand alone by giving it the subject it lost when the sentence was split."""
    clause = clause.strip()
    if kind is None or not clause:
        return clause
    if kind == "rel":
        return f"{_antecedent(left)} {clause}".strip()
    if subject is None:
        return clause
    if kind == "part":  # only English splits at participles
        return english.participle_clause(subject, word, clause, left)
    words = clause.split()
    first = words[0].casefold()
    if first in local.PRONOUN_SUBJECTS:
        replacement = f"{subject}'s" if first in local.POSSESSIVES else subject
        return " ".join([replacement, *words[1:]])
    if local.starts_with_verb(words):
        return f"{subject} {clause}"
    return clause


def _closes_list(left: str) -> bool:
    """Whether ", and" ends an enumeration ("A, B, and C") rather than joining two clauses."""
    head, comma, last_item = left.rpartition(",")
    return bool(comma) and bool(head.strip()) and len(last_item.split()) <= 4


def _is_clause(right: str, local: ClauseRules) -> bool:
    words = right.split()
    return len(words) >= 2 and local.opens_clause(words, [word.casefold().strip(",.") for word in words[:7]])


def _subject(body: str, local: ClauseRules) -> str | None:
    """The words before the first verb of a sentence, when they come early enough to be its subject."""
    words = body.split()
    for index, word in enumerate(words[:12]):
        if local.is_verb(word.casefold().strip(","), words[index - 1] if index else ""):
            if index == 0:
                return None
            head = _after_opening_phrase(words[:index])
            for position, candidate in enumerate(head):
                if candidate.endswith(","):
                    head = head[: position + 1]  # "Paris, the capital of France, is …": the subject is Paris
                    break
            subject = " ".join(head).strip(",")
            if not subject or head[0].casefold() in local.PRONOUN_SUBJECTS:
                return None
            return subject
    return None


def _after_opening_phrase(head: list[str]) -> list[str]:
    """``head`` without an opening phrase set off by commas ("However,", "In 1889,", "Known for its breakfast,
    brunch and dishes, this diner is …"), never the subject; it runs to the last comma before the verb, as its own
    list or place has commas too."""
    opening = head[0].casefold().strip(",")
    if opening not in lexicon.OPENERS and opening not in english.PARTICIPLE_OPENERS:
        return head
    last_comma = max((position for position, word in enumerate(head) if word.endswith(",")), default=-1)
    return head[last_comma + 1 :] if last_comma >= 0 else head


def _antecedent(left: str) -> str:
    """The noun phrase a relative clause hangs on: the last few words before the comma."""
    words = left.split()
    tail: list[str] = []
    for word in reversed(words[-4:]):
        if tail and word.casefold() in _STOPWORDS:
            break
        tail.insert(0, word)
    return " ".join(tail)


def _split_list(clause: str) -> list[str]:
    """"X uses A, B, and C" → "X uses A", "X uses B", "X uses C" when the items are short."""
    if clause.count(",") < 2:
        return [clause]  # fewer than three parts: most clauses, told without splitting
    parts = [part.strip() for part in clause.split(",")]
    last_words = parts[-1].split()
    if not last_words or last_words[0].casefold() not in _LIST_JOINERS:
        return [clause]
    middle = parts[1:-1]
    if any(len(item.split()) > 4 or not item for item in middle):
        return [clause]
    head_words = parts[0].split()
    if len(head_words) < 2:
        return [clause]
    first_item_len = _first_item_length(head_words, middle)
    prefix_words = head_words[:-first_item_len]
    items = [" ".join(head_words[-first_item_len:]), *middle, " ".join(last_words[1:])]
    claims: list[str] = []
    joiner = prefix_words[-2].casefold() if len(prefix_words) >= 4 else ""
    if joiner in {"and", "и"}:
        # "West pleaded no contest and received probation, service, and a fine": the first predicate is a claim of
        # its own, and each item shares only the subject and the verb governing the list.
        claims.append(" ".join(prefix_words[:-2]))
        subject = _subject(claims[0], russian if joiner == "и" else english)
        if subject is not None:
            prefix_words = [subject, prefix_words[-1]]
    prefix = " ".join(prefix_words)
    return claims + [f"{prefix} {item}".strip() for item in items if item]


def _first_item_length(head_words: list[str], middle: list[str]) -> int:
    """How many of the head's last words are the first item: a run of capitalised words before capitalised items
    ("visited Paris, Rome, and Berlin"), else everything after the head's last verb ("has outdoor seating, free
    wifi, and …"), else one word."""
    if middle[0][:1].isupper():
        length = 0
        for word in reversed(head_words):
            if not word[:1].isupper():
                break
            length += 1
        if 0 < length < len(head_words):
            return length
    for position in range(len(head_words) - 2, 0, -1):
        # Not english.is_verb: in a list's head the verb may follow a pronoun or "and" ("She visited …", "… and
        # received …"), which that test, made to find where a subject ends, refuses.
        word = head_words[position].casefold()
        if word in english.SUBJECT_VERBS or (len(word) > 4 and word.endswith("ed")):
            return len(head_words) - position - 1
    return 1
