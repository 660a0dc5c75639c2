"""The import report as the CLI prints it (``lunzang import [--dry-run]``), one line a list
item, so the web's bulk upload shows the very same words."""

from __future__ import annotations

from catalog.ingest.write import ImportReport


def report_lines(report: ImportReport, *, dry_run: bool, seconds: float) -> list[str]:
    prefix = "（试运行，未写入）" if dry_run else ""
    lines = [f"{prefix}导入完成：游戏 {', '.join(report.games) or '-'}，{report.rows} 行，用时 {seconds:.2f} 秒"]
    for label, tally in (
        ("系列", report.sets),
        ("卡牌", report.cards),
        ("印刷", report.printings),
        ("赛制", report.formats),
    ):
        lines.append(f"  {label}：新增 {tally.added}，更新 {tally.updated}，未变 {tally.unchanged}")
    if report.cards_removed:
        lines.append(f"  移除了 {report.cards_removed} 张不再有任何印刷的卡牌")
    if report.new_words:
        # once per word, with how many rows use it (the vocabularies are open)
        lines.append(f"  新词（已收录，可搜索）：{len(report.new_words)} 个")
        for (game, column, word), count in sorted(report.new_words.items()):
            lines.append(f"    {game} {column}「{word}」：{count} 行")
    if report.errata:
        lines.append(f"  勘误：{report.errata} 张卡牌的重印措辞不同，采用最新系列的措辞（卡牌页可看旧措辞）")
    lines.extend(f"  注意：{note}" for note in report.notes)
    return lines
