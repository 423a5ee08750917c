"""Reading RAG samples from files: ragas-style JSONL/JSON/CSV with column mapping, and RAGChecker JSON."""

from ragmetrics_core.formats.columns import parse_column_mapping, sample_key
from ragmetrics_core.formats.errors import InputError, RowError
from ragmetrics_core.formats.loader import InputFormat, LoadedSample, iter_samples, load_samples

__all__ = [
    "InputError",
    "InputFormat",
    "LoadedSample",
    "RowError",
    "iter_samples",
    "load_samples",
    "parse_column_mapping",
    "sample_key",
]
