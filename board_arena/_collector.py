"""The garbage collector's pause while the subpackages import numba (used by their ``__init__``)."""

import gc

__all__ = ["CollectorPaused"]


class CollectorPaused:
    """Python's cyclic garbage collector paused while a subpackage imports numba, numpy and its
    kernels: that makes a few hundred thousand objects that live as long as the process, which
    the collector, run again and again meanwhile, would go over and free nothing. It is left as
    it was found (nested pauses leave it to the outermost)."""

    def __enter__(self) -> None:
        self._was_collecting = gc.isenabled()
        gc.disable()

    def __exit__(self, *exc_info: object) -> None:
        if self._was_collecting:
            gc.enable()
