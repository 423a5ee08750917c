"""Resident memory of ``ragmetrics evaluate`` (the real command, embedded judge, all fifteen metrics) as the rows
go by: one run over N generated rows, its RSS read from ``/proc`` each time the results file passes a checkpoint,
printed side by side with the growth per row since the checkpoint before.

The rows vary as real data does: each is a new question, two contexts, a response and a reference, drawn from a
vocabulary with a long tail (word ranks from a Pareto law, so new words keep arriving: about 32,000 distinct words
by 20,000 rows and 190,000 by 200,000), with names and years. One row repeated would hide anything kept per
distinct text, such as the embedded judge's word caches.

    .venv/bin/python benchmarks/cli_memory.py                            # 20k, 50k, 100k, 200k rows
    .venv/bin/python benchmarks/cli_memory.py --rows 10000 20000 --code ../main   # another checkout's code
    .venv/bin/python benchmarks/cli_memory.py --resume --rows 100000 300000 --code . ../main   # side by side

``--resume``: the results file already holds a complete result for every row (written here, fifteen scores each,
not judged), so the command resumes them all: its peak is the plan's and the resume's, with no judging. Each
``--rows`` figure is then its own run, every ``--code`` checkout in turn.

Each checkpoint is printed as it is passed: stop a long run early with ``kill -INT`` on its ``ragmetrics_core.cli``
process (the command exits 130 and the peak is printed). Linux only (``/proc``).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def _words(text: str) -> tuple[str, ...]:
    return tuple(text.split())


_SYLLABLES = _words("ka lo ri ten mar vel do sun bri gal or ath en cor pin tha us lem nor qui fel ras mon tiv ed")
_FUNCTION_WORDS = _words("the of in and was to a is for on by with as at from that its were has")
_TAIL = 0.3
"""The Pareto exponent of word ranks: the lower, the longer the tail of rare words."""
_AFTER_LAST = 500
"""Rows beyond the last checkpoint, so the command is still running when it is passed."""


def _word(rank: int) -> str:
    """A distinct made-up word per rank (its digits in base 25, one syllable each)."""
    syllables = []
    while True:
        rank, digit = divmod(rank, len(_SYLLABLES))
        syllables.append(_SYLLABLES[digit])
        if not rank:
            break
    return "".join(syllables) if len(syllables) > 1 else syllables[0] + "n"


def _content(rng: random.Random) -> str:
    return _word(int(rng.paretovariate(_TAIL)))


def _sentence(rng: random.Random, words: int) -> str:
    parts = [_content(rng).capitalize()]
    for _ in range(words):
        parts.append(_content(rng))
        if rng.random() < 0.6:
            parts.append(rng.choice(_FUNCTION_WORDS))
    parts.insert(rng.randint(1, len(parts) - 1), str(rng.randint(1800, 2024)))
    return " ".join(parts) + "."


def write_rows(path: Path, rows: int, seed: int = 28) -> None:
    rng = random.Random(seed)
    with path.open("w", encoding="utf-8") as handle:
        for index in range(rows):
            first = _sentence(rng, 6)
            row = {
                "id": f"row-{index}",
                "user_input": f"What did {_content(rng).capitalize()} do in {rng.randint(1800, 2024)}?",
                "retrieved_contexts": [first + " " + _sentence(rng, 4), _sentence(rng, 5)],
                "response": first + " " + _sentence(rng, 4),
                "reference": first,
            }
            handle.write(json.dumps(row) + "\n")


def write_finished_results(code: Path, source: Path, out: Path) -> None:
    """A complete result for every row of ``source``, as a finished run would have written them."""
    sys.path.insert(0, str(code))
    from ragmetrics_core.formats.results_io import result_record
    from ragmetrics_core.metrics.registry import METRICS
    from ragmetrics_core.results import EvaluationResult, MetricScore

    scores = {name: MetricScore(metric=name, score=0.5, direction=spec.direction) for name, spec in METRICS.items()}
    with source.open(encoding="utf-8") as rows, out.open("w", encoding="utf-8") as results:
        for line, text in enumerate(rows, start=1):
            result = EvaluationResult(sample_id=json.loads(text)["id"], judge="embedded", scores=scores)
            results.write(json.dumps(result_record(result, None, line), ensure_ascii=False) + "\n")


def _rss_mb(pid: int) -> float | None:
    try:
        with open(f"/proc/{pid}/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        return None
    return None


def measure(
    code: Path, source: Path, out: Path, checkpoints: list[int]
) -> tuple[list[tuple[int, float]], float, float]:
    """Run the command on ``source``; RSS when the results file first holds each checkpoint's rows, peak RSS and
    seconds."""
    env = {**os.environ, "PYTHONPATH": f"{code}{os.pathsep}{code / 'integrations'}"}
    command = [sys.executable, "-m", "ragmetrics_core.cli", "evaluate", str(source), "--out", str(out), "--no-progress"]
    started = time.perf_counter()
    child = subprocess.Popen(command, cwd=code, env=env, stdout=subprocess.DEVNULL)
    seen: list[tuple[int, float]] = []
    written = 0
    waiting = list(checkpoints)
    ended: tuple[int, int, resource.struct_rusage] | None = None
    out.touch()  # followed from the first row
    with open(out, "rb") as results:
        results.seek(0, os.SEEK_END)  # rows already there (a resume) are not the run's
        while True:
            chunk = results.read()
            written += chunk.count(b"\n")
            while waiting and written >= waiting[0]:
                rss = _rss_mb(child.pid)
                if rss is not None:
                    seen.append((waiting[0], rss))
                    _print_row(seen)
                waiting.pop(0)
            if ended is not None:
                break
            pid, status, usage = os.wait4(child.pid, os.WNOHANG)  # reaped here: its rusage holds the peak
            if pid:
                ended = (pid, status, usage)
                continue  # one more read: the rows written before it ended
            time.sleep(0.2)
    child.returncode = os.waitstatus_to_exitcode(ended[1])
    if child.returncode not in (0, 1, 130):  # 130: stopped early with Ctrl-C, the checkpoints passed stand
        raise SystemExit(f"ragmetrics evaluate failed with status {child.returncode}")
    peak = ended[2].ru_maxrss / 1024
    return seen, peak, time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", type=int, nargs="*", default=[20_000, 50_000, 100_000, 200_000],
                        help="checkpoints; one run over the largest (with --resume: one run each)")
    parser.add_argument("--code", type=Path, nargs="+", default=[Path(__file__).resolve().parents[1]],
                        help="the checkouts whose ragmetrics_core runs (default: this one)")
    parser.add_argument("--resume", action="store_true", help="resume a finished run instead of judging")
    args = parser.parse_args()
    checkpoints = sorted(args.rows)
    codes = [code.resolve() for code in args.code]
    with tempfile.TemporaryDirectory() as folder:
        if args.resume:
            _resume_runs(codes, Path(folder), checkpoints)
            return
        source = Path(folder) / "rows.jsonl"
        write_rows(source, checkpoints[-1] + _AFTER_LAST)
        for code in codes:
            print(f"ragmetrics evaluate, embedded judge, {checkpoints[-1] + _AFTER_LAST:,} generated rows, "
                  f"code: {code}")
            print(f"{'rows':>9} {'RSS MB':>8} {'growth B/row since previous':>28}", flush=True)
            out = Path(folder) / "out.jsonl"
            out.unlink(missing_ok=True)
            _, peak, seconds = measure(code, source, out, checkpoints)
            print(f"peak RSS {peak:.1f} MB, {seconds:.0f} s")


def _resume_runs(codes: list[Path], folder: Path, sizes: list[int]) -> None:
    print(f"{'rows':>9} {'peak RSS MB':>12} {'seconds':>8}  code (a finished run resumed: every row)")
    for rows in sizes:
        source, out = folder / f"rows{rows}.jsonl", folder / f"out{rows}.jsonl"
        write_rows(source, rows)
        write_finished_results(codes[0], source, out)
        for code in codes:
            _, peak, seconds = measure(code, source, out, [])
            print(f"{rows:9,d} {peak:12.1f} {seconds:8.0f}  {code}", flush=True)


def _print_row(seen: list[tuple[int, float]]) -> None:
    """The latest checkpoint, printed as it is passed (a long run can be stopped with Ctrl-C)."""
    rows, rss = seen[-1]
    growth = ""
    if len(seen) > 1:
        before_rows, before_rss = seen[-2]
        growth = f"{(rss - before_rss) * 2**20 / (rows - before_rows):.0f}"
    print(f"{rows:9,d} {rss:8.1f} {growth:>28}", flush=True)


if __name__ == "__main__":
    main()
