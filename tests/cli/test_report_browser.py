"""The report in a real headless Chromium: it renders, and a sample's drill-down opens from a link.

Needs Debian's ``chromium``; skipped with a reason when it is absent outside CI, a failure in CI.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from PIL import Image

from ragmetrics_core.batch import evaluate_file
from ragmetrics_core.report import write_report
from tests.cli.conftest import SentenceJudge, good_row, write_jsonl

pytestmark = pytest.mark.slow

# li.claim.cat-halluc's background: painted only when a drill-down holding a hallucinated claim is open.
HALLUCINATED_CLAIM_BACKGROUND = (255, 241, 240)


def _chromium() -> str:
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    if found is None:
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail("chromium is required in CI for the report's browser tests (apt-get install chromium)")
        pytest.skip("chromium is not installed (apt-get install chromium); the report's browser tests need it")
    return found


def _browser(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    profile = tmp_path / "chromium-profile"
    command = [
        _chromium(),
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--hide-scrollbars",
        f"--user-data-dir={profile}",
        "--virtual-time-budget=3000",
        *args,
    ]
    return subprocess.run(command, capture_output=True, text=True, timeout=120, check=True)


@pytest.fixture
def report(tmp_path: Path) -> Path:
    rows = [good_row(i) for i in range(4)]
    run = evaluate_file(write_jsonl(tmp_path / "in.jsonl", rows), judge=SentenceJudge(), progress=False)
    return write_report(run.results, tmp_path / "report.html", samples=run.samples, title="browser check")


def _pixels(path: Path) -> list[tuple[int, int, int]]:
    with Image.open(path) as picture:
        rgb = picture.convert("RGB")
        return [rgb.getpixel((x, y)) for y in range(0, rgb.height, 2) for x in range(0, rgb.width, 2)]


def test_a_link_to_a_sample_opens_its_drill_down(tmp_path: Path, report: Path) -> None:
    dom = _browser(tmp_path, "--dump-dom", f"{report.as_uri()}#sample-3-chunk-1").stdout
    tags = {match.group(1): match.group(0) for match in re.finditer(r"<details[^>]*id=\"(sample-\d+)\"[^>]*>", dom)}
    assert set(tags) == {"sample-1", "sample-2", "sample-3", "sample-4"}
    assert 'open=""' in tags["sample-3"]
    assert all('open=""' not in tags[name] for name in ("sample-1", "sample-2", "sample-4"))
    assert "browser check" in dom


def test_the_page_renders_and_the_open_drill_down_shows_coloured_claims(tmp_path: Path, report: Path) -> None:
    closed, opened = tmp_path / "closed.png", tmp_path / "open.png"
    size = "--window-size=1280,2200"
    _browser(tmp_path, size, f"--screenshot={closed}", report.as_uri())
    _browser(tmp_path, size, f"--screenshot={opened}", f"{report.as_uri()}?open=sample-2")
    closed_pixels, open_pixels = _pixels(closed), _pixels(opened)
    # Rendered, not blank: many colours (text antialiasing, histograms, bars).
    assert len(set(closed_pixels)) > 100
    white = sum(1 for pixel in closed_pixels if pixel == (255, 255, 255))
    assert white < 0.97 * len(closed_pixels)
    assert HALLUCINATED_CLAIM_BACKGROUND not in set(closed_pixels)
    assert sum(1 for pixel in open_pixels if pixel == HALLUCINATED_CLAIM_BACKGROUND) > 200


def _opened(dom: str) -> list[str]:
    """The labels (``#N``) of the drill-downs open in a dumped DOM."""
    return re.findall(r"<details [^>]*open=\"\"[^>]*><summary><span class=\"idx\"[^>]*>#(\d+)</span>", dom)


@pytest.fixture
def long_report(tmp_path: Path) -> Path:
    run = evaluate_file(write_jsonl(tmp_path / "long.jsonl", [good_row(i) for i in range(40)]), judge=SentenceJudge(),
                        progress=False)
    return write_report(run.results, tmp_path / "long.html", samples=run.samples, title="long report")


def test_a_link_opens_the_sample_its_number_names(tmp_path: Path, long_report: Path) -> None:
    assert _opened(_browser(tmp_path, "--dump-dom", f"{long_report.as_uri()}?open=sample-19").stdout) == ["19"]
    assert _opened(_browser(tmp_path, "--dump-dom", f"{long_report.as_uri()}#sample-20").stdout) == ["20"]


def test_a_link_to_a_sample_far_down_renders_it_not_a_blank_page(tmp_path: Path, long_report: Path) -> None:
    shot = tmp_path / "far.png"
    _browser(tmp_path, "--window-size=1280,900", f"--screenshot={shot}", f"{long_report.as_uri()}#sample-35")
    pixels = _pixels(shot)
    assert len(set(pixels)) > 100  # text, badges and coloured claims; a blank capture is one colour
    assert sum(1 for pixel in pixels if pixel == HALLUCINATED_CLAIM_BACKGROUND) > 200  # the open drill-down
