"""A deterministic offline embedding, for demos and tests of LlamaIndex pipelines without a model.

Hashed bag of words, L2-normalised: texts that share content words are close. It needs no weights and no
network, so an index built with it is the same on every machine.
"""

from __future__ import annotations

import hashlib
import math
import re

from llama_index.core.embeddings import BaseEmbedding

__all__: list[str] = []  # internal: no public names here (docs/architecture.md, "The surface")

_WORD = re.compile(r"[a-z0-9]+")
_STOPWORDS = frozenset({"the", "is", "of", "in", "a", "an", "what", "which", "where", "does", "stand"})


class HashEmbedding(BaseEmbedding):
    """Each non-stopword adds 1 to the dimension its BLAKE2 hash picks; texts sharing words are close."""

    dimensions: int = 256

    @classmethod
    def class_name(cls) -> str:
        return "RagMetricsHashEmbedding"

    def _vector(self, text: str) -> list[float]:
        vector = [0.0] * self.dimensions
        for word in _WORD.findall(text.lower()):
            if word in _STOPWORDS:
                continue
            digest = hashlib.blake2b(word.encode(), digest_size=8).digest()
            vector[int.from_bytes(digest, "big") % self.dimensions] += 1.0
        norm = math.sqrt(sum(v * v for v in vector))
        return [v / norm for v in vector] if norm else vector

    def _get_query_embedding(self, query: str) -> list[float]:
        return self._vector(query)

    async def _aget_query_embedding(self, query: str) -> list[float]:
        return self._vector(query)

    def _get_text_embedding(self, text: str) -> list[float]:
        return self._vector(text)
