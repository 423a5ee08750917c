"""The calibration file: written and read back whole, its version checked, malformed ones refused clearly."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ragmetrics_core.calibration import (
    SCHEMA_VERSION,
    Calibration,
    CalibrationError,
    IsotonicMap,
    PlattMap,
    as_calibration,
)
from ragmetrics_core.calibration.fit import fit_metric
from ragmetrics_core.calibration.model import FittedOn
from tests.calibration.conftest import make_calibration, staircase_data


def test_a_fitted_calibration_round_trips_through_its_file(tmp_path: Path) -> None:
    scores, labels = staircase_data(300, 1)
    fitted = fit_metric("faithfulness", scores, labels)
    calibration = Calibration(
        judge="embedded", label="faithful", metrics={"faithfulness": fitted},
        fitted_on=FittedOn(source="labels.csv", sha256="ab" * 32, rows=310, labelled=300, unlabelled=10),
    )
    path = calibration.save(tmp_path / "sub" / "calibration.json")
    assert not list(path.parent.glob("*.partial"))
    loaded = Calibration.load(path)
    assert loaded == calibration
    for score in (0.0, 0.13, 0.5, 0.91, 1.0):
        assert loaded.probability("faithfulness", score) == calibration.probability("faithfulness", score)
    data = json.loads(path.read_text(encoding="utf-8"))
    assert data["schema"] == "ragmetrics.calibration" and data["version"] == SCHEMA_VERSION == 1
    assert data["judge"] == "embedded" and data["label"] == "faithful" and data["created"]
    entry = data["metrics"]["faithfulness"]
    assert entry["map"]["method"] == fitted.method and entry["n"] == 300
    assert set(entry["cv_brier"]) == {"isotonic", "platt"}


def test_a_file_of_a_newer_version_is_refused_with_what_to_do(tmp_path: Path) -> None:
    data = json.loads(make_calibration().to_json())
    data["version"] = 2
    data["metrics"]["faithfulness"]["map"] = {"method": "spline", "knots": [0, 1]}  # whatever v2 may hold
    path = tmp_path / "future.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(CalibrationError, match=r"version 2 was written by a newer ragmetrics.*upgrade ragmetrics"):
        Calibration.load(path)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"version": 0}, "unknown calibration file version 0"),
        ({"version": "1"}, "no integer version"),
        ({"version": None}, "no integer version"),
        ({"schema": "something.else"}, "not a ragmetrics calibration file"),
        ({"metrics": {}}, "malformed calibration file at metrics"),
        ({"judge": 7}, "malformed calibration file at judge"),
        ({"surprise": 1}, "malformed calibration file at surprise"),
    ],
)
def test_malformed_files_are_refused_naming_the_problem(
    tmp_path: Path, change: dict[str, object], message: str
) -> None:
    data = json.loads(make_calibration().to_json())
    data.update(change)
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(CalibrationError, match=message):
        Calibration.load(path)


@pytest.mark.parametrize(
    ("score_map", "message"),
    [
        ({"method": "isotonic", "x": [0.0, 0.5, 1.0], "y": [0.1, 0.9, 0.2]}, "monotone"),
        ({"method": "isotonic", "x": [0.0, 0.5, 0.5], "y": [0.1, 0.2, 0.3]}, "strictly increasing"),
        ({"method": "isotonic", "x": [0.0, 1.0], "y": [0.1]}, "same length"),
        ({"method": "isotonic", "x": [0.0, 1.0], "y": [0.1, 1.5]}, r"\[0, 1\]"),
        ({"method": "isotonic", "x": [], "y": []}, "at least 1"),
        ({"method": "platt", "slope": "steep", "intercept": 0}, "slope"),
        ({"method": "nearest"}, "map"),
    ],
)
def test_a_map_that_is_not_a_monotone_probability_is_refused(score_map: dict[str, object], message: str) -> None:
    data = json.loads(make_calibration().to_json())
    data["metrics"]["faithfulness"]["map"] = score_map
    with pytest.raises(CalibrationError, match=message):
        Calibration.from_dict(data)


def test_a_non_finite_platt_parameter_is_refused() -> None:
    data = json.loads(make_calibration().to_json())
    data["metrics"]["faithfulness"]["map"]["slope"] = float("nan")
    with pytest.raises(CalibrationError, match="slope"):
        Calibration.from_dict(json.loads(json.dumps(data)))


@pytest.mark.parametrize(
    ("content", "message"),
    [(b"{not json", "invalid JSON"), (b"\xff\xfe\x00", "not UTF-8"), (b"[1, 2]", "not a ragmetrics calibration")],
)
def test_unreadable_files_are_refused(tmp_path: Path, content: bytes, message: str) -> None:
    path = tmp_path / "calibration.json"
    path.write_bytes(content)
    with pytest.raises(CalibrationError, match=message):
        Calibration.load(path)
    with pytest.raises(CalibrationError, match="cannot read"):
        Calibration.load(tmp_path / "missing.json")


def test_as_calibration_takes_an_object_or_a_path_and_nothing_else(tmp_path: Path) -> None:
    calibration = make_calibration()
    assert as_calibration(calibration) is calibration
    path = calibration.save(tmp_path / "c.json")
    assert as_calibration(path) == calibration and as_calibration(str(path)) == calibration
    with pytest.raises(TypeError, match="Calibration or the path"):
        as_calibration({"judge": "x"})  # type: ignore[arg-type]


def test_applying_a_map_in_plain_python() -> None:
    steps = IsotonicMap(x=[0.2, 0.4, 0.8], y=[0.1, 0.3, 0.9])
    platt = PlattMap(slope=4.0, intercept=-2.0)
    calibration = make_calibration(faithfulness=steps, hallucination=platt)
    read = calibration.probability
    assert read("faithfulness", 0.0) == 0.1 and read("faithfulness", 1.0) == 0.9  # flat beyond the ends
    assert read("faithfulness", 0.3) == pytest.approx(0.2) and read("faithfulness", 0.6) == pytest.approx(0.6)
    assert read("faithfulness", 0.4) == pytest.approx(0.3)
    assert read("hallucination", 0.5) == pytest.approx(0.5)
    assert read("hallucination", 1e6) == 1.0 and read("hallucination", -1e6) == 0.0  # no overflow
    assert read("faithfulness", None) is None and read("faithfulness", float("nan")) is None
    assert read("context_recall", 0.5) is None  # not calibrated


def test_loading_and_applying_a_calibration_imports_neither_scikit_learn_nor_numpy(tmp_path: Path) -> None:
    import subprocess
    import sys

    path = make_calibration(faithfulness=IsotonicMap(x=[0.0, 1.0], y=[0.2, 0.8])).save(tmp_path / "c.json")
    script = (
        "import sys\n"
        "from ragmetrics_core.calibration import Calibration\n"
        f"calibration = Calibration.load({str(path)!r})\n"
        "assert calibration.probability('faithfulness', 0.5) == 0.5\n"
        "print(sorted(name for name in ('sklearn', 'numpy', 'scipy') if name in sys.modules))\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120, check=True)
    assert done.stdout.strip() == "[]"
