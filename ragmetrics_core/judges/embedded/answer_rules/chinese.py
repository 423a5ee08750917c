"""Chinese: what a question asks about, what a fragment answer states, where a sentence splits, how roles read.

A fragment is short and has no verb ("约恩·乌松。"); it takes the place of the question word ("谁设计了悉尼歌剧院?" →
"约恩·乌松设计了悉尼歌剧院。"), a count keeping its measure word ("故宫有多少个房间?" + "9999" → "故宫有9999个房间。");
a comparative pick ("A和B哪个更高?" + "A。") becomes "A比B更高。". A sentence that copies the chunk is never completed.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from ragmetrics_core.judges.embedded.answer_rules.nonclaims import alternatives
from ragmetrics_core.judges.embedded.lexicon import ZH, ZH_ENTITY_SUFFIXES, ZH_STOP_CHARS

YES, NO = ZH.set("yes"), ZH.set("no")
_MEASURE_WORDS = "".join(ZH.sequence("measure_words"))
_WH_RE = re.compile(
    f"什么时候|什么|哪里|哪儿|哪个|哪一年|哪一|何时|谁|多少(?P<measure>[{_MEASURE_WORDS}])?|多长|多大|多高|多远|多久"
    f"|几(?P<few>[{_MEASURE_WORDS}])?"
)
_VERB_MARKS = ZH.sequence("answer_verb_marks")
"""Characters and words that make a short answer a sentence of its own ("香蕉富含钾", "长城全长约21196公里")."""
_FRAGMENT_HAN = 8
HAN_RE = re.compile("[\u4e00-\u9fff]")
YEAR_RE = re.compile(r"(?<!\d)(?:1\d{3}|20\d{2})(?!\d)")
_COMPARATIVE_RES = (
    re.compile(r"^(?P<first>.+?)(?:和|与|跟|还是)(?P<second>.+?),?(?:哪个|哪一个|谁)(?P<quality>.+)$"),
    re.compile(r"^(?:哪个|哪一个|谁)(?P<quality>[^,:]+)[,:](?P<first>.+?)还是(?P<second>.+)$"),
)
_TOPIC_END_RE = re.compile(
    "是|有|在|位于|于|建|的|哪|什么|谁|多少|几|何时|为什么|怎么|如何|吗|出生|成立|设计|创作|创建|创立|发明|发现|开放|举办|去世|出版|写"
)
THING_PRONOUNS, PERSON_PRONOUNS = ZH.set("thing_pronouns"), ZH.set("person_pronouns")
DISCOURSE_MARKERS = alternatives("zh", "discourse_markers")
HEDGES = "我(?:认为|觉得|想)[,，]?"
REACTIONS = "(?:真的|没错|确实|是的|对|有意思|太好了)(?:啊|呀|吧)?"
# Roles (:mod:`..relations`): no capitals nor articles: "X是Y的R" / "Y的R是X", the role holding 的 (a relation of Y,
# "the R"), the name two to eight characters that are not a pronoun or demonstrative.
_ROLE_NAME = rf"(?![{''.join(ZH.sequence('not_name_openers'))}])[\u4e00-\u9fff]{{2,8}}?"
_ROLE = r"[\u4e00-\u9fff]{1,20}的[\u4e00-\u9fff]{1,8}"
# Texts arrive prepared (NFKC): full-width ",;:!?" are ASCII by then, "。" is not.
_ROLE_START, _ROLE_END = r"(?:^|(?<=[,;:]))", r"(?=[,;:.!?。]|$)"
_NAME_IS_ROLE_RE = re.compile(rf"{_ROLE_START}(?P<name>{_ROLE_NAME})(?:是|为)(?P<role>{_ROLE}){_ROLE_END}")
ROLE_RES = (_NAME_IS_ROLE_RE, re.compile(rf"{_ROLE_START}(?P<role>{_ROLE}?)是(?P<name>{_ROLE_NAME}){_ROLE_END}"))
RELATION_MARK: str | None = "的"  # the relation is the noun after a role's last 的 ("澳大利亚的首都" → 首都)
# Entities (:mod:`..entities`): quoted or bracketed titles, Latin words, names with an organisation or place suffix.
_QUOTED_RE = re.compile(r"[“《「『\"]([^”》」』\"]{1,30})[”》」』\"]")
_LATIN_RE = re.compile(r"[A-Za-z][A-Za-z0-9&.\-]*(?:\s+[A-Z][A-Za-z0-9&.\-]*)*")
_SUFFIX_RE = re.compile(r"[\u4e00-\u9fff]{1,8}?(?:" + "|".join(sorted(ZH_ENTITY_SUFFIXES, key=len, reverse=True)) + ")")
_STOP_CHARS = "".join(ZH_STOP_CHARS)
_NEGATABLE_RE = re.compile("是|在|有|位于|属于|会|能")
_ZH_SPLIT_RE = re.compile(r"[,、]")
_ZH_SUBJECT_END_RE = re.compile(r"是|位于|成立|拥有|以|为|在|有|于|由")
_ZH_VERB_START = ("以", "为", "成立", "位于", "是", "拥有", "通过", "管理", "在", "于", "被", "建", "有")
_ZH_PRONOUNS = ("它", "他", "她", "其", "该")
_AMOUNT_RE = re.compile(r"\d[\d,.]*")
_LENGTH_UNIT_RE = re.compile("公里|千米|厘米|毫米|英里|米")


def _han(text: str) -> int:
    return len(HAN_RE.findall(text))


def has_verb(answer: str) -> bool:
    return any(mark in answer for mark in _VERB_MARKS)


def is_fragment(question: str, answer: str) -> bool:
    body = answer.strip().rstrip("。.!")
    if not body or body.startswith(tuple(THING_PRONOUNS | PERSON_PRONOUNS)) or has_verb(body):
        return False
    return _han(body) <= _FRAGMENT_HAN and not _repeats(question, body)


def _repeats(question: str, answer: str) -> bool:
    """Whether the answer repeats two Han characters of the question in a row (a full answer repeats its words)."""
    return any(HAN_RE.fullmatch(answer[at]) and answer[at : at + 2] in question for at in range(len(answer) - 1))


def comparative(question: str, answer: str) -> str | None:
    """"A和B哪个更高?" + "A。" → "A比B更高。"."""
    if "比" in answer:
        return None
    picked = answer.strip().rstrip("。.!")
    for pattern in _COMPARATIVE_RES:
        match = pattern.match(question.strip())
        if match is None:
            continue
        first, second = match.group("first").strip(" ,"), match.group("second").strip(" ,")
        quality = match.group("quality").strip()
        for chosen, other in ((first, second), (second, first)):
            if picked in (chosen, chosen + quality, chosen + quality.removeprefix("更")):
                return f"{chosen}比{other}{quality if quality.startswith('更') else '更' + quality}。"
    return None


def is_yes_no_question(question: str) -> bool:
    return _WH_RE.search(question) is None


def statement(question: str, *, negated: bool) -> str | None:
    if not question:
        return None
    if not negated:
        return question + "。"
    verb = _NEGATABLE_RE.search(question)
    if verb is None:
        return "不" + question + "。"
    negation = "没" if verb.group(0) == "有" else "不"
    return question[: verb.start()] + negation + question[verb.start() :] + "。"


def fill(question: str, answer: str) -> str | None:
    match = _WH_RE.search(question)
    if match is None:
        return None
    measure = match.group("measure") or match.group("few") or ""
    own_measure = bool(answer) and HAN_RE.fullmatch(answer[-1]) is not None
    replacement = answer if own_measure or not measure else answer + measure
    return question[: match.start()] + replacement + question[match.end() :] + "。"


def topic(question: str) -> str | None:
    """What the question is about: the words before its verb or question word ("故宫有多少个房间" → "故宫"), or
    the object after "了" of a who/what question ("谁设计了悉尼歌剧院" → "悉尼歌剧院")."""
    body = question.strip().rstrip("?？吗呢")
    if body.startswith(("谁", "什么", "哪")):
        _, marker, after = body.partition("了")
        return after.strip() or None if marker else None
    end = _TOPIC_END_RE.search(body)
    found = body[: end.start()] if end is not None else ""
    return found if 2 <= _han(found) <= 12 else None


def names_someone(text: str) -> bool:
    return "·" in text or 2 <= _han(text) <= 4


def resolve_things(text: str, name: str) -> str:
    """Every "它" (and a sentence-opening "其") about ``name``."""
    text = text.replace("它们", "\0").replace("它", name).replace("\0", "它们")
    return name + text[1:] if text.startswith("其") else text


def split_chinese(sentence: str, previous_subject: str | None) -> tuple[list[str], str | None]:
    """A Chinese sentence's claims (its comma-separated pieces, short ones joined to their neighbour, each given
    the sentence subject when it opens with a verb or a pronoun) and the subject it passes on."""
    body = sentence.rstrip("。!?;. ")
    if previous_subject and body.startswith(_ZH_PRONOUNS):
        body = previous_subject + body[1:]
    raw = [piece.strip() for piece in _ZH_SPLIT_RE.split(body)]
    pieces: list[str] = []
    for piece in raw:
        if (pieces and _han(piece) < 4) or (pieces and _han(pieces[-1]) < 4):
            pieces[-1] = f"{pieces[-1]},{piece}"
        else:
            pieces.append(piece)
    subject_match = _ZH_SUBJECT_END_RE.search(pieces[0]) if pieces else None
    subject = pieces[0][: subject_match.start()].strip() if subject_match and 0 < subject_match.start() <= 15 else None
    completed = [pieces[0]] if pieces else []
    for piece in pieces[1:]:
        if subject and piece.startswith(_ZH_PRONOUNS):
            completed.append(subject + piece[1:])
        elif subject and subject not in piece and piece.startswith(_ZH_VERB_START):
            completed.append(subject + piece)
        else:
            completed.append(piece)
    return completed, subject


def ask(text: str) -> str:
    """The question a claim answers: "故宫有9999间房屋" → "故宫有多少间房屋?",
    "北京是中国的首都" → "中国的首都是什么?"."""
    if YEAR_RE.search(text):
        return YEAR_RE.split(text, maxsplit=1)[0].rstrip() + "哪一年?"
    number = _AMOUNT_RE.search(text)
    if number is not None:
        unit = _LENGTH_UNIT_RE.match(text, number.end())  # "长城全长约21196公里" → "长城全长约多长?"
        if unit is not None:
            return text[: number.start()] + "多长" + text[unit.end() :] + "?"
        return text[: number.start()] + "多少" + text[number.end() :] + "?"
    subject, copula, described = text.partition("是")
    if copula and subject and len(described) > len(subject):
        return described.rstrip("的") + "是什么?"
    for verb, word in (("位于", "哪里"), ("在", "哪里"), ("是", "什么")):
        position = text.find(verb)
        if position > 0:
            return text[:position] + verb + word + "?"
    return text + "吗?"


def entities(sentence: str) -> Iterator[tuple[tuple[int, int], str]]:
    """The entities of a Chinese sentence with their spans, in the order they claim their place (:mod:`..entities`
    keeps a span that no earlier one overlaps)."""
    for pattern in (_QUOTED_RE, _LATIN_RE, _SUFFIX_RE):
        for match in pattern.finditer(sentence):
            text = match.group(1) if pattern is _QUOTED_RE else match.group(0)
            text = text.strip().lstrip(_STOP_CHARS)  # a suffix match may swallow function characters ("是印度")
            if text and (pattern is not _LATIN_RE or len(text) > 1):
                yield match.span(), text
