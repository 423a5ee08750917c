"""Reading answer bodies: lenient about what compatible servers add or leave out, clear about what is not one."""

from __future__ import annotations

import json

import pytest

from ragmetrics_core.judges.openai.wire import NotThisShape, read_completion, read_embeddings


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
    assert completion.choices[0].message is not None
    assert completion.choices[0].message.content == "{\"claims\": [\"Paris — столица 法国\"]}"
    assert completion.choices[0].finish_reason == "stop"
    usage = completion.usage
    assert usage is not None and (usage.prompt_tokens, usage.completion_tokens) == (12, 5)


def test_a_minimal_compatible_body_reads_with_defaults() -> None:
    completion = read_completion(b'{"choices": [{"message": {"content": null}}]}')
    assert completion.usage is None
    assert completion.choices[0].finish_reason is None
    assert completion.choices[0].message is not None and completion.choices[0].message.content is None
    assert read_completion(b"{}").choices == []
    counts = read_completion(b'{"choices": [], "usage": {"prompt_tokens": null, "completion_tokens": 3}}').usage
    assert counts is not None and (counts.prompt_tokens, counts.completion_tokens) == (0, 3)


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
    assert [(item.index, item.embedding) for item in embeddings.data] == [(1, [0.5, -1.0]), (0, [0.001, 2.0])]
    assert embeddings.usage is not None and embeddings.usage.prompt_tokens == 4
    for bad in (b'{"usage": {}}', b'{"data": [{"index": 0, "embedding": ["x"]}]}', b"\xff\xfe"):
        with pytest.raises(NotThisShape, match="not an embeddings response"):
            read_embeddings(bad)
