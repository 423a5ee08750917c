"""The evidence-parts table of docs/architecture.md is the code's: PARTS in evidence.py and the metrics' needs."""

from __future__ import annotations

from pathlib import Path

from ragmetrics_core.evidence import PARTS, CheckedParts, Evidence, EvidencePart, ExtractedParts
from ragmetrics_core.judges.base import CheckResult, Extraction
from ragmetrics_core.metrics import METRICS, MetricOptions
from ragmetrics_core.sample import RagSample

DOC = Path(__file__).resolve().parents[2] / "docs" / "architecture.md"
# context_precision reads reference claims with a reference and response claims without one.
SAMPLES = (
    RagSample(user_input="q", response="r", reference="g", retrieved_contexts=["c"]),
    RagSample(user_input="q", response="r", retrieved_contexts=["c"]),
)


def _doc_rows() -> dict[str, list[str]]:
    text = DOC.read_text(encoding="utf-8")
    start = text.index("## Evidence parts")
    section = text[start:text.index("\n## ", start)]
    lines = [line for line in section.splitlines() if line.startswith("| `")]
    rows = [[cell.strip() for cell in line.strip("|").split("|")] for line in lines]
    return {cells[0].strip("`"): cells[1:] for cells in rows}


def _names(cell: str) -> list[str]:
    return [name.strip() for name in cell.split(",") if name.strip()]


def test_every_part_is_in_the_table_once_and_is_an_evidence_field() -> None:
    assert list(PARTS) == list(EvidencePart)
    fields = [*ExtractedParts.model_fields, *CheckedParts.model_fields, "question_similarities"]
    assert [part.value for part in EvidencePart] == fields
    # Besides the parts: why a part is missing, and what the extraction set aside as no claim (never a metric's).
    assert [name for name in Evidence.model_fields if name not in {"errors", "skipped"}] == fields
    assert set(Extraction.model_fields) - {"usage", "skipped"} == set(ExtractedParts.model_fields)
    assert set(CheckResult.model_fields) - {"usage"} == set(CheckedParts.model_fields)


def test_the_documented_table_is_the_code() -> None:
    rows = _doc_rows()
    assert list(rows) == [part.value for part in PARTS]
    options = MetricOptions()
    for part, spec in PARTS.items():
        stage, source, items, premise, needed, optional = rows[part.value]
        assert (stage, source, items.strip("`"), premise) == (
            spec.stage.value, spec.source or "", spec.items.value if spec.items else "",
            spec.premise.value if spec.premise else "",
        ), part
        needs = [m for m, s in METRICS.items() if any(part in s.needs(sample, options) for sample in SAMPLES)]
        assert _names(needed) == needs, part
        assert _names(optional) == [m for m, s in METRICS.items() if part in s.optional], part
