"""Text hygiene shared by every entry point."""

from __future__ import annotations

import unicodedata

__all__: list[str] = []  # internal: no public names here (docs/architecture.md, "The surface")


def clean_text(text: str) -> str:
    """NFC-normalise and replace unpaired surrogates (invalid Unicode) with U+FFFD.

    Surrogates arrive from ``surrogateescape``-decoded bytes or broken JSON; left in, they make every
    later ``encode`` (HTTP, OTLP, JSONL) raise far from where the text came in.
    """
    return unicodedata.normalize("NFC", repair_surrogates(text))


def repair_surrogates(text: str) -> str:
    """``text`` with unpaired surrogates replaced by U+FFFD and nothing else changed (for ids and names, which are
    matched byte for byte and so are not normalised)."""
    return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace") if _has_surrogate(text) else text


def _has_surrogate(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def truncate(text: str, limit: int) -> str:
    """Cut ``text`` to at most ``limit`` characters, marking the cut."""
    if limit <= 0:
        return ""
    if len(text) <= limit:
        return text
    return text[: max(0, limit - 1)] + "…"
