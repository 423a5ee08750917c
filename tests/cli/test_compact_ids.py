"""Issue 28, item 5: a file run tells repeated ids (its first reading) and finds the samples a results file already
holds (a resume's index) by a 64-bit hash per id in a flat table, not by holding the ids; an id a hash points to is
then compared by its text, so a hash collision never merges two different ids and never hides a duplicate."""

from __future__ import annotations

import gc
import json
import sys
import tracemalloc
from pathlib import Path

import pytest

from ragmetrics_core.batch import evaluate_file
from ragmetrics_core.formats import RowError, iter_samples, loader, repeats, results_io
from ragmetrics_core.formats.loader import IdLedger
from ragmetrics_core.formats.repeats import HashSet
from ragmetrics_core.results import EvaluationResult
from ragmetrics_core.sample import RagSample
from tests.cli.conftest import write_jsonl


def _tiny_hash(text: str) -> int:
    """Three values for every text: nearly every pair of ids collides."""
    return len(text) % 3


def _mixed_rows() -> list[dict[str, object] | str]:
    """Explicit ids (some repeated, many of the same length), rows without one (some repeating an earlier row's
    content), bad rows, Unicode and a lone surrogate in ids."""
    rows: list[dict[str, object] | str] = []
    for index in range(80):
        row: dict[str, object] = {"user_input": f"q{index % 7 if index % 2 else index}", "response": "r."}
        if index % 3 == 0:
            row["id"] = f"id{index % 15}"  # repeats from the 6th id on
        rows.append(row)
        if index % 13 == 5:
            rows.append("{broken")
    rows += [{"id": "é", "user_input": "u", "response": "r."}, {"id": "e\u0301", "user_input": "u", "response": "r."},
             {"id": "\ud800", "user_input": "u", "response": "r."}, {"id": "é", "user_input": "v", "response": "r."}]
    return rows


def _described(rows: list[object]) -> list[tuple[object, ...]]:
    return [("error", row.message, row.line) if isinstance(row, RowError) else ("row", row.id, row.line)
            for row in rows]


def _readings(source: Path) -> tuple[list[tuple[object, ...]], list[tuple[object, ...]]]:
    """A screened first reading and the replay, as a run reads its input."""
    ledger = IdLedger()
    first = _described(list(iter_samples(source, ids=ledger)))
    assert ledger.screen is not None  # a file is screened
    return first, _described(list(iter_samples(source, ids=ledger)))


@pytest.mark.parametrize("hashing", ["real", "tiny"])
def test_a_screened_reading_settles_every_id_as_holding_every_id_does(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, hashing: str
) -> None:
    source = write_jsonl(tmp_path / "in.jsonl", _mixed_rows())
    unscreened = _described(list(iter_samples(source)))  # no ledger: every id held, compared by its text
    if hashing == "tiny":
        monkeypatch.setattr(repeats, "id_hash", _tiny_hash)
    first, again = _readings(source)
    assert first == unscreened and again == unscreened
    errors = [row[1] for row in first if row[0] == "error"]
    assert sum("duplicate id" in str(message) for message in errors) == 23  # 5 ids used 27 times, "é" twice
    assert "duplicate id 'é' (first used at line 87); ids must be unique" in errors
    ids = [row[1] for row in first if row[0] == "row"]
    assert len(ids) == len(set(ids))  # different ids, colliding hashes included, stay apart
    assert {"é", "e\u0301", "\ud800"} <= set(ids)
    assert any(str(sample_id).endswith("#3") for sample_id in ids)


def test_colliding_ids_are_told_apart_and_repeats_still_found(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(repeats, "id_hash", lambda text: 0)  # every id collides with every other
    rows: list[dict[str, object] | str] = [{"id": name, "user_input": "q", "response": "r."} for name in "abcab"]
    rows += [{"user_input": "same", "response": "r."}, {"user_input": "other", "response": "r."},
             {"user_input": "same", "response": "r."}]
    first, again = _readings(write_jsonl(tmp_path / "in.jsonl", rows))
    assert first == again
    assert [row[1] for row in first[:5]] == [
        "a", "b", "c",
        "duplicate id 'a' (first used at line 1); ids must be unique",
        "duplicate id 'b' (first used at line 2); ids must be unique",
    ]
    contents = [str(row[1]) for row in first[5:]]
    assert contents[2] == contents[0] + "#2" and "#" not in contents[1] and contents[1] != contents[0]


class _Echo:
    """Scores nothing, instantly: a run's plan and its resume are what is tested."""

    async def aevaluate(self, sample: RagSample) -> EvaluationResult:
        return EvaluationResult(sample_id=sample.id, judge="echo", scores={})


@pytest.mark.parametrize("limit", [0, 1, 4, 9, 15, None])
def test_a_run_with_a_limit_takes_the_same_rows_screened_as_holding_every_id(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, limit: int | None
) -> None:
    rows = [{"id": f"id{index % 6}", "user_input": f"q{index}", "response": "r."} for index in range(12)]
    rows += [{"user_input": "same", "response": "r."}] * 5
    source = write_jsonl(tmp_path / "in.jsonl", rows)
    runs = {}
    for screened in (False, True):
        with monkeypatch.context() as patch:
            if screened:
                patch.setattr(repeats, "id_hash", _tiny_hash)
            else:  # no screen: the first reading holds every id, as a source read once does
                patch.setattr(loader, "screen_repeats", lambda samples, limit=None: None)
            out = tmp_path / f"out-{screened}.jsonl"
            run = evaluate_file(source, out=out, evaluator=_Echo(), limit=limit, progress=False, keep_results=False)
            runs[screened] = (run.total, run.done, [error.message for error in run.errors], out.read_text())
    assert runs[True] == runs[False]
    assert runs[True][0] == min(limit if limit is not None else 11, 11)  # 6 ids and 5 rows without one


def _first_reading_peak(source: Path) -> int:
    """Peak bytes Python allocated over a first reading with a ledger, beyond what it held before."""
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        for _ in iter_samples(source, ids=IdLedger()):
            pass
        return tracemalloc.get_traced_memory()[1] - before
    finally:
        tracemalloc.stop()


def test_the_first_reading_of_a_run_holds_a_few_bytes_an_id(tmp_path: Path) -> None:
    rows = [{"id": f"row-{index}", "user_input": f"question {index}", "response": "an answer."}
            for index in range(12_000)]
    source = write_jsonl(tmp_path / "in.jsonl", rows)
    peak = _first_reading_peak(source)
    # The screen's table: 8 bytes a slot, at most 3/4 full, doubled (both tables alive while it grows): under 32
    # bytes a row; holding every id in a dict costs over 100. A row's own parsing is the rest, not kept.
    assert peak / len(rows) < 32, peak


def test_a_hash_set_holds_at_most_about_21_bytes_a_member() -> None:
    table = HashSet()
    for value in range(1, 50_001):
        assert not table.add(value * 0x9E3779B97F4A7C15 % 2**64)
    assert table.size == 50_000 and table.nbytes / table.size <= 64 / 3
    assert table.add(7 * 0x9E3779B97F4A7C15 % 2**64) and table.size == 50_000
    assert 7 * 0x9E3779B97F4A7C15 % 2**64 in table and 12345 not in table
    assert not table.add(0) and table.add(0) and 0 in table  # 0, the free slot's mark, is held all the same
    assert sys.getsizeof(table) < 200  # no per-member object


class _FailSome:
    """Fails the samples whose question ends in a digit from ``failing``; scores nothing, instantly."""

    def __init__(self, failing: str = "") -> None:
        self.failing = failing
        self.seen: list[str] = []

    async def aevaluate(self, sample: RagSample) -> EvaluationResult:
        assert sample.id is not None
        self.seen.append(sample.id)
        error = "RuntimeError: boom" if sample.user_input[-1] in self.failing else None
        return EvaluationResult(sample_id=sample.id, judge="echo", scores={}, error=error)


def _resume_story(tmp_path: Path, suffix: str) -> list[object]:
    """A run cut short, a resume that fails some samples, a retry of the failed ones, a last full run: what each
    run decided and the results file at the end."""
    rows = [{"id": f"i{index}", "user_input": f"q{index}", "response": "r."} for index in range(40)]
    rows += [{"user_input": "same", "response": "r."}] * 3 + [{"user_input": "é\ud800", "response": "r."}]
    source = write_jsonl(tmp_path / "in.jsonl", rows)
    out = tmp_path / f"out-{len(list(tmp_path.iterdir()))}.{suffix}"
    story: list[object] = []
    for limit, failing, only_failed in ((10, "", False), (30, "37", False), (None, "", True), (None, "", False)):
        evaluator = _FailSome(failing)
        run = evaluate_file(source, out=out, evaluator=evaluator, limit=limit, progress=False,
                            only_failed=only_failed, keep_results=False, concurrency=1)
        story.append((run.total, run.resumed, sorted(run.retried), run.left, evaluator.seen))
    index = results_io.scan_results(out)
    story += [index.rows, list(index.last.items()), sorted(index.incomplete), out.read_text(encoding="utf-8")]
    return story


@pytest.mark.parametrize("suffix", ["jsonl", "csv"])
def test_a_resume_decides_the_same_when_every_hash_collides(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, suffix: str
) -> None:
    real = _resume_story(tmp_path, suffix)
    monkeypatch.setattr(repeats, "id_hash", _tiny_hash)
    assert _resume_story(tmp_path, suffix) == real
    monkeypatch.setattr(repeats, "id_hash", lambda text: 0)
    assert _resume_story(tmp_path, suffix) == real
    # what the story is: 10 done, 20 more of which 4 failed, those 4 retried and left the other 14, then the rest
    totals, resumed, retried, left = zip(*[decided[:4] for decided in real[:4]], strict=True)  # type: ignore[misc]
    assert totals == (10, 30, 44, 44) and resumed == (0, 10, 26, 30) and left == (0, 0, 14, 0)
    assert [len(names) for names in retried] == [0, 0, 4, 0]
    assert real[4] == 48 and len(real[5]) == 44 and real[6] == []  # type: ignore[arg-type]  # 4 rows retried


def test_the_results_index_finds_an_id_by_its_text_not_its_hash(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(repeats, "id_hash", lambda text: 0)
    out = tmp_path / "out.jsonl"
    evaluate_file([{"id": name, "user_input": "q", "response": "r."} for name in ("a", "b", "c")], out=out,
                  evaluator=_FailSome(), progress=False)
    index = results_io.scan_results(out)
    assert dict(index.last) == {"a": 0, "b": 1, "c": 2}
    assert index.complete("b") and not index.complete("d") and index.complete_row("c") == 2
    with pytest.raises(KeyError):
        index.last["d"]


def _scan_peak(out: Path) -> tuple[int, results_io.ResultsIndex]:
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        index = results_io.scan_results(out)
        return tracemalloc.get_traced_memory()[1] - before, index
    finally:
        tracemalloc.stop()


def test_the_results_index_holds_a_few_bytes_a_sample(tmp_path: Path) -> None:
    count = 12_000
    out = tmp_path / "out.jsonl"
    with out.open("w", encoding="utf-8") as handle:
        for index in range(count):
            result = EvaluationResult(sample_id=f"row-{index}", judge="echo", scores={})
            handle.write(json.dumps(results_io.result_record(result, None, index + 1)) + "\n")
    peak, index = _scan_peak(out)
    assert index.rows == count and index.complete("row-11999") and not index.complete("row-12000")
    # A row's place and its id's last row (8 bytes each), a table slot (at most 21 bytes): under 40 bytes a
    # sample where a dict of the ids took over 100. A row's own parsing is the rest, not kept.
    assert index.ids.nbytes / count < 40
    assert peak / count < 48, peak


def test_ids_read_back_from_any_row_the_index_accepts(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(repeats, "id_hash", lambda text: 0)  # every lookup reads ids back from the file
    long_id = "é" * 400  # 800 bytes: longer than the head of a row read for its id
    rows = [
        json.dumps({"sample_id": long_id, "judge": "echo", "scores": {}}, ensure_ascii=False),
        json.dumps({"judge": "echo", "scores": {}, "sample_id": "keys in another order"}),
        "",  # a blank line is no row
        json.dumps({"sample_id": 'quote " and \\ backslash', "judge": "echo", "scores": {}}, ensure_ascii=False),
        json.dumps({"sample_id": long_id, "judge": "echo", "scores": {}, "error": "boom"}, ensure_ascii=False),
    ]
    out = tmp_path / "out.jsonl"
    out.write_text("\r\n".join(rows) + "\r\n", encoding="utf-8")
    index = results_io.scan_results(out)
    assert dict(index.last) == {long_id: 3, "keys in another order": 1, 'quote " and \\ backslash': 2}
    assert list(index.last) == [long_id, "keys in another order", 'quote " and \\ backslash']
    assert not index.complete(long_id) and index.complete("keys in another order") and not index.complete("x")
