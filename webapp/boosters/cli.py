"""``lunzang packs open|odds|complete`` (DESIGN §7): thin callers of catalog.boosters."""

from __future__ import annotations

import json
from typing import Any

import click
from flask.cli import with_appcontext
from sqlmodel import Session

from catalog import boosters
from catalog.boosters.model import MAX_TRIALS
from catalog.games import DEFAULT_GAME
from webapp.cli_support import friendly
from webapp.db import get_engine
from webapp.shapes.catalogue import PackOdds, PackOpening, SetCompletion


def _echo_json(data: Any) -> None:
    click.echo(json.dumps(data, ensure_ascii=False, indent=2))


def _int(raw: str | None, zh: str, en: str, error: type[boosters.BoosterError] = boosters.BadCount) -> int | None:
    return boosters.parse_int(raw, what_zh=zh, what_en=en, error=error)


def _model(set_code: str, game: str) -> boosters.PackModel:
    with Session(get_engine()) as session:
        return boosters.load_pack_model(session=session, set_code=set_code, game=game)


@click.group("packs")
def packs() -> None:
    """补充包模拟：开包、精确概率、集齐一个系列需要几盒。"""


SET_OPTION = click.option("--set", "set_code", required=True, help="系列代号，如 M4。")
GAME_OPTION = click.option("--game", default=DEFAULT_GAME, show_default=True, help="游戏。")
JSON_OPTION = click.option("--json", "as_json", is_flag=True, help="输出 JSON（DESIGN §7）。")


@packs.command("open")
@SET_OPTION
@click.option("--packs", "packs_raw", help="开几包（一盒之内装这些包）。")
@click.option("--boxes", "boxes_raw", help="开几盒。")
@click.option("--seed", "seed_raw", help="随机种子（非负整数）；不给则随机选一个并显示，可用来重现。")
@JSON_OPTION
@GAME_OPTION
@with_appcontext
@friendly
def open_command(
    set_code: str, packs_raw: str | None, boxes_raw: str | None, seed_raw: str | None, as_json: bool, game: str
) -> None:
    """开补充包：--packs N 或 --boxes N，同一种子总是开出同样的卡。"""
    n_packs = _int(packs_raw, "包数", "packs")
    n_boxes = _int(boxes_raw, "盒数", "boxes")
    seed = _int(seed_raw, "种子", "the seed", boosters.BadSeed)
    model = _model(set_code, game)
    opening = boosters.open_model(model, seed=boosters.check_seed(seed), packs=n_packs, boxes=n_boxes)
    if as_json:
        _echo_json(PackOpening.of(opening).body())
        return
    click.echo(f"{model.set_code} {model.set_name} · 种子 {opening.seed}")
    for b, box in enumerate(opening.boxes, start=1):
        if len(opening.boxes) > 1 or opening.packs_requested is None:
            click.echo(f"第 {b} 盒")
        for p, pack in enumerate(box, start=1):
            cards = "、".join(f"{c.rarity} {c.name}（{c.number}）" for c in pack)
            click.echo(f"  第 {p} 包：{cards}")
    counts = "，".join(f"{r} × {n}" for r, n in opening.rarity_counts().items())
    click.echo(f"合计：{counts}")


@packs.command("odds")
@SET_OPTION
@click.option("--boxes", "boxes_raw", default="3", show_default=True, help="“N 盒内至少一张”中的 N。")
@JSON_OPTION
@GAME_OPTION
@with_appcontext
@friendly
def odds_command(set_code: str, boxes_raw: str, as_json: bool, game: str) -> None:
    """精确概率（闭式计算，不是抽样）：每包、每盒、每张卡。"""
    n_boxes = _int(boxes_raw, "盒数", "boxes") or 0
    boosters.model.check_counts(packs=None, boxes=n_boxes)
    odds = boosters.pack_odds(_model(set_code, game), n_boxes=n_boxes)
    if as_json:
        _echo_json(PackOdds.of(odds).body())
        return
    model = odds.model
    click.echo(f"{model.set_code} {model.set_name}：每包 {model.cards_per_pack} 张，每盒 {model.packs_per_box} 包")
    click.echo("稀有度  每包期望  每包≥1     每盒期望  每盒≥1")
    for rarity, pack in odds.per_pack.items():
        box = odds.per_box[rarity]
        click.echo(
            f"{rarity:<6} {pack.expected:>9.4f} {pack.p_at_least_one:>9.4%} "
            f"{box.expected:>9.3f} {box.p_at_least_one:>9.4%}"
        )
    click.echo(f"单张卡（同稀有度的每张相同）：每包≥1 / 每盒≥1 / {odds.n_boxes} 盒≥1 / 每盒期望张数")
    seen: set[str] = set()
    for row in odds.printings:
        if row.printing.rarity in seen:
            continue
        seen.add(row.printing.rarity)
        click.echo(
            f"{row.printing.rarity:<6} {row.p_pack:>9.4%} {row.p_box:>9.4%} "
            f"{row.p_boxes:>9.4%} {row.expected_per_box:>8.4f}"
        )


@packs.command("complete")
@SET_OPTION
@click.option("--trials", "trials_raw", default="10000", show_default=True, help=f"模拟次数（1–{MAX_TRIALS}）。")
@click.option("--seed", "seed_raw", help="随机种子；不给则随机选一个并显示。")
@JSON_OPTION
@GAME_OPTION
@with_appcontext
@friendly
def complete_command(set_code: str, trials_raw: str, seed_raw: str | None, as_json: bool, game: str) -> None:
    """蒙特卡洛估计集齐整个系列（每种印刷至少一张）与一套满编（每种三张）要开几盒。"""
    trials = _int(trials_raw, "模拟次数", "trials") or 0
    seed = _int(seed_raw, "种子", "the seed", boosters.BadSeed)
    model = _model(set_code, game)
    result = boosters.complete_set(model, trials=trials, seed=boosters.check_seed(seed))
    if as_json:
        _echo_json(SetCompletion.of(result).body())
        return
    click.echo(f"{model.set_code} {model.set_name} · {result.trials} 次模拟 · 种子 {result.seed}")
    for label, dist in (("集齐（每种一张）", result.complete), ("满编（每种三张）", result.playset)):
        click.echo(f"{label}：平均 {dist.mean:.2f} 盒，中位 {dist.p50}，90% {dist.p90}，99% {dist.p99}")
    if result.complete.exact_mean is not None:
        click.echo(f"集齐的精确期望：{result.complete.exact_mean:.4f} 盒")
