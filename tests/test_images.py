"""Rendered card faces: sizes, glyphs, layout, cache, the image route and the CLI."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest
from PIL import Image, ImageChops
from sqlalchemy.engine import Engine
from sqlmodel import Session, select

from catalog.games import GAMES
from catalog.images import faces as images
from catalog.models import Card, CardSet, Printing
from tests.conftest import REALDATA, SAMPLE

COTA = REALDATA / "keyforge-CotA.json"


def make(name: str = "龙人豪杰·破军", **fields: object) -> tuple[Card, Printing, CardSet]:
    card = Card(
        game_id=1,
        name=name,
        name_key=name,
        type="战魂",
        attributes="火暗",
        cost={"火": 2, "无": 1},
        cost_text="2火1无",
        attack=3,
        defense=3,
        traits=["龙人", "豪杰"],
        keywords=[{"kind": "first_strike", "value": None, "subject": None, "label": "先攻"}],
        text="你场上有其他龙人战魂时，这张战魂攻击力+1。",
    )
    for key, value in fields.items():
        setattr(card, key, value)
    printing = Printing(card_id=1, set_id=1, number="G1-001", number_key="g1-001", rarity="SR")
    return card, printing, CardSet(game_id=1, code="G1", code_key="g1", name="G1", sample=True)


# ---------------------------------------------------------------------------- pure rendering


@pytest.mark.parametrize("size", list(images.SIZES))
def test_sizes_keep_card_proportions(size: str) -> None:
    image = images.render_card(*make(), GAMES["samsara"], size)
    assert image.width == images.SIZES[size]
    assert abs(image.height - image.width * 88 / 63) <= 1


def test_unknown_size_is_refused() -> None:
    with pytest.raises(ValueError):
        images.render_card(*make(), GAMES["samsara"], "huge")


def _shipped_names() -> set[str]:
    names = set()
    for path in SAMPLE.glob("**/cards/*.csv"):
        with path.open(encoding="utf-8") as handle:
            names.update(row["name"] for row in csv.DictReader(handle))
    if COTA.is_file():  # the real KeyForge names when ../shared/realdata is there (CI); else ours alone
        for card in json.loads(COTA.read_text(encoding="utf-8"))["cards"]:
            for script in ("zhhans", "zhhant"):
                names.add(card["locale"][script]["name"])
    return names


def test_every_shipped_name_has_glyphs() -> None:
    names = _shipped_names()
    assert len(names) > 500
    assert any("龍" in n for n in names)  # Traditional names are among them
    assert images.missing_glyphs(names) == set()


def test_missing_glyphs_detects_tofu() -> None:
    assert images.missing_glyphs(["龍誅天 A1", "\U0001f600", "\ue000"]) == {"\U0001f600", "\ue000"}


NAME_AREA = (20, 20, 468, 80)  # the name bar at normal size


def test_name_changes_only_the_name_area() -> None:
    first = images.render_card(*make("龙人豪杰·破军"), GAMES["samsara"])
    second = images.render_card(*make("龙人豪杰·赤鳞"), GAMES["samsara"])
    assert ImageChops.difference(first.crop(NAME_AREA), second.crop(NAME_AREA)).getbbox() is not None
    # Below the picture (whose backdrop shows the first character, the same here) nothing moves.
    lower = (0, 340, first.width, first.height)
    assert ImageChops.difference(first.crop(lower), second.crop(lower)).getbbox() is None


@pytest.mark.parametrize(
    ("text", "width"),
    [
        ("这张战魂攻击对方玩家时，攻击力+1。你场上每有一张其他四灵战魂，这张战魂攻击力+1。", 200),
        ("「飞翔」：可以越过对方防守区的卡牌，直接攻击对方玩家。", 150),
        ("甲乙丙丁戊己庚辛壬癸，。」子丑寅卯", 140),
    ],
)
def test_wrap_never_starts_a_line_with_closing_punctuation(text: str, width: int) -> None:
    lines = images.wrap_cjk(text, images.font(20), width)
    assert "".join(lines) == text
    assert len(lines) > 1
    for line in lines[1:]:
        assert line[0] not in images.NO_LINE_START
    for line in lines[:-1]:
        assert line[-1] not in images.NO_LINE_END


def test_wrap_keeps_latin_words_whole() -> None:
    lines = images.wrap_cjk("Play: Ready and fight with a friendly creature.", images.font(20), 120)
    assert " ".join(lines).split() == ["Play:", "Ready", "and", "fight", "with", "a", "friendly", "creature."]


def test_cache_returns_stored_bytes_without_rendering(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    calls = []
    original = images.render_card

    def counting(*args: object, **kwargs: object) -> Image.Image:
        calls.append(1)
        return original(*args, **kwargs)

    monkeypatch.setattr(images, "render_card", counting)
    card, printing, card_set = make()
    first, etag = images.card_image(card, printing, card_set, GAMES["samsara"], cache_dir=tmp_path, size="small")
    again, etag_again = images.card_image(card, printing, card_set, GAMES["samsara"], cache_dir=tmp_path, size="small")
    assert (again, etag_again) == (first, etag)
    assert len(calls) == 1
    _png, png_etag = images.card_image(card, printing, card_set, GAMES["samsara"], cache_dir=tmp_path, fmt="png")
    assert png_etag != etag and len(calls) == 2
    card.text += "改"
    _changed, changed_etag = images.card_image(
        card, printing, card_set, GAMES["samsara"], cache_dir=tmp_path, fmt="png"
    )
    assert changed_etag != png_etag and len(calls) == 3


# ---------------------------------------------------------------------------- web and CLI


def _some_printing(engine: Engine, slug: str) -> tuple[str, str, str]:
    from catalog.models import Game

    with Session(engine) as session:
        game = session.exec(select(Game).where(Game.slug == slug)).one()
        printing, card_set, card = session.exec(
            select(Printing, CardSet, Card)
            .join(CardSet, CardSet.id == Printing.set_id)
            .join(Card, Card.id == Printing.card_id)
            .where(CardSet.game_id == game.id)
            .order_by(Printing.id)
        ).first()
        return card_set.code, printing.number, card.name


@pytest.mark.parametrize(
    ("slug", "fmt", "mimetype"), [("samsara", "webp", "image/webp"), ("zhutian", "png", "image/png")]
)
def test_image_route_caches_and_revalidates(sample_app, client, sample_catalogue, slug, fmt, mimetype) -> None:
    code, number, _name = _some_printing(sample_catalogue, slug)
    url = f"/images/{slug}/{code}/{number}.small.{fmt}"
    response = client.get(url)
    assert response.status_code == 200
    assert response.mimetype == mimetype
    assert response.headers["Cache-Control"] == "public, max-age=31536000, immutable"
    etag = response.headers["ETag"]
    image = Image.open(io.BytesIO(response.data))
    assert image.format == fmt.upper() and image.size == images.dimensions("small")
    assert (Path(sample_app.instance_path) / "card-images").is_dir()
    again = client.get(url, headers={"If-None-Match": etag})
    assert again.status_code == 304 and not again.data
    assert again.headers["ETag"] == etag


@pytest.mark.parametrize(
    "path",
    [
        "/images/samsara/G1/NOPE-999.small.webp",
        "/images/samsara/NOSET/G1-001.small.webp",
        "/images/nogame/G1/G1-001.small.webp",
        "/images/samsara/G1/G1-001.huge.webp",
        "/images/samsara/G1/G1-001.small.gif",
        "/images/samsara/G1/G1-001.webp",
    ],
)
def test_image_route_404(sample_app, client, path: str) -> None:
    assert client.get(path).status_code == 404


def test_card_page_and_grid_use_images(sample_app, client, sample_catalogue) -> None:
    code, number, name = _some_printing(sample_catalogue, "samsara")
    page = client.get(f"/cards/samsara/{name}").get_data(as_text=True)
    assert f'src="/images/samsara/{code}/{number}.normal.webp?v=' in page
    assert f'alt="{name}"' in page
    grid = client.get("/cards?q=t:战魂&game=samsara").get_data(as_text=True)
    assert 'class="tile-image"' in grid and 'loading="lazy"' in grid and 'width="146" height="204"' in grid
    assert 'class="tile-name"' in grid  # the tile text stays
    src = grid.split('class="tile-image" src="', 1)[1].split('"', 1)[0].replace("&amp;", "&")
    assert client.get(src).status_code == 200


@pytest.mark.parametrize(
    ("card", "game"),
    [("龙人豪杰·破军", "samsara"), ("G1-001", "samsara"), ("青霜剑", "longzhiyi"), ("土地公", "zhutian")],
)
def test_render_command_writes_a_png(runner, sample_catalogue, tmp_path: Path, card: str, game: str) -> None:
    out = tmp_path / "card.png"
    result = runner.invoke(args=["render", card, "--game", game, "--out", str(out), "--size", "small"])
    assert result.exit_code == 0, result.output
    with Image.open(out) as image:
        assert image.format == "PNG" and image.size == images.dimensions("small")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["没有这张卡", "--game", "samsara"], "没有名为或编号为"),
        (["孙悟空", "--game", "nogame"], "没有这个游戏"),
        (["孙悟空", "--game", "samsara", "--size", "huge"], "未知的尺寸"),
    ],
)
def test_render_command_bad_input_exits_2(runner, sample_catalogue, tmp_path: Path, args, message) -> None:
    out = tmp_path / "card.png"
    result = runner.invoke(args=["render", *args, "--out", str(out)])
    assert result.exit_code == 2
    assert message in result.output
    assert not out.exists()


def test_versioned_url_is_served_from_the_cache_without_a_query(
    sample_app, client, sample_catalogue, monkeypatch
) -> None:
    code, number, name = _some_printing(sample_catalogue, "samsara")
    page = client.get(f"/cards/samsara/{name}").get_data(as_text=True)
    src = "/images/" + page.split('<img src="/images/', 1)[1].split('"', 1)[0].replace("&amp;", "&")
    first = client.get(src)
    assert first.status_code == 200

    def no_query(*args: object, **kwargs: object) -> None:
        raise AssertionError("the warm path must not query the database")

    from webapp.images import routes as image_route

    monkeypatch.setattr(image_route, "find_printing", no_query)
    again = client.get(src)
    assert again.data == first.data and again.headers["ETag"] == first.headers["ETag"]
    assert client.get(src, headers={"If-None-Match": first.headers["ETag"]}).status_code == 304
    monkeypatch.undo()
    # A stale or forged version names no stored file: the current face is drawn instead.
    stale = client.get(f"/images/samsara/{code}/{number}.normal.webp?v=0000")
    assert stale.status_code == 200 and stale.headers["ETag"] == first.headers["ETag"]


def test_face_of_a_printing_is_its_scan_else_its_drawn_face(tmp_path: Path) -> None:
    from catalog.images import scans

    card, printing, card_set = make()
    game = GAMES["samsara"]
    store, cache, sha = tmp_path / "scans", tmp_path / "cache", "ab" * 32

    def face(scan_sha: str | None, cache_dir: Path | None) -> tuple[object, str]:
        return scans.face_of(
            card,
            printing,
            card_set,
            game,
            scan_sha=scan_sha,
            scan_dir=store,
            cache_dir=cache_dir,
            size="small",
            fmt="png",
        )

    drawn = images.card_image(card, printing, card_set, game, cache_dir=cache, size="small", fmt="png")
    assert face(None, cache) == drawn
    assert face(sha, cache) == drawn  # a scan row whose files are missing: the drawn face
    path = scans.scan_path(store, sha, "small", "png")
    path.parent.mkdir(parents=True)
    path.write_bytes(b"the scan")
    assert face(sha, cache) == (b"the scan", sha)
    image, etag = face(None, None)
    assert isinstance(image, Image.Image) and etag == ""
