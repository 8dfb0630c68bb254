"""Checks of the whole package: the documentation stays true, the wheel installs, both ends of the
numba range work, the notebook runs, the import graph has no cycle, no module uses another's
private names, the public API is annotated, and the experiments' scripts refuse bad input."""
