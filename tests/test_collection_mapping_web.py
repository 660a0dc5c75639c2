"""On the web: the preview names the tool and the columns it ignored; a
header no preset knows gets a mapping step (each column → a field or ignore, the first rows
shown), and the mapping is remembered for the user's next file with the same header."""

from __future__ import annotations

import html
import json
import re
from io import BytesIO
from typing import Any

from sqlalchemy import func, select

from catalog.models import ImportMapping
from tests.kits.collection import collection_of, db, owned_now, pid

UNKNOWN = "Karte;Stück;Notiz\nSummit Fist Champion;3;aus dem Urlaub\n锅盖哥布林;2;\n".encode()


def upload(client: Any, data: bytes, name: str = "karten.csv") -> Any:
    return client.post(
        "/collection/import",
        data={"file": (BytesIO(data), name), "mode": "add"},
        content_type="multipart/form-data",
    )


def _fields(page: str, form_class: str) -> dict[str, str]:
    form = re.search(rf'<form class="{form_class}".*?</form>', page, re.S)
    assert form is not None, page
    return {k: html.unescape(v) for k, v in re.findall(r'<input type="hidden" name="([^"]+)" value="([^"]*)"', form[0])}


def test_the_preview_names_the_tool_and_lists_the_ignored_columns(sample_app, client, login) -> None:
    login(client)
    manabox = (
        b"Binder Name,Binder Type,Name,Set code,Set name,Collector number,Foil,Rarity,Quantity,ManaBox ID,"
        b"Scryfall ID,Purchase price,Misprint,Altered,Condition,Language,Purchase price currency\n"
        b"Main,binder,Summit Fist Champion,SMP,x,1,normal,rare,2,1,a,,false,false,near_mint,zh_CN,USD\n"
    )
    page = upload(client, manabox).get_data(as_text=True)
    assert "ManaBox" in page and "Scryfall ID" in page and 'class="ignored-columns"' in page


def test_an_unknown_header_gets_a_mapping_step_remembered_for_the_next_file(sample_app, client, login) -> None:
    alice = login(client)
    before = collection_of(sample_app, alice.id)
    first = upload(client, UNKNOWN)
    assert first.status_code == 200
    page = first.get_data(as_text=True)
    assert 'class="mapping-form"' in page and "aus dem Urlaub" in page  # the first rows are shown
    assert collection_of(sample_app, alice.id) == before
    fields = _fields(page, "mapping-form")
    assert json.loads(fields["columns"]) == ["Karte", "Stück", "Notiz"]
    preview = client.post("/collection/import", data={**fields, "col-0": "name", "col-1": "quantity"})
    text = preview.get_data(as_text=True)
    assert preview.status_code == 200 and 'class="confirm-import"' in text, text
    assert collection_of(sample_app, alice.id) == before  # a preview writes nothing, remembers nothing
    with db(sample_app) as session:
        assert session.scalar(select(func.count()).select_from(ImportMapping)) == 0
    done = client.post("/collection/import", data=_fields(text, "confirm-import"))
    assert done.status_code == 303
    assert owned_now(sample_app, alice.id, pid(sample_app, "SMP", "SMP-001")) == (3, 0)
    # the next file with the same header (case and spacing aside) goes straight to the preview
    again = upload(client, "karte; STÜCK ;Notiz\n山岳拳王;1;\n".encode()).get_data(as_text=True)
    assert 'class="confirm-import"' in again and 'class="mapping-form"' not in again
    client.post("/collection/import", data=_fields(again, "confirm-import"))
    assert owned_now(sample_app, alice.id, pid(sample_app, "SMP", "SMP-001")) == (4, 0)


def test_a_mapping_is_per_user(sample_app, login) -> None:
    alice_client, bob_client = sample_app.test_client(), sample_app.test_client()
    login(alice_client)
    login(bob_client, "bob")
    page = upload(alice_client, UNKNOWN).get_data(as_text=True)
    fields = _fields(page, "mapping-form")
    preview = alice_client.post("/collection/import", data={**fields, "col-0": "name", "col-1": "quantity"})
    alice_client.post("/collection/import", data=_fields(preview.get_data(as_text=True), "confirm-import"))
    assert 'class="mapping-form"' in upload(bob_client, UNKNOWN).get_data(as_text=True)


def test_a_mapping_that_still_names_no_card_is_refused_clearly(sample_app, client, login) -> None:
    alice = login(client)
    fields = _fields(upload(client, UNKNOWN).get_data(as_text=True), "mapping-form")
    refused = client.post("/collection/import", data={**fields, "col-1": "quantity", "col-0": "bogus"})
    assert refused.status_code == 422 and "缺少列" in refused.get_data(as_text=True)
    assert collection_of(sample_app, alice.id) == {}
