"""The pack model: a set's pack template plus its printings grouped by rarity, and the errors.

A ``PackModel`` is plain data (no session): the engine, the odds and the Monte Carlo all work
on it, so they are tested without a database.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from sqlalchemy import select as sa_select
from sqlmodel import Session, col, select

from catalog.errors import LunzangError, Message
from catalog.games import DEFAULT_GAME, GAMES, get_game, module_of
from catalog.models import Card, CardSet, Game, PackTemplate, Printing
from catalog.text import fold

if TYPE_CHECKING:
    import numpy as np

# "Absurdly large": a web request or a CLI call opens at most this many boxes / packs. The Monte
# Carlo (which never builds card lists) has its own, much larger, bounds.
MAX_BOXES = 100
MAX_PACKS = 2000
# Seeds are kept to 63 bits so that they fit a signed 64-bit column (the future ledger's reason
# and any SQL database) and survive every JSON parser that reads integers as int64.
MAX_SEED = 2**63 - 1
MAX_TRIALS = 1_000_000  # Monte Carlo trials of one ``complete_set`` (here: the CLI shows it)


class BoosterError(LunzangError):
    """A booster request that cannot be served (bad set, bad count, bad seed)."""

    code = "bad_request"


class UnknownSet(BoosterError):
    code = "unknown_set"


class UnknownGame(BoosterError):
    code = "unknown_game"


class NoPackTemplate(BoosterError):
    code = "no_pack_template"


class BadCount(BoosterError):
    code = "bad_count"


class BadSeed(BoosterError):
    code = "bad_seed"


def _fail(cls: type[BoosterError], zh: str, en: str) -> BoosterError:
    return cls(Message(zh, en))


@dataclass(frozen=True)
class PackPrinting:
    """One printing a pack can hold: database id (for the ledger hook) and what is shown."""

    id: int
    number: str
    name: str
    rarity: str


@dataclass(frozen=True)
class Slot:
    """``count`` cards; their rarities drawn by ``weights`` or dealt by ``collation`` per box."""

    count: int
    weights: dict[str, float]  # rarity → probability (normalised, positive only)
    collation: dict[str, int] | None = None  # rarity → exact count per box (sums to count × packs_per_box)

    @property
    def rarities(self) -> list[str]:
        keys = self.collation if self.collation is not None else self.weights
        return [r for r, v in keys.items() if v > 0]


@dataclass(frozen=True)
class PackModel:
    """Everything needed to open packs of one set, with no database behind it."""

    game: str
    set_code: str
    template: str
    packs_per_box: int
    slots: tuple[Slot, ...]
    # rarity (ladder order, lowest first) → printings of that rarity in collector-number order
    pools: dict[str, tuple[PackPrinting, ...]]
    set_name: str = ""
    rarity_order: tuple[str, ...] = field(default=())

    @property
    def cards_per_pack(self) -> int:
        return sum(s.count for s in self.slots)

    @property
    def printings(self) -> list[PackPrinting]:
        """Every printing, grouped by rarity (ladder order): the index order of the engine."""
        return [p for pool in self.pools.values() for p in pool]

    def offsets(self) -> dict[str, int]:
        """Index of the first printing of each rarity in ``printings``."""
        out, start = {}, 0
        for rarity, pool in self.pools.items():
            out[rarity] = start
            start += len(pool)
        return out

    def obtainable(self) -> list[str]:
        """Rarities a pack can contain (positive weight or collation count in some slot)."""
        found = {r for s in self.slots for r in s.rarities}
        return [r for r in self.pools if r in found]


def _number_key(number: str) -> tuple[Any, ...]:
    """Collector numbers sort by their digits (M4-2 before M4-10), as on the set page."""
    return tuple((0, int(p), "") if p.isdigit() else (1, 0, p) for p in re.split(r"(\d+)", number))


def build_model(
    *,
    game: str,
    set_code: str,
    template: str,
    packs_per_box: int,
    slots: list[dict[str, Any]],
    printings: list[PackPrinting],
    rarity_order: tuple[str, ...],
    set_name: str = "",
) -> PackModel:
    """A pack model from template rows (the ``PackTemplate.slots`` JSON) and printings.

    The pools are in collector-number order so that one seed gives the same cards on every
    database, whatever ids the rows got.
    """
    rank = {code: i for i, code in enumerate(rarity_order)}
    pools: dict[str, list[PackPrinting]] = {}
    for printing in sorted(printings, key=lambda p: (rank.get(p.rarity, len(rank)), _number_key(p.number))):
        pools.setdefault(printing.rarity, []).append(printing)
    parsed: list[Slot] = []
    for raw in slots:
        weights = {str(r): float(w) for r, w in (raw.get("rarity") or {}).items() if float(w) > 0}
        total = sum(weights.values())
        collation_raw = raw.get("box_collation")
        collation = {str(r): int(n) for r, n in collation_raw.items() if int(n) > 0} if collation_raw else None
        ordered = sorted(weights, key=lambda r: rank.get(r, len(rank)))
        parsed.append(
            Slot(
                count=int(raw.get("count", 1)),
                weights={r: weights[r] / total for r in ordered} if total > 0 else {},
                collation={r: collation[r] for r in sorted(collation, key=lambda r: rank.get(r, len(rank)))}
                if collation
                else None,
            )
        )
    model = PackModel(
        game=game,
        set_code=set_code,
        template=template,
        packs_per_box=packs_per_box,
        slots=tuple(parsed),
        pools={r: tuple(pools[r]) for r in pools},
        set_name=set_name,
        rarity_order=rarity_order,
    )
    # The importer already refuses templates that need a rarity the set lacks; a database
    # edited by hand could still hold one, and the engine must not divide by zero for it.
    for slot in model.slots:
        missing = [r for r in slot.rarities if r not in model.pools]
        if missing:
            raise _fail(
                NoPackTemplate,
                f"系列 {set_code} 的卡包模板「{template}」需要稀有度 {'、'.join(missing)} 的卡，但该系列没有",
                f"set {set_code}: template {template!r} needs rarity {', '.join(missing)} the set does not have",
            )
    return model


def resolve_game(session: Session, game: str) -> Game:
    module = get_game(game)
    row = session.scalars(select(Game).where(Game.slug == module.slug)).first() if module else None
    if row is None:
        known = "、".join(GAMES)
        raise _fail(UnknownGame, f"没有这个游戏：{game}（可用：{known}）", f"unknown game {game!r}; known: {known}")
    return row


def load_pack_model(*, session: Session, set_code: str, game: str = DEFAULT_GAME) -> PackModel:
    """The pack model of a set (code folded: m4 = M4), or a clear ``BoosterError``."""
    game_row = resolve_game(session, game)
    module = module_of(game_row)  # the catalogue's declared ladder, if any
    card_set = session.scalars(
        select(CardSet).where(CardSet.game_id == game_row.id, CardSet.code_key == fold(set_code))
    ).first()
    if card_set is None:
        raise _fail(
            UnknownSet,
            f"{module.name}没有系列「{set_code}」",
            f"{module.name_en or game_row.slug} has no set {set_code!r}",
        )
    template = session.get(PackTemplate, card_set.pack_template_id) if card_set.pack_template_id else None
    if template is None:
        raise _fail(
            NoPackTemplate,
            f"系列 {card_set.code} 没有卡包模板（{card_set.name} 不是以补充包形式发售的），无法开包",
            f"set {card_set.code} has no pack template: it is not sold in booster packs",
        )
    rows = session.execute(
        select(Printing.id, Printing.number, Card.name, Printing.rarity)
        .join(Card, col(Card.id) == col(Printing.card_id))
        .where(Printing.set_id == card_set.id)
    )
    printings = [PackPrinting(int(pid), number, name, rarity) for pid, number, name, rarity in rows]
    return build_model(
        game=game_row.slug,
        set_code=card_set.code,
        template=template.name,
        packs_per_box=template.packs_per_box,
        slots=template.slots,
        printings=printings,
        rarity_order=tuple(module.rarity.codes),
        set_name=card_set.name,
    )


def check_counts(*, packs: int | None, boxes: int | None) -> tuple[int | None, int | None]:
    """Exactly one of packs/boxes, each between 1 and the limits above."""
    if (packs is None) == (boxes is None):
        raise _fail(BadCount, "请给出包数或盒数（二者选一）", "give either a number of packs or of boxes")
    if boxes is not None and not 1 <= boxes <= MAX_BOXES:
        raise _fail(
            BadCount,
            f"盒数应在 1 到 {MAX_BOXES} 之间，而不是 {boxes}",
            f"boxes must be between 1 and {MAX_BOXES}, not {boxes}",
        )
    if packs is not None and not 1 <= packs <= MAX_PACKS:
        raise _fail(
            BadCount,
            f"包数应在 1 到 {MAX_PACKS} 之间，而不是 {packs}",
            f"packs must be between 1 and {MAX_PACKS}, not {packs}",
        )
    return packs, boxes


def check_seed(seed: int | None) -> int:
    """The given seed (0 … 2⁶³−1), or a fresh one when ``None``.

    A fresh seed comes from the operating system's entropy (``SeedSequence().entropy``, 128
    bits) reduced to 63 bits, so every opening has a seed that can be shown and replayed.
    """
    if seed is None:
        import numpy as np  # here, not at the top: pages and commands that never draw skip it

        # why the type: ignore below: numpy types entropy as int | Sequence[int]; a fresh SeedSequence's is an int
        return int(np.random.SeedSequence().entropy) & MAX_SEED  # type: ignore[arg-type]
    if seed < 0:
        raise _fail(BadSeed, f"种子不能是负数：{seed}", f"the seed cannot be negative: {seed}")
    if seed > MAX_SEED:
        raise _fail(BadSeed, f"种子不能大于 2^63−1：{seed}", f"the seed cannot exceed 2^63−1: {seed}")
    return seed


def make_rng(seed: int) -> np.random.Generator:
    """The one generator every opening uses: same seed ⇒ same cards on every machine."""
    import numpy as np

    return np.random.Generator(np.random.PCG64(seed))


def parse_int(raw: Any, *, what_zh: str, what_en: str, error: type[BoosterError] = BadCount) -> int | None:
    """A whole number from a form/JSON/CLI value (``None``/empty → ``None``), or a clear error."""
    if raw is None or raw == "":
        return None
    if isinstance(raw, bool):
        raise _fail(error, f"{what_zh}应是整数", f"{what_en} must be a whole number")
    if isinstance(raw, int):
        return raw
    if isinstance(raw, float) and raw.is_integer() and abs(raw) < 2**63:
        return int(raw)  # JSON's 2.0 is a whole number (JSON Schema counts it an integer)
    text = str(raw).strip()
    if re.fullmatch(r"[+-]?\d{1,40}", text):
        return int(text)
    raise _fail(
        error, f"{what_zh}应是整数，而不是「{text[:40]}」", f"{what_en} must be a whole number, not {text[:40]!r}"
    )


@dataclass(frozen=True)
class BoosterSet:
    """A set that has a pack template, for the page that lets one choose what to open."""

    game: str
    game_name: str
    code: str
    name: str
    series: str
    template: str
    packs_per_box: int


def booster_sets(session: Session) -> list[BoosterSet]:
    """Every set with a pack template: games in registry order, sets in manifest order."""
    # SQLAlchemy's select: sqlmodel's typed overloads stop at four columns.
    rows = session.execute(
        sa_select(
            col(Game.slug),
            col(Game.name),
            col(CardSet.code),
            col(CardSet.name),
            col(CardSet.series),
            col(PackTemplate.name),
            col(PackTemplate.packs_per_box),
        )
        .join(CardSet, col(CardSet.game_id) == col(Game.id))
        .join(PackTemplate, col(PackTemplate.id) == col(CardSet.pack_template_id))
        .order_by(col(CardSet.position), col(CardSet.code))
    ).all()
    order = {slug: i for i, slug in enumerate(GAMES)}
    found = [BoosterSet(*row) for row in rows]
    return sorted(found, key=lambda s: order.get(s.game, len(order)))
