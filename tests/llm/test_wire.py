"""Reading answer bodies: lenient about what compatible servers add or leave out, clear about what is not one."""

from __future__ import annotations

import json

import pytest

from ragmetrics_core.judges.openai.wire import NotThisShape, answer_of, read_completion, read_embeddings, tokens_of


def test_a_full_openai_body_reads_its_answer_reason_and_tokens() -> None:
    body = json.dumps({
        "id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": "m", "system_fingerprint": "fp",
        "choices": [{"index": 0, "finish_reason": "stop", "logprobs": None,
                     "message": {"role": "assistant", "content": "{\"claims\": [\"Paris — столица 法国\"]}",
                                 "refusal": None, "tool_calls": []}}],
        "usage": {"prompt_tokens": 12, "completion_tokens": 5, "total_tokens": 17,
                  "prompt_tokens_details": {"cached_tokens": 0}},
    }, ensure_ascii=False).encode()
    completion = read_completion(body)
    assert answer_of(completion) == ("{\"claims\": [\"Paris — столица 法国\"]}", "stop")
    assert tokens_of(completion.get("usage")) == (12, 5)


def test_a_minimal_compatible_body_reads_with_defaults() -> None:
    completion = read_completion(b'{"choices": [{"message": {"content": null}}]}')
    assert completion.get("usage") is None and tokens_of(completion.get("usage")) == (0, 0)
    assert answer_of(completion) == (None, None)
    assert answer_of(read_completion(b"{}")) == (None, None)
    cut_off = read_completion(b'{"choices": [{"message": null, "finish_reason": "length"}]}')
    assert answer_of(cut_off) == (None, "length")
    counts = read_completion(b'{"choices": [], "usage": {"prompt_tokens": null, "completion_tokens": 3}}').get("usage")
    assert tokens_of(counts) == (0, 3)
    assert tokens_of(read_completion(b'{"usage": {"completion_tokens": 2}}').get("usage")) == (0, 2)


@pytest.mark.parametrize("body", [
    b"<html><body>502 Bad Gateway</body></html>",
    b"",
    b'{"choices": "none"}',
    b'{"choices": [{"message": {"content": 42}}]}',
    b"[1, 2, 3]",
    b'{"choices": [',
])
def test_a_body_that_is_not_a_completion_says_so_and_quotes_its_start(body: bytes) -> None:
    with pytest.raises(NotThisShape, match="not a chat completion") as caught:
        read_completion(body)
    assert repr(body[:20].decode())[1:-1][:10] in str(caught.value)


def test_embeddings_read_their_vectors_and_reject_a_body_without_them() -> None:
    body = b'{"object": "list", "data": [{"object": "embedding", "index": 1, "embedding": [0.5, -1]},' \
           b' {"index": 0, "embedding": [1e-3, 2]}], "model": "e", "usage": {"prompt_tokens": 4, "total_tokens": 4}}'
    embeddings = read_embeddings(body)
    assert [(item["index"], item["embedding"]) for item in embeddings["data"]] == [(1, [0.5, -1.0]), (0, [0.001, 2.0])]
    assert tokens_of(embeddings.get("usage")) == (4, 0)
    for bad in (b'{"usage": {}}', b'{"data": [{"index": 0, "embedding": ["x"]}]}', b"\xff\xfe"):
        with pytest.raises(NotThisShape, match="not an embeddings response"):
            read_embeddings(bad)
