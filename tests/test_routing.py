"""URL rules build their URLs lazily (webapp/routing.py,): every URL the app can build
is the same as werkzeug's own rules build, with and without extra query arguments."""

from __future__ import annotations

from typing import Any

from flask import Flask
from werkzeug.routing import IntegerConverter, Map, Rule

from webapp.routing import LazyBuildRule


def _values(rule: Rule) -> dict[str, Any]:
    return {
        name: 7 if isinstance(converter, IntegerConverter) else "甲 b/c"
        for name, converter in (rule._converters or {}).items()
    }


def test_every_rule_builds_the_urls_werkzeug_builds(app: Flask) -> None:
    rules = [rule for rule in app.url_map.iter_rules() if rule.endpoint != "static"]
    assert len(rules) > 100 and all(type(rule) is LazyBuildRule for rule in rules)
    plain = Map([Rule(rule.rule, **rule.get_empty_kwargs()) for rule in rules], converters=app.url_map.converters)
    ours = app.url_map.bind("lunzang.test")
    theirs = plain.bind("lunzang.test")
    for rule in rules:
        values = _values(rule)
        method = sorted(rule.methods or {"GET"})[0]
        for extra in ({}, {"q": "t:战魂 a:火", "page": 2}):
            built = ours.build(rule.endpoint, {**values, **extra}, method=method)
            assert built == theirs.build(rule.endpoint, {**values, **extra}, method=method), rule.rule
            assert ours.build(rule.endpoint, {**values, **extra}, method=method, force_external=True).startswith(
                "http://lunzang.test/"
            )


def test_a_rule_matches_before_any_url_is_built(app: Flask) -> None:
    """Matching needs no builder: a fresh app routes a request first thing."""
    with app.test_client() as client:
        assert client.get("/help/search").status_code == 200


def test_a_second_app_builds_with_the_first_ones_builders(app: Flask, monkeypatch: Any) -> None:
    """The builders are kept for the process: a second app (the suite builds one per test)
    compiles none of the builders the first one already made, and builds the same URLs."""
    from webapp import create_app

    rules = [rule for rule in app.url_map.iter_rules() if rule.endpoint != "static"]
    first = app.url_map.bind("lunzang.test")
    urls = [first.build(rule.endpoint, _values(rule), method=sorted(rule.methods or {"GET"})[0]) for rule in rules]
    second = create_app({**app.config, "TESTING": True})

    def no_compiling(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("a URL builder was compiled again")

    # werkzeug compiles a builder with the builtin compile(): a module global of that name wins
    import werkzeug.routing.rules

    monkeypatch.setattr(werkzeug.routing.rules, "compile", no_compiling, raising=False)
    again = second.url_map.bind("lunzang.test")
    assert [
        again.build(rule.endpoint, _values(rule), method=sorted(rule.methods or {"GET"})[0]) for rule in rules
    ] == urls
    from webapp.db import dispose

    dispose(second)
