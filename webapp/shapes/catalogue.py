"""The catalogue's shapes: a card (search hit and detail), the set list, pack openings and odds."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any

from pydantic import ConfigDict, Field, WithJsonSchema

from catalog import boosters
from catalog.boosters.odds import Odds, RarityOdds
from catalog.games import DEFAULT_GAME, GAMES
from catalog.search import SearchHit, SearchResult
from webapp.shapes import Number, Shape

if TYPE_CHECKING:  # numpy comes with the sampler: `lunzang search` and app start do without it
    from catalog.boosters.completion import Completion, Distribution
    from catalog.boosters.model import PackPrinting
    from catalog.boosters.opening import Opening


# ---------------------------------------------------------------------------- cards and sets


class Card(Shape):
    """One search hit in the DESIGN §6 shape (plus the rules fields)."""

    name: str
    name_en: str | None
    game: str = Field(json_schema_extra={"enum": list(GAMES)})
    type: str
    subtype: str | None
    rarity: str
    set: str
    set_name: str
    number: str
    attributes: list[str]
    faction: str | None
    cost: str | None
    cost_total: int | None
    attack: int | None
    defense: int | None
    level: int | None
    life: int | None
    traits: list[str]
    keywords: list[Any]
    text: str
    url: str | None = Field(None, description="the card's page (search answers)")

    @classmethod
    def of(cls, hit: SearchHit, **more: Any) -> Card:
        card, printing, card_set = hit.card, hit.printing, hit.card_set
        return cls(
            name=card.name,
            name_en=card.name_en or None,
            game=hit.game,
            type=card.type,
            subtype=card.subtype or None,
            rarity=printing.rarity,
            set=card_set.code,
            set_name=card_set.name,
            number=printing.number,
            attributes=list(card.attributes) if card.attributes else [],
            faction=card.faction or None,
            cost=card.cost_text or None,
            cost_total=card.cost_total,
            attack=card.attack,
            defense=card.defense,
            level=card.level,
            life=card.life,
            traits=card.traits,
            keywords=[k["label"] for k in card.keywords],
            text=card.text,
            **more,
        )


class CardPage(Shape):
    """A page of search results."""

    total: int
    page: int
    per_page: int
    has_more: bool
    order: str
    direction: str
    unique: str
    cards: list[Card]
    next_page: str | None = Field(None, description="the next page's URL, when there is one")

    @classmethod
    def of(cls, result: SearchResult, cards: list[Card] | None = None) -> CardPage:
        """The page of ``result`` (its hits as :meth:`Card.of`, unless ``cards`` are given)."""
        return cls(
            total=result.total,
            page=result.page,
            per_page=result.per_page,
            has_more=result.has_more,
            order=result.order,
            direction=result.direction,
            unique=result.unique,
            cards=[Card.of(hit) for hit in result.hits] if cards is None else cards,
        )


class CardPrinting(Shape):
    set: str
    set_name: str
    number: str
    rarity: str
    flavor: str | None


class CardDetail(Card):
    """One card with every printing (``keywords`` with their reminder texts, ``extra`` fields)."""

    printings: list[CardPrinting]
    extra: dict[str, Any]


class SetEntry(Shape):
    game: str
    code: str
    name: str
    series: str
    kind: str
    release: str | None
    description: str | None
    sample: bool
    printings: int
    rarities: dict[str, int]
    boosters: bool


class SetList(Shape):
    sets: list[SetEntry]


# ---------------------------------------------------------------------------- boosters

# packs, boxes and seed are read by the domain (catalog.boosters.parse_int: its bad_count and
# bad_seed answers), so the shape takes any value; the document says what the domain accepts.
_PACKS = Annotated[Any, WithJsonSchema({"type": ["integer", "null"], "minimum": 1, "maximum": boosters.MAX_PACKS})]
_BOXES = Annotated[Any, WithJsonSchema({"type": ["integer", "null"], "minimum": 1, "maximum": boosters.MAX_BOXES})]


class PackOpenRequest(Shape):
    """Give exactly one of packs and boxes."""

    model_config = ConfigDict(
        json_schema_extra={
            # exactly one of the two (the server answers 400 bad_count to both or neither)
            "oneOf": [
                {"required": ["packs"], "not": {"required": ["boxes"]}},
                {"required": ["boxes"], "not": {"required": ["packs"]}},
            ]
        }
    )

    set: str = Field(min_length=1, description="系列代号，如 M4")
    game: str | None = Field(DEFAULT_GAME, description="null: the default game, as when it is left out")
    # null: not given (3 boxes when neither is), as the server reads it
    packs: _PACKS = None
    boxes: _BOXES = None
    seed: Annotated[
        Any,
        WithJsonSchema(
            {
                "type": ["integer", "null"],  # null: a random seed, as when it is left out
                "minimum": 0,
                "maximum": boosters.MAX_SEED,
                "description": "同一种子总是开出同样的卡；省略则随机选一个并在结果中返回",
            }
        ),
    ] = None
    add_to_collection: bool = Field(
        False,
        strict=True,
        description="把开出的卡加入调用者的收藏（需要 API 令牌）；同一系列同一种子只加入一次，再次请求得到 409",
    )


class PackCard(Shape):
    number: str
    name: str
    rarity: str

    @classmethod
    def of(cls, printing: PackPrinting) -> PackCard:
        return cls(number=printing.number, name=printing.name, rarity=printing.rarity)


class Pack(Shape):
    cards: list[PackCard]


class Box(Shape):
    packs: list[Pack]


class AddedToCollection(Shape):
    added: int
    ref: str


class PackOpening(Shape):
    """The DESIGN §7 shape, plus the game and the template name (extensions)."""

    set: str
    game: str
    template: str
    seed: int
    boxes: list[Box]
    collection: AddedToCollection | None = Field(None, description="add_to_collection: what was added")

    @classmethod
    def of(cls, opening: Opening) -> PackOpening:
        return cls(
            set=opening.model.set_code,
            game=opening.model.game,
            template=opening.model.template,
            seed=opening.seed,
            boxes=[Box(packs=[Pack(cards=[PackCard.of(p) for p in pack]) for pack in box]) for box in opening.boxes],
        )


class RarityChance(Shape):
    expected: Number
    p_at_least_one: Number

    @classmethod
    def of(cls, odds: RarityOdds) -> RarityChance:
        return cls(expected=odds.expected, p_at_least_one=odds.p_at_least_one)


class PrintingChance(Shape):
    number: str
    name: str
    rarity: str
    p_pack: Number
    p_box: Number
    p_boxes: Number
    expected_per_pack: Number
    expected_per_box: Number


class PackOdds(Shape):
    """DESIGN §7 (``set``, ``per_pack``, ``per_box``) plus per-printing odds (extension)."""

    set: str
    game: str
    template: str
    packs_per_box: int
    cards_per_pack: int
    n_boxes: int
    per_pack: dict[str, RarityChance]
    per_box: dict[str, RarityChance]
    per_boxes: dict[str, RarityChance]
    printings: list[PrintingChance]

    @classmethod
    def of(cls, odds: Odds) -> PackOdds:
        return cls(
            set=odds.model.set_code,
            game=odds.model.game,
            template=odds.model.template,
            packs_per_box=odds.model.packs_per_box,
            cards_per_pack=odds.model.cards_per_pack,
            n_boxes=odds.n_boxes,
            per_pack={r: RarityChance.of(o) for r, o in odds.per_pack.items()},
            per_box={r: RarityChance.of(o) for r, o in odds.per_box.items()},
            per_boxes={r: RarityChance.of(o) for r, o in odds.per_boxes.items()},
            printings=[
                PrintingChance(
                    number=p.printing.number,
                    name=p.printing.name,
                    rarity=p.printing.rarity,
                    p_pack=p.p_pack,
                    p_box=p.p_box,
                    p_boxes=p.p_boxes,
                    expected_per_pack=p.expected_per_pack,
                    expected_per_box=p.expected_per_box,
                )
                for p in odds.printings
            ],
        )


class BoxesNeeded(Shape):
    """Boxes needed over the trials: mean, percentiles and the histogram {boxes: trials}."""

    mean: Number
    p50: int
    p90: int
    p99: int
    exact_mean: Number | None = None
    histogram: dict[str, int]

    @classmethod
    def of(cls, dist: Distribution) -> BoxesNeeded:
        shape = cls(
            mean=dist.mean,
            p50=dist.p50,
            p90=dist.p90,
            p99=dist.p99,
            histogram={str(k): v for k, v in dist.histogram.items()},
        )
        if dist.exact_mean is not None:
            shape.exact_mean = dist.exact_mean
        return shape


class SetCompletion(Shape):
    """DESIGN §7: ``set``, ``trials``, ``seed``, ``complete``, ``playset`` (+ extensions)."""

    set: str
    game: str
    trials: int
    seed: int
    unit: str
    packs_per_box: int
    complete: BoxesNeeded
    playset: BoxesNeeded
    packs_simulated: int
    unobtainable: int

    @classmethod
    def of(cls, result: Completion) -> SetCompletion:
        return cls(
            set=result.model.set_code,
            game=result.model.game,
            trials=result.trials,
            seed=result.seed,
            unit="boxes",
            packs_per_box=result.model.packs_per_box,
            complete=BoxesNeeded.of(result.complete),
            playset=BoxesNeeded.of(result.playset),
            packs_simulated=result.packs_simulated,
            unobtainable=result.unobtainable,
        )
