"""Domain errors carry their HTTP status: the site and the API answer every one the same way."""

from __future__ import annotations

import pytest

from catalog.collection.csvio import CollectionFileError, CsvProblem
from catalog.collection.grades import BadGrade
from catalog.collection.imports import ImportNotFound
from catalog.collection.items import BadDelta
from catalog.collection.ledger import BadTradeQuantity, NegativeQuantity
from catalog.errors import ConfigurationError, LunzangError, Message
from catalog.lookup import UnknownPrinting


@pytest.mark.parametrize(
    ("kind", "status"),
    [
        (LunzangError, 400),
        (BadGrade, 400),
        (BadDelta, 400),
        (UnknownPrinting, 404),
        (ImportNotFound, 404),
        (NegativeQuantity, 409),
        (BadTradeQuantity, 409),
        (CollectionFileError, 422),
        (ConfigurationError, 503),
    ],
)
def test_each_domain_error_names_its_status(kind: type[LunzangError], status: int) -> None:
    assert kind.status == status


def test_a_file_error_answers_with_every_problem() -> None:
    error = CollectionFileError([CsvProblem(3, "set", Message("未知的系列", "unknown set"))])
    assert error.extra_json() == {
        "details": [{"line": 3, "column": "set", "message": "未知的系列", "message_en": "unknown set"}]
    }
    assert LunzangError(Message("错", "wrong")).extra_json() == {}
