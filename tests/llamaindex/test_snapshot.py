"""The snapshot helpers on malformed and unusual input."""

from __future__ import annotations

import math
from collections.abc import Generator

from llama_index.core.base.response.schema import PydanticResponse, Response, StreamingResponse
from llama_index.core.schema import NodeWithScore, QueryBundle, TextNode
from pydantic import BaseModel

from ragmetrics_llamaindex._snapshot import (
    clip,
    context_of,
    contexts_of,
    merge_contexts,
    plain_metadata,
    query_text,
    response_text,
)


def test_query_text_reads_strings_and_bundles_and_rejects_the_rest() -> None:
    assert query_text("q", 10) == "q"
    assert query_text(QueryBundle("a longer question"), 8) == "a longer"
    assert query_text(None, 10) is None
    assert query_text(42, 10) is None


def test_metadata_keeps_bounded_scalars_only() -> None:
    metadata: dict[object, object] = {
        "city": "paris",
        "page": 3,
        "score": 0.5,
        "ok": True,
        "none": None,
        "nested": {"a": 1},
        7: "x",
    }
    metadata["long"] = "y" * 10_000
    kept = plain_metadata(metadata)
    assert kept["city"] == "paris" and kept["page"] == 3 and kept["none"] is None
    assert "nested" not in kept and len(kept) == 6
    assert len(kept["long"]) == 512
    assert plain_metadata(None) == {} and plain_metadata(["a"]) == {}
    assert len(plain_metadata({f"k{i}": i for i in range(100)})) == 32


def test_node_scores_that_are_not_finite_numbers_are_dropped() -> None:
    node = TextNode(text="t", id_="n1")
    assert context_of(NodeWithScore(node=node, score=math.nan), 10).score is None  # type: ignore[union-attr]
    assert context_of(NodeWithScore(node=node, score=None), 10).score is None  # type: ignore[union-attr]
    assert context_of(NodeWithScore(node=node, score=0.25), 10).score == 0.25  # type: ignore[union-attr]


def test_node_text_excludes_metadata_and_objects_without_text_are_skipped() -> None:
    node = TextNode(text="body", id_="n1", metadata={"title": "T"})
    draft = context_of(NodeWithScore(node=node, score=1.0), 100)
    assert draft is not None and draft.text == "body" and draft.metadata == {"title": "T"}
    assert contexts_of([object(), "plain", NodeWithScore(node=node)], 100, 10) == [
        context_of(NodeWithScore(node=node), 100)
    ]
    assert contexts_of(None, 100, 10) == []


def test_merge_skips_duplicates_and_respects_the_cap() -> None:
    a = contexts_of([NodeWithScore(node=TextNode(text=t, id_=t)) for t in "abc"], 10, 10)
    b = contexts_of([NodeWithScore(node=TextNode(text=t, id_=t)) for t in "cde"], 10, 10)
    assert [c.id for c in merge_contexts(a, b, 4)] == ["a", "b", "c", "d"]


def test_response_text_never_reads_a_stream() -> None:
    def tokens() -> Generator[str, None, None]:
        yield "x"
        raise AssertionError("the stream was consumed")

    stream = StreamingResponse(response_gen=tokens())
    assert response_text(stream, 100) is None
    assert stream.response_txt is None


def test_response_text_of_plain_and_pydantic_responses() -> None:
    class Answer(BaseModel):
        city: str

    assert response_text(Response(response="Paris"), 100) == "Paris"
    assert response_text(Response(response=None), 100) is None
    assert response_text(PydanticResponse(response=Answer(city="Rome")), 100) == '{"city":"Rome"}'
    assert response_text(object(), 100) is None
    assert clip("abcdef", 3) == "abc"
