"""The demo's bundled mini corpus, its scripted questions, and a small lexical embedding to search it.

The embedding hashes content words into a fixed-size vector, so retrieval is deterministic, offline and
meaningful (shared words score high), unlike random fake embeddings.
"""

from __future__ import annotations

import math
import re
import zlib
from functools import cache
from importlib import resources

from pydantic import BaseModel, ConfigDict

__all__: list[str] = []  # internal: no public names here (docs/architecture.md, "The surface")

DIMENSIONS = 256
TOP_K = 3
_WORD = re.compile(r"[a-z0-9]+")
_STOPWORDS = frozenset(
    [
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "by",
        "for",
        "from",
        "how",
        "in",
        "is",
        "it",
        "its",
        "of",
        "on",
        "or",
        "the",
        "to",
        "was",
        "what",
        "when",
        "which",
        "who",
        "with",
        "does",
        "do",
        "did",
        "make",
        "up",
    ]
)


class Document(BaseModel):
    model_config = ConfigDict(frozen=True)

    id: str
    text: str


class Question(BaseModel):
    """A question with its reference answer and the answer the scripted model gives (right or wrong)."""

    model_config = ConfigDict(frozen=True)

    scenario: str
    question: str
    reference: str
    answer: str


class Corpus(BaseModel):
    model_config = ConfigDict(frozen=True)

    documents: list[Document]
    questions: list[Question]


@cache
def load_corpus() -> Corpus:
    text = resources.files("ragmetrics_core.demo").joinpath("corpus.json").read_text(encoding="utf-8")
    return Corpus.model_validate_json(text)


def embed(text: str) -> list[float]:
    """Unit-length bag of content words, hashed into ``DIMENSIONS`` buckets."""
    vector = [0.0] * DIMENSIONS
    for word in _WORD.findall(text.lower()):
        if word in _STOPWORDS:
            continue
        stem = word[:-1] if len(word) > 3 and word.endswith("s") else word
        vector[zlib.crc32(stem.encode()) % DIMENSIONS] += 1.0
    norm = math.sqrt(sum(value * value for value in vector))
    return vector if norm == 0 else [value / norm for value in vector]


def search(question: str, documents: list[Document], k: int = TOP_K) -> list[tuple[Document, float]]:
    """The ``k`` documents most similar to ``question`` (cosine), best first."""
    query = embed(question)
    scored = [
        (document, sum(a * b for a, b in zip(query, embed(document.text), strict=True))) for document in documents
    ]
    scored.sort(key=lambda pair: pair[1], reverse=True)
    return scored[:k]
