"""A Griffe extension for the API reference: the project's docstrings title their examples
``Example:`` (as python-chess does), which Google-style parsing reads as an admonition of
Markdown text; read as an ``Examples:`` section, their ``>>>`` lines are shown as code."""

from __future__ import annotations

import re
from typing import Any

import griffe

EXAMPLE_TITLE = re.compile(r"^(\s*)Example:[ \t]*$", re.MULTILINE)


class ExampleSections(griffe.Extension):
    def on_object(self, *, obj: griffe.Object, **kwargs: Any) -> None:
        if obj.docstring is not None:
            obj.docstring.value = EXAMPLE_TITLE.sub(r"\1Examples:", obj.docstring.value)
