"""Deprecated: the old name of :mod:`ragmetrics_core.scale.ray_backend`, kept for one release. Each name is served
from there with a ``DeprecationWarning`` (``RayFileEngine`` is ``RayBackend`` now); Ray is imported on first use."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ragmetrics_core._lazy import Renamed, lazy_package

if TYPE_CHECKING:
    from ragmetrics_core.scale.ray_backend import DEFAULT_BATCH_SIZE as DEFAULT_BATCH_SIZE
    from ragmetrics_core.scale.ray_backend import RayBackend
    from ragmetrics_core.scale.ray_backend import connect as connect
    from ragmetrics_core.scale.ray_backend import evaluate_on_ray as evaluate_on_ray
    from ragmetrics_core.scale.ray_backend import score_dataset as score_dataset
    from ragmetrics_core.scale.ray_backend import shutdown_local as shutdown_local

    RayFileEngine = RayBackend

_NEW = "ragmetrics_core.scale.ray_backend"
_SAME = ("DEFAULT_BATCH_SIZE", "connect", "evaluate_on_ray", "score_dataset", "shutdown_local")
lazy_package(
    __name__,
    {},
    {"RayFileEngine": Renamed(_NEW, "RayBackend"), **{name: Renamed(_NEW, name) for name in _SAME}},
)
