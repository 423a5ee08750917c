"""Chinese claims: a sentence split at its commas into pieces that each stand on their own."""

from __future__ import annotations

import re

_ZH_SPLIT_RE = re.compile(r"[,、]")
_ZH_SUBJECT_END_RE = re.compile(r"是|位于|成立|拥有|以|为|在|有|于|由")
_ZH_VERB_START = ("以", "为", "成立", "位于", "是", "拥有", "通过", "管理", "在", "于", "被", "建", "有")
_ZH_PRONOUNS = ("它", "他", "她", "其", "该")


def split_chinese(sentence: str, previous_subject: str | None) -> tuple[list[str], str | None]:
    """A Chinese sentence's claims (its comma-separated pieces, short ones joined to their neighbour, each given
    the sentence subject when it opens with a verb or a pronoun) and the subject it passes on."""
    body = sentence.rstrip("。!?;. ")
    if previous_subject and body.startswith(_ZH_PRONOUNS):
        body = previous_subject + body[1:]
    raw = [piece.strip() for piece in _ZH_SPLIT_RE.split(body)]
    pieces: list[str] = []
    for piece in raw:
        if (pieces and _cjk_count(piece) < 4) or (pieces and _cjk_count(pieces[-1]) < 4):
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


def _cjk_count(text: str) -> int:
    return sum(1 for char in text if "\u4e00" <= char <= "\u9fff")
