"""Issue 28, item 5: the first reading of a file run tells repeated ids and repeated content holding a 64-bit hash
per id (in a compact table), not the ids; the ids the hashes say may repeat are then compared by their text, so a
hash collision never merges two different ids and never hides a duplicate."""

from __future__ import annotations

import gc
import sys
import tracemalloc
from pathlib import Path

import pytest

from ragmetrics_core.batch import evaluate_file
from ragmetrics_core.formats import RowError, iter_samples, loader, repeats
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
