"""The public surface: a small ``__all__``, old names still importable for one release (with a warning), the
protocols in one place, and renamed keyword arguments accepted under their old names."""

from __future__ import annotations

import ast
import dataclasses
import typing
import warnings
from pathlib import Path

import pytest

import ragmetrics_core
import ragmetrics_core.online
import ragmetrics_core.protocols as protocols


def test_every_advertised_name_resolves_without_a_warning() -> None:
    assert len(ragmetrics_core.__all__) <= 28
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for name in ragmetrics_core.__all__:
            assert getattr(ragmetrics_core, name) is not None


@pytest.mark.parametrize(
    ("old", "home"),
    [("Evidence", "ragmetrics_core.evidence"), ("Usage", "ragmetrics_core.judges.base"),
     ("MetricOptions", "ragmetrics_core.metrics"), ("OnlineStats", "ragmetrics_core.online")],
)
def test_a_name_no_longer_advertised_still_imports_with_a_warning_naming_its_module(old: str, home: str) -> None:
    with pytest.warns(DeprecationWarning, match=home):
        value = getattr(ragmetrics_core, old)
    assert value is getattr(__import__(home, fromlist=[old]), old)
    assert old not in ragmetrics_core.__all__


def test_the_online_evaluator_is_now_the_online_pipeline() -> None:
    with pytest.warns(DeprecationWarning, match="OnlinePipeline"):
        old = ragmetrics_core.online.OnlineEvaluator  # type: ignore[attr-defined]
    assert old is ragmetrics_core.online.OnlinePipeline
    with pytest.warns(DeprecationWarning):
        from ragmetrics_core import OnlineEvaluator  # noqa: F401
    with pytest.raises(AttributeError):
        _ = ragmetrics_core.no_such_name  # type: ignore[attr-defined]


def test_the_function_named_like_its_module_is_not_hidden_by_it() -> None:
    import ragmetrics_core.aggregate  # noqa: F401 - binds the submodule on the package, as any import of it does
    from ragmetrics_core import aggregate

    assert callable(aggregate) and aggregate.__module__ == "ragmetrics_core.aggregate"


def test_every_protocol_is_importable_from_one_module() -> None:
    for name in protocols.__all__:
        value = getattr(protocols, name)
        assert getattr(value, "_is_protocol", False), name
    assert set(protocols.__all__) >= {"Judge", "Emitter", "SampleSink", "AsyncEvaluator"}


def test_the_handlers_take_pipeline_and_still_accept_evaluator() -> None:
    from ragmetrics_langchain import RagMetricsCallbackHandler

    class Sink:
        def submit(self, sample: object, origin: object = None) -> object:
            return None

    sink = Sink()
    assert RagMetricsCallbackHandler(pipeline=sink).pipeline is sink
    with pytest.warns(DeprecationWarning, match="pipeline="):
        handler = RagMetricsCallbackHandler(evaluator=sink)
    assert handler.pipeline is sink
    with pytest.warns(DeprecationWarning):
        assert handler.evaluator is sink
    with pytest.raises(TypeError, match="pipeline= only"):
        RagMetricsCallbackHandler(sink, evaluator=sink)
    hints = typing.get_type_hints(RagMetricsCallbackHandler.__init__)
    assert "pipeline" in hints


def test_one_aggregation_mode_type_and_the_old_literal_name_warns() -> None:
    from ragmetrics_core import AggregationMode, aggregate
    from ragmetrics_core.report import summary

    with pytest.warns(DeprecationWarning, match="AggregationMode"):
        assert summary.AggregateMode is AggregationMode
    assert aggregate([], "ragchecker").mode is AggregationMode.RAGCHECKER  # the strings still work
    with pytest.raises(ValueError):
        aggregate([], "median")


class _RecordingBackend:
    """A scoring backend that scores nothing itself: it hands each sample a result made here."""

    def __init__(self) -> None:
        self.seen: list[str] = []

    def __call__(self, todo: typing.Any, record: typing.Any, *, progress: bool, resumed: int) -> None:
        from ragmetrics_core.results import EvaluationResult

        for item in todo:
            self.seen.append(item[1].id)
            record(item, EvaluationResult(sample_id=item[1].id, judge="recording", scores={}))


def _two_samples() -> list[dict[str, object]]:
    return [{"id": f"s{n}", "user_input": "q?", "retrieved_contexts": ["c"], "response": "r."} for n in range(2)]


def test_the_file_engine_is_now_the_scoring_backend() -> None:
    from ragmetrics_core import batch

    with pytest.warns(DeprecationWarning, match="ScoringBackend") as caught:
        assert protocols.FileEngine is protocols.ScoringBackend
    assert caught[0].filename == __file__  # the warning points at the line that used the old name
    with pytest.warns(DeprecationWarning, match="ScoringBackend"):
        assert batch.FileEngine is batch.ScoringBackend
    assert "FileEngine" not in protocols.__all__


def test_evaluate_file_takes_backend_and_still_accepts_engine(tmp_path: typing.Any) -> None:
    from ragmetrics_core.batch import evaluate_file

    backend = _RecordingBackend()
    run = evaluate_file(_two_samples(), out=tmp_path / "new.jsonl", backend=backend, progress=False)
    assert backend.seen == ["s0", "s1"] and run.evaluated == 2
    old = _RecordingBackend()
    with pytest.warns(DeprecationWarning, match="backend=") as caught:
        run = evaluate_file(_two_samples(), out=tmp_path / "old.jsonl", engine=old, progress=False)
    assert caught[0].filename == __file__
    assert old.seen == ["s0", "s1"] and run.evaluated == 2
    with pytest.raises(TypeError, match="backend= only"):
        evaluate_file(_two_samples(), backend=backend, engine=old, progress=False)


def test_the_ray_engine_module_is_now_the_ray_backend() -> None:
    pytest.importorskip("ray")
    import ragmetrics_core.scale.ray_engine as old_module
    from ragmetrics_core.scale import ray_backend

    with pytest.warns(DeprecationWarning, match="ray_backend.RayBackend"):
        assert old_module.RayFileEngine is ray_backend.RayBackend
    with pytest.warns(DeprecationWarning, match="ray_backend.evaluate_on_ray"):
        assert old_module.evaluate_on_ray is ray_backend.evaluate_on_ray
    with pytest.raises(AttributeError):
        _ = old_module.no_such_name  # type: ignore[attr-defined]


def test_the_cli_takes_backend_and_still_accepts_engine(
    tmp_path: typing.Any, capsys: pytest.CaptureFixture[str]
) -> None:
    import json

    from ragmetrics_core.cli import main

    source = tmp_path / "in.jsonl"
    source.write_text("".join(json.dumps(row) + "\n" for row in _two_samples()), "utf-8")
    assert main(["evaluate", str(source), "--backend", "local", "--out", str(tmp_path / "new.jsonl")]) == 0
    assert "deprecated" not in capsys.readouterr().err
    assert main(["evaluate", str(source), "--engine", "local", "--out", str(tmp_path / "old.jsonl")]) == 0
    assert "--engine is deprecated" in capsys.readouterr().err
    assert len((tmp_path / "old.jsonl").read_text("utf-8").splitlines()) == 2
    with pytest.raises(SystemExit):
        main(["evaluate", str(source), "--backend", "spark"])


def test_handler_stats_hold_the_run_tables_record_and_still_answer_its_old_flat_names() -> None:
    from ragmetrics_langchain import HandlerStats, RagMetricsCallbackHandler, RunTableStats

    class Sink:
        def submit(self, sample: object, origin: object = None) -> object:
            return None

    stats = RagMetricsCallbackHandler(pipeline=Sink()).stats()
    assert isinstance(stats, HandlerStats) and isinstance(stats.runs, RunTableStats)
    assert stats.runs.live_runs == 0 and stats.samples_submitted == 0
    assert not {field.name for field in dataclasses.fields(RunTableStats)} & {
        field.name for field in dataclasses.fields(HandlerStats)
    }  # composed, not re-listed
    with pytest.warns(DeprecationWarning, match=r"\.runs\.evicted_overflow") as caught:
        assert stats.evicted_overflow == stats.runs.evicted_overflow
    assert caught[0].filename == __file__
    with pytest.raises(AttributeError):
        _ = stats.no_such_counter


ROOT = Path(__file__).resolve().parents[2]
PUBLIC_MODULES = {
    "ragmetrics_core.protocols", "ragmetrics_core.sample", "ragmetrics_core.evidence", "ragmetrics_core.results",
    "ragmetrics_core.engine", "ragmetrics_core.batch", "ragmetrics_core.aggregate", "ragmetrics_core.ensemble",
    "ragmetrics_core.judge_factory", "ragmetrics_core.scrub", "ragmetrics_core.judges.base",
    "ragmetrics_core.judges.cache", "ragmetrics_core.judges.pricing", "ragmetrics_core.judges.quota",
    "ragmetrics_core.metrics.custom", "ragmetrics_core.online.types", "ragmetrics_core.online.semconv",
    "ragmetrics_core.formats.ragchecker", "ragmetrics_core.formats.results_io", "ragmetrics_core.report.summary",
    "ragmetrics_core.scale.ray_backend", "ragmetrics_core.scale.ray_engine",
}
"""Modules a user may import from besides the packages (every package's ``__init__`` is public)."""
# Their modules are being reworked on other branches, which mark them; until then they are not checked here.
NOT_YET_MARKED = ("ragmetrics_core.judges.embedded.", "ragmetrics_core.judges.openai.")


def _module_names() -> list[tuple[str, Path]]:
    found = []
    for top in (ROOT / "ragmetrics_core", ROOT / "integrations" / "ragmetrics_langchain",
                ROOT / "integrations" / "ragmetrics_llamaindex"):
        for path in sorted(top.rglob("*.py")):
            parts = path.relative_to(top.parent).with_suffix("").parts
            found.append((".".join(parts), path))
    return found


def _declared_all(path: Path) -> list[str] | None:
    for node in ast.parse(path.read_text("utf-8")).body:
        if not isinstance(node, ast.Assign | ast.AnnAssign) or node.value is None:
            continue
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        if any(isinstance(target, ast.Name) and target.id == "__all__" for target in targets):
            return list(ast.literal_eval(node.value))
    return None


def test_every_module_is_public_or_marked_internal() -> None:
    modules = _module_names()
    assert len(modules) > 100
    unmarked, marked_public = [], []
    for name, path in modules:
        if path.name == "__init__.py" or name.startswith(NOT_YET_MARKED):
            continue
        internal = path.name.startswith("_") or _declared_all(path) == []
        if name in PUBLIC_MODULES and internal:
            marked_public.append(name)
        elif name not in PUBLIC_MODULES and not internal:
            unmarked.append(name)
    assert not unmarked, f"mark these internal (__all__ = []) or list them as public: {unmarked}"
    assert not marked_public
    assert {name for name, _ in modules} >= PUBLIC_MODULES


def test_the_architecture_page_lists_the_public_modules() -> None:
    surface = (ROOT / "docs" / "architecture.md").read_text("utf-8").split("## One sample")[0]
    for name in PUBLIC_MODULES:
        assert f"`{name.removeprefix('ragmetrics_core.')}`" in surface, name
