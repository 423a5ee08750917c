"""Scoring at scale: :class:`RowScorer` (backend-neutral: a picklable description that scores batches of rows) and,
with ``pip install 'ragmetrics[ray]'``, ``ragmetrics_core.scale.ray_backend`` (Ray Data). This package never
imports Ray itself, so ``ragmetrics_core`` works without it."""

from ragmetrics_core.scale.rows import RowScorer, result_from_row, result_schema

__all__ = ["RowScorer", "result_from_row", "result_schema"]
