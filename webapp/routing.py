"""URL rules whose URL builders are made when ``url_for`` first needs them.

Werkzeug compiles two small Python functions per rule as the rule is added, to build its URLs
(one keeps unknown arguments as a query string): for the app's ~125 rules that is most of what
``create_app`` costs once the modules are imported — ~60 ms of every command, while a command
builds no URL and a page builds a handful. Matching is unchanged: the rule's parts, which the
router is built from, are still parsed when the rule is added.

The builders are kept for the process: a builder reads the rule's converters through the rule it
is bound to, so it depends only on the rule's text, defaults and parsed trace, and equal rules of
several apps share one. A server builds one app; the test suite builds one per test, and
compiling the same builders again in each was most of its ``create_app`` and first pages.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from werkzeug.routing import Rule

_BUILDERS: dict[tuple[Any, ...], Callable[..., tuple[str, str]]] = {}


class LazyBuildRule(Rule):
    """A werkzeug :class:`~werkzeug.routing.Rule` that compiles each URL builder on first use."""

    def _compile_builder(self, append_unknown: bool = True) -> Callable[..., tuple[str, str]]:
        compile_builder = super()._compile_builder
        built: Callable[..., tuple[str, str]] | None = None

        # werkzeug binds what this returns to the rule (``.__get__(rule)``), as its own builder
        def build(rule: Rule, **values: Any) -> tuple[str, str]:
            nonlocal built
            if built is None:
                defaults = repr(sorted((rule.defaults or {}).items()))
                key = (rule.rule, rule.subdomain, rule.host, defaults, append_unknown, tuple(rule._trace))
                shared = _BUILDERS.get(key)
                if shared is None:
                    shared = _BUILDERS[key] = compile_builder(append_unknown)
                built = shared.__get__(rule, None)
            return built(**values)

        return build
