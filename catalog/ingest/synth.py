"""Synthetic EL catalogues of any size, for benchmarks and load tests (deterministic by seed).

The output is an ordinary import-format folder (DESIGN §3), so it exercises the real
importer: names from a syllable table (several scripts, so folding and pinyin get work),
costs, attributes, traits and keywords drawn from the game's real vocabulary, and about one
printing in ten a reprint of an earlier card in a later set.
"""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np

from catalog.games.samsara import SAMSARA
from catalog.games.samsara.vocabulary import ATTRIBUTES, RARITY

SYLLABLES = list("龍龙风火水光暗星辰天地玄黄宇宙洪荒日月盈昃辰宿列张寒来暑往秋收冬藏剑骑士魔女王灵兽妖精")
TRAITS = ["英灵", "童话", "遗迹兽", "符文", "妖精", "龙", "元素", "吸血鬼", "武侠", "星武装机", "三国", "西游"]
KEYWORDS = [
    "飞翔",
    "先攻",
    "突袭",
    "护盾(1)",
    "护盾(2)",
    "再生(2)",
    "军团(4)",
    "军团(5)",
    "进击",
    "防守",
    "瞬间",
    "闪现",
    "场上唯一",
    "『童话』限定",
    "魔法抗性(3)",
]
TYPES = ["战魂"] * 6 + ["魔法"] * 2 + ["载具", "阵型"]
HEADER = [
    "set",
    "number",
    "name",
    "rarity",
    "type",
    "subtype",
    "attribute",
    "cost",
    "attack",
    "defense",
    "traits",
    "keywords",
    "text",
    "flavor",
]
PER_SET = 500


def write_synthetic_catalogue(out: Path, *, printings: int, seed: int = 1) -> Path:
    """Write ``out/samsara-synth/`` with ``printings`` rows; return that folder."""
    rng = np.random.Generator(np.random.PCG64(seed))
    folder = out / f"{SAMSARA.slug}-synth"
    cards_dir = folder / "cards"
    cards_dir.mkdir(parents=True, exist_ok=True)
    for old in cards_dir.glob("*.csv"):
        old.unlink()
    set_count = max(1, -(-printings // PER_SET))
    codes = [f"X{i + 1}" for i in range(set_count)]
    lines = [f'game = "{SAMSARA.slug}"', f'name = "{SAMSARA.name}"', "sample = true", ""]
    for code in codes:
        lines += ["[[sets]]", f'code = "{code}"', f'name = "合成系列 {code}"', 'series = "M"', 'kind = "booster"', ""]
    (folder / "manifest.toml").write_text("\n".join(lines), encoding="utf-8")

    attributes = [a for a in ATTRIBUTES.canonical if a != "无"]
    rarities = list(RARITY.codes)
    rarity_weights = np.array([50, 25, 12, 8, 5], dtype=float)
    rarity_weights /= rarity_weights.sum()
    written: list[list[str]] = []  # earlier cards' rules fields, for reprints
    row_index = 0
    for code in codes:
        count = min(PER_SET, printings - row_index)
        with (cards_dir / f"{code}.csv").open("w", encoding="utf-8", newline="") as handle:
            writer = csv.writer(handle)
            writer.writerow(HEADER)
            for number in range(1, count + 1):
                rarity = rarities[int(rng.choice(len(rarities), p=rarity_weights))]
                if written and rng.random() < 0.1:
                    fields = written[int(rng.integers(len(written)))]
                else:
                    fields = _new_card(rng, row_index, attributes)
                    written.append(fields)
                name, card_type, attribute, cost, attack, defense, traits, keywords, text = fields
                writer.writerow(
                    [
                        code,
                        f"{code}-{number:04d}",
                        name,
                        rarity,
                        card_type,
                        "",
                        attribute,
                        cost,
                        attack,
                        defense,
                        traits,
                        keywords,
                        text,
                        "",
                    ]
                )
                row_index += 1
    return folder


def _new_card(rng: np.random.Generator, index: int, attributes: list[str]) -> list[str]:
    syllables = "".join(SYLLABLES[int(i)] for i in rng.integers(len(SYLLABLES), size=3))
    name = f"{syllables}{index:06d}"
    card_type = TYPES[int(rng.integers(len(TYPES)))]
    attribute = attributes[int(rng.integers(len(attributes)))]
    if rng.random() < 0.15:
        second = attributes[int(rng.integers(len(attributes)))]
        if second != attribute:
            attribute = "".join(a for a in ATTRIBUTES.canonical if a in (attribute, second))
    coloured = int(rng.integers(1, 3))
    generic = int(rng.integers(0, 4))
    cost = f"{coloured}{attribute[0]}" + (f"{generic}无" if generic else "")
    fighter = card_type in ("战魂", "载具")
    attack = str(int(rng.integers(0, 9))) if fighter else ""
    defense = str(int(rng.integers(1, 9))) if fighter else ""
    traits = TRAITS[int(rng.integers(len(TRAITS)))] if card_type == "战魂" else ""
    keywords = KEYWORDS[int(rng.integers(len(KEYWORDS)))] if fighter and rng.random() < 0.5 else ""
    text = f"合成卡牌 {index}：进场时抽一张牌，本回合{attribute}属性战魂攻击力+1。"
    return [name, card_type, attribute, cost, attack, defense, traits, keywords, text]
