"""the API document's OpenAPI links lead from what creates or lists trades and
events to everything that acts on them, so a client (or schemathesis' stateful phase, ``make
fuzz``) can create a trade and then counter, accept, send, receive, dispute or cancel it, and
go from an event to its pairings and from a pairing to its result."""

from __future__ import annotations

import re
from typing import Any

from webapp.api.openapi import document


def _operations(doc: dict[str, Any]) -> dict[str, tuple[str, dict[str, Any]]]:
    return {
        op["operationId"]: (f"{method.upper()} {path}", op)
        for path, item in doc["paths"].items()
        for method, op in item.items()
        if "operationId" in op
    }


def test_every_operation_on_a_trade_or_an_event_is_reached_by_a_link(app: Any) -> None:
    with app.app_context():
        doc = document()
    by_id = _operations(doc)
    targets: dict[str, set[str]] = {}
    for path, item in doc["paths"].items():
        for method, op in item.items():
            for status, response in op["responses"].items():
                for name, link in response.get("links", {}).items():
                    assert link["operationId"] in by_id, (path, name)
                    target_path = by_id[link["operationId"]][0].split(" ", 1)[1]
                    for parameter in link.get("parameters", {}):
                        assert "{" + parameter + "}" in target_path, (path, name, parameter)
                    targets.setdefault(by_id[link["operationId"]][0], set()).add(f"{method.upper()} {path} {status}")
    needing = [
        f"{method.upper()} {path}"
        for path, item in doc["paths"].items()
        for method in item
        if re.search(r"\{(trade|event)_id\}", path)
    ]
    assert len(needing) == 13
    assert [label for label in needing if label not in targets] == []
    assert "POST /trades 201" in targets["POST /trades/{trade_id}/accept"]
    assert "GET /events/{event_id}/pairings 200" in targets["POST /events/{event_id}/results"]
    accept = doc["paths"]["/trades"]["post"]["responses"]["201"]["links"]["AcceptTrade"]
    assert accept["requestBody"] == {"version": "$response.body#/version"}
