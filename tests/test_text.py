"""Folding and pinyin keys: the basis of every name match."""

import pytest

from catalog.text import fold, initials_key, pinyin_key, pinyin_keys


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("龍王", "龙王"),
        ("誅天", "诛天"),
        ("ＡＢＣ１２３", "abc123"),
        (" 小红帽 ", "小红帽"),
        ("孫悟空", "孙悟空"),
        ("M4-001", "m4-001"),
        ("小红帽・狼猎手", "小红帽·狼猎手"),  # katakana middle dot
        ("小红帽•狼猎手", "小红帽·狼猎手"),
    ],
)
def test_fold_makes_spellings_equal(a: str, b: str) -> None:
    assert fold(a) == fold(b)


def test_fold_keeps_different_names_apart() -> None:
    assert fold("龙王") != fold("龙玉")


@pytest.mark.parametrize(
    ("name", "pinyin", "initials"),
    [
        ("孙悟空", "sunwukong", "swk"),
        ("孫悟空", "sunwukong", "swk"),
        ("长城守卫", "changchengshouwei", "ccsw"),  # 长 read chang in 长城
        ("银行家", "yinhangjia", "yhj"),  # 行 read hang in 银行
        ("行者", "xingzhe", "xz"),
        ("F.J之刃", "f.jzhiren", "f.jzr"),
        ("东海龙王", "donghailongwang", "dhlw"),
    ],
)
def test_pinyin_keys(name: str, pinyin: str, initials: str) -> None:
    assert pinyin_key(name) == pinyin
    assert initials_key(name) == initials
    assert pinyin_keys(name) == (pinyin, initials)
