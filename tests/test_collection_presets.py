"""collection files from other tools, in the exact header rows they write.

Each tool's file imports with the right cards, quantities, for-trade counts and grades; the
columns we do not read are ignored and listed; a file of the same kind we have not seen (columns
reordered, dropped, added) imports too; delimiters, encodings and XLSX. Both databases (the
``sample_catalogue`` fixture follows ``DATABASE_URL``).
"""

from __future__ import annotations

import io

import pytest
from sqlalchemy.engine import Engine
from sqlmodel import Session

from catalog import db as catalog_db
from catalog.collection import CollectionFileError, import_collection
from catalog.collection.csvio import UnrecognisedHeader, parse_mapping
from catalog.collection.grades import ItemGrade
from catalog.collection.presets import detect, header_key
from catalog.collection.sheets import MAX_ROWS, decode, sniff
from tests.kits.collection import NOW, committed_user, owned, printing_id, snapshot
from tests.kits.db import table_counts
from webapp.shapes.collection import ImportReport

# KeyForge sample set SMP: SMP-001 山岳拳王 (Summit Fist Champion), SMP-002 锅盖哥布林 (Potlid Goblin),
# SMP-003 酒桶投掷手 (Keg Lobber). 永恒之轮 M4 奇幻征途: M4-001 小红帽·森林歌者.
SMP_NAME = "熔钥秘境 样本卡集"

DECKBOX_CURRENT = (
    "Count,Tradelist Count,Name,Edition,Edition Code,Card Number,Condition,Language,Foil,Signed,Artist Proof,"
    "Altered Art,Misprint,Promo,Textless,Printing Id,Printing Note,Tags,My Price\n"
    "3,1,Summit Fist Champion,Some Edition Name,SMP,001,Near Mint,English,,,,,,,,123,,,$0.50\n"
    "2,0,Potlid Goblin,Some Edition Name,SMP,002,Good (Lightly Played),Chinese,foil,,,,,,,124,,,\n"
)
DECKBOX_CLASSIC = (
    "Count,Tradelist Count,Name,Edition,Card Number,Condition,Language,Foil,Signed,Artist Proof,Altered Art,"
    "Misprint,Promo,Textless,My Price\n"
    f"3,1,Summit Fist Champion,{SMP_NAME},1,Near Mint,English,,,,,,,,$0.50\n"
    f"2,0,Potlid Goblin,{SMP_NAME},2,Good (Lightly Played),Chinese,foil,,,,,,,\n"
)
DECKBOX_ALL = (
    "Count,Tradelist Count,Name,Edition,Edition Code,Card Number,Condition,Language,Foil,Signed,Artist Proof,"
    "Altered Art,Misprint,Promo,Textless,Printing Id,Printing Note,Tags,My Price,Decks Count Built,"
    "Decks Count All,Type,Cost,Rarity,Price,Image URL,Last Updated,TcgPlayer ID,Scryfall ID\n"
    "3,1,Summit Fist Champion,x,SMP,1,Near Mint,English,,,,,,,,1,,,,0,2,Creature,,Rare,$1,http://i/1.jpg,"
    "2024-01-01,55,abc\n"
    "2,0,Potlid Goblin,x,SMP,2,Good (Lightly Played),Chinese,foil,,,,,,,2,,,,1,1,Creature,,Common,,,,,\n"
)
MANABOX = (
    "Binder Name,Binder Type,Name,Set code,Set name,Collector number,Foil,Rarity,Quantity,ManaBox ID,Scryfall ID,"
    "Purchase price,Misprint,Altered,Condition,Language,Purchase price currency\n"
    "Main,binder,Summit Fist Champion,SMP,Sample,1,normal,rare,2,111,aaa,0.5,false,false,near_mint,en,USD\n"
    "Trade,binder,Summit Fist Champion,SMP,Sample,1,normal,rare,1,111,aaa,0.5,false,false,near_mint,en,USD\n"
    "Main,binder,Potlid Goblin,SMP,Sample,2,foil,common,2,112,bbb,,false,false,excellent,zh_CN,USD\n"
)
MOXFIELD = (
    "Count,Tradelist Count,Name,Edition,Condition,Language,Foil,Tags,Last Modified,Collector Number,Alter,Proxy,"
    "Purchase Price\n"
    '"3","1","Summit Fist Champion","smp","Near Mint","English","","","2024-01-01 00:00:00.000000","1","False",'
    '"False",""\n'
    '"2","0","Potlid Goblin","smp","Lightly Played","Chinese Simplified","foil","","2024-01-01 00:00:00.000000",'
    '"2","False","False","0.1"\n'
)
ARCHIDEKT = (
    "Quantity,Name,Finish,Condition,Date Added,Language,Purchase Price,Tags,Edition Name,Edition Code,"
    "Multiverse Id,Scryfall ID,Collector Number\n"
    "3,Summit Fist Champion,Normal,NM,2024-01-01,EN,0.5,,Sample,SMP,0,aaa,1\n"
    "2,Potlid Goblin,Foil,LP,2024-01-01,CS,,,Sample,smp,0,bbb,2\n"
)
TCGPLAYER = (
    "Quantity,Name,Simple Name,Set,Card Number,Set Code,Printing,Condition,Language,Rarity,Product ID,SKU\n"
    "3,Summit Fist Champion,Summit Fist Champion,Sample,1,SMP,Normal,Near Mint,English,Rare,1,11\n"
    "2,Potlid Goblin,Potlid Goblin,Sample,2,SMP,,Lightly Played Foil,Chinese (S),Common,2,22\n"
)
DRAGON_SHIELD = (
    "sep=,\n"
    "Folder Name,Quantity,Trade Quantity,Card Name,Set Code,Set Name,Card Number,Condition,Printing,Language,"
    "Price Bought,Date Bought,LOW,MID,MARKET\n"
    "Box,3,1,Summit Fist Champion,SMP,Sample,1,NearMint,Normal,English,0.5,2024-01-01,0.1,0.2,0.3\n"
    "Box,2,0,Potlid Goblin,SMP,Sample,2,Excellent,Foil,Chinese,,,,,\n"
)
OURS_EUROPE = (
    "\ufeffset;number;name;quantity;condition;language;finish;for_trade\n"
    "SMP;SMP-001;山岳拳王;3;NM;EN;普通;1\n"
    "SMP;SMP-002;锅盖哥布林;2;LP;简中;闪;0\n"
)
OURS_ENGLISH_NAMES = (
    "name,quantity,condition,language,finish,for_trade\n"
    "Summit Fist Champion,3,NM,EN,,1\n"
    "Potlid Goblin,2,LP,Chinese,foil,0\n"
)
OURS_GBK = (
    "系列,编号,卡名,数量,品相,语言,工艺,可交换\n"
    "SMP,SMP-001,山岳拳王,3,近全新,英文,普通,1\n"
    "SMP,SMP-002,锅盖哥布林,2,LP,简中,闪,0\n"
)

EXPECTED = {
    ("SMP-001", ItemGrade("NM", "EN", "普通")): (3, 1),
    ("SMP-002", ItemGrade("LP", "简中", "闪")): (2, 0),
}
# the columns each file has that we do not read (listed in the report)
FILES = [
    ("deckbox-current", DECKBOX_CURRENT, "deckbox", 10),
    ("deckbox-classic", DECKBOX_CLASSIC, "deckbox", 7),
    ("deckbox-all", DECKBOX_ALL, "deckbox", 20),
    ("manabox", MANABOX, "manabox", 8),
    ("moxfield", MOXFIELD, "moxfield", 5),
    ("archidekt", ARCHIDEKT, "archidekt", 5),
    ("tcgplayer", TCGPLAYER, "tcgplayer", 4),
    ("dragonshield", DRAGON_SHIELD, "dragonshield", 5),
    ("ours-semicolon-bom", OURS_EUROPE, "lunzang", 0),
    ("ours-english-names", OURS_ENGLISH_NAMES, "lunzang", 0),
]


@pytest.fixture
def alice(sample_catalogue: Engine, make_user) -> int:
    return committed_user(sample_catalogue, make_user)


def _import(engine: Engine, user_id: int, data: str | bytes, **options):
    raw = data.encode() if isinstance(data, str) else data
    with catalog_db.transaction(engine) as session:
        return import_collection(session=session, user_id=user_id, data=raw, filename="f", now=NOW, **options)


def _check(engine: Engine, user_id: int, *, trade: bool = True) -> None:
    with Session(engine) as session:
        for (number, grade), (quantity, for_trade) in EXPECTED.items():
            expected = (quantity, for_trade if trade else 0)
            assert owned(session, user_id, printing_id(session, "SMP", number), grade) == expected, number


@pytest.mark.parametrize(("tool", "text", "preset", "ignored"), FILES, ids=[f[0] for f in FILES])
def test_each_tools_file_imports_in_its_exact_header(
    sample_catalogue: Engine, alice: int, tool: str, text: str, preset: str, ignored: int
) -> None:
    report = _import(sample_catalogue, alice, text)
    assert report.preset == preset
    assert len(report.ignored_columns) == ignored, report.ignored_columns
    assert ImportReport.of(report).body()["ignored_columns"] == report.ignored_columns
    # Archidekt and TCGplayer write no count for trade
    _check(sample_catalogue, alice, trade=preset not in ("archidekt", "tcgplayer"))


def test_chinese_excel_gbk_file_imports(sample_catalogue: Engine, alice: int) -> None:
    _import(sample_catalogue, alice, OURS_GBK.encode("gbk"))
    _check(sample_catalogue, alice)


@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-le", "utf-16-be"])
def test_excel_unicode_text_utf16_tab_separated_imports(sample_catalogue: Engine, alice: int, encoding: str) -> None:
    text = OURS_EUROPE.lstrip("\ufeff").replace(";", "\t")
    report = _import(sample_catalogue, alice, text.encode(encoding))
    assert report.source["delimiter"] == "\t"
    _check(sample_catalogue, alice)


def _xlsx(rows: list[list[object]], *, title: str = "Sheet1", first: str | None = None) -> bytes:
    from openpyxl import Workbook

    workbook = Workbook()
    sheet = workbook.active
    if first is not None:
        sheet.title = first
        sheet.append(["nothing here"])
        sheet = workbook.create_sheet(title)
    else:
        sheet.title = title
    for row in rows:
        sheet.append(row)
    out = io.BytesIO()
    workbook.save(out)
    return out.getvalue()


def test_an_xlsx_imports_from_its_first_or_a_chosen_sheet(sample_catalogue: Engine, alice: int) -> None:
    rows: list[list[object]] = [
        ["Quantity", "Name", "Set Code", "Card Number", "Condition", "Language", "Printing", "Trade Quantity"],
        [3, "Summit Fist Champion", "SMP", 1, "NM", "English", None, 1.0],
        [2.0, "锅盖哥布林", "SMP", "002", "LP", "zh_CN", "Foil", 0],
    ]
    report = _import(sample_catalogue, alice, _xlsx(rows), dry_run=True)
    assert report.source["kind"] == "xlsx" and report.rows == 2
    with pytest.raises(CollectionFileError) as caught:  # the first sheet holds no collection
        _import(sample_catalogue, alice, _xlsx(rows, title="收藏", first="说明"), dry_run=True)
    assert isinstance(caught.value, UnrecognisedHeader)
    with pytest.raises(CollectionFileError) as caught:
        _import(sample_catalogue, alice, _xlsx(rows), sheet="nope", dry_run=True)
    assert "Sheet1" in caught.value.problems[0].message.zh
    _import(sample_catalogue, alice, _xlsx(rows, title="收藏", first="说明"), sheet="收藏")
    _check(sample_catalogue, alice)


def test_a_damaged_xlsx_or_a_zip_bomb_is_refused_and_changes_nothing(sample_catalogue: Engine, alice: int) -> None:
    before = table_counts(sample_catalogue)
    for data in (b"PK\x03\x04garbage", _xlsx([["set"]])[:300]):
        with pytest.raises(CollectionFileError) as caught:
            _import(sample_catalogue, alice, data)
        assert "XLSX" in caught.value.problems[0].message.zh
    assert table_counts(sample_catalogue) == before


# ---------------------------------------------------------------------------- unseen files


UNSEEN = [
    # ManaBox without the price and ID columns, with a column of a later version, reordered
    (
        "Name,Quantity,Set code,Collector number,Condition,Language,Foil,Tags,Binder Name\n"
        "Summit Fist Champion,3,SMP,001,near_mint,en,normal,x,Trade\n"
        "Potlid Goblin,2,SMP,2,excellent,zh_CN,etched,,Main\n",
        "manabox",
        {"SMP-001": ("NM", "EN", "普通", 3, 3), "SMP-002": ("LP", "简中", "闪", 2, 0)},
    ),
    # a Deckbox export of another year (no Tradelist Count, Card Number before Name)
    (
        "Count,Card Number,Name,Edition,Condition,Foil,Language,Signed,Decks\n"
        f"3,01,Summit Fist Champion,{SMP_NAME},Mint,,English,,\n"
        f"2,2,锅盖哥布林,{SMP_NAME},Played,foil,Chinese,,\n",
        "deckbox",
        {"SMP-001": ("NM", "EN", "普通", 3, 0), "SMP-002": ("MP", "简中", "闪", 2, 0)},
    ),
    # TCGplayer's app with a price column and the foil in the condition
    (
        "Quantity,Name,Simple Name,Set,Card Number,Set Code,Condition,Language,TCG Market Price,Product ID\n"
        "3,Summit Fist Champion,x,Sample,1,SMP,Near Mint Holofoil,English,0.1,1\n"
        "2,Potlid Goblin,x,Sample,SMP-002,SMP,Damaged,Chinese (T),0.1,2\n",
        "tcgplayer",
        {"SMP-001": ("NM", "EN", "闪", 3, 0), "SMP-002": ("DMG", "繁中", "普通", 2, 0)},
    ),
    # a home-made sheet with English headers in another order, tab separated, the set by its name
    (
        "Card Name\tSet Name\tQty\tFor Trade\tLang\n"
        f"山岳拳王\t{SMP_NAME}\t3\t1\tEnglish\n"
        f"鍋蓋哥布林\t{SMP_NAME}\t2\t0\t\n",
        "lunzang",
        {"SMP-001": ("NM", "EN", "普通", 3, 1), "SMP-002": ("NM", "简中", "普通", 2, 0)},
    ),
]


@pytest.mark.parametrize(("text", "preset", "expected"), UNSEEN, ids=["manabox", "deckbox", "tcgplayer", "sheet"])
def test_an_unseen_file_of_the_same_kind_imports(
    sample_catalogue: Engine, alice: int, text: str, preset: str, expected: dict
) -> None:
    report = _import(sample_catalogue, alice, text)
    assert report.preset == preset
    with Session(sample_catalogue) as session:
        for number, (cond, lang, finish, quantity, trade) in expected.items():
            grade = ItemGrade(cond, lang, finish)
            assert owned(session, alice, printing_id(session, "SMP", number), grade) == (quantity, trade)


# ---------------------------------------------------------------------------- pieces


@pytest.mark.parametrize(
    ("header", "preset"),
    [
        ("Count,Tradelist Count,Name,Edition,Card Number,Condition,Language,Foil", "deckbox"),
        ("Count,Tradelist Count,Name,Edition,Condition,Language,Foil,Collector Number", "moxfield"),
        ("Quantity,Name,Finish,Edition Name,Edition Code,Collector Number", "archidekt"),
        ("set,number,quantity", "lunzang"),
        ("系列,编号,数量", "lunzang"),
    ],
)
def test_detect(header: str, preset: str) -> None:
    assert detect([header_key(c) for c in header.split(",")]).key == preset


@pytest.mark.parametrize(
    ("text", "delimiter"),
    [
        ("a,b;c\n", ","),
        ("a;b;c\n1;2,5;3\n", ";"),
        ("a\tb\tc\n", "\t"),
        ('"x;y",b\n', ","),
        ("sep=;\na,b;c\n", ";"),
        ('"sep=,"\na;b;c\n', ","),
        ("single\n", ","),
    ],
)
def test_sniff(text: str, delimiter: str) -> None:
    found, rest = sniff(text)
    assert found == delimiter
    assert rest.count("\n") == text.count("\n")  # the sep= line is blanked, not removed: lines stay


def test_utf16_without_bom_is_recognised() -> None:
    assert decode("set,name\nM4,小红帽\n".encode("utf-16-le")) == ("set,name\nM4,小红帽\n", "utf-16-le")


def test_an_unrecognised_header_is_refused_with_its_first_rows_and_nothing_changes(
    sample_catalogue: Engine, alice: int
) -> None:
    text = "Karte,Stück,Nummer\nSummit Fist Champion,3,SMP-001\n"
    before = table_counts(sample_catalogue)
    with pytest.raises(UnrecognisedHeader) as caught:
        _import(sample_catalogue, alice, text)
    assert caught.value.header == ["Karte", "Stück", "Nummer"]
    assert caught.value.sample == [["Summit Fist Champion", "3", "SMP-001"]]
    assert table_counts(sample_catalogue) == before
    mapping = parse_mapping("Karte=name, Stück=quantity ,Nummer=number")
    report = _import(sample_catalogue, alice, text, mapping=mapping)
    assert report.mapped and report.cards_added == 3


@pytest.mark.parametrize(("text", "fragment"), [("Karte=colour", "未知的字段"), ("Karte", "列名=字段")])
def test_a_bad_mapping_is_named(text: str, fragment: str) -> None:
    from catalog.errors import LunzangError

    with pytest.raises(LunzangError) as caught:
        parse_mapping(text)
    assert fragment in caught.value.message.zh


def test_a_column_we_do_not_read_is_listed_not_fatal(sample_catalogue: Engine, alice: int) -> None:
    report = _import(sample_catalogue, alice, "set,number,qty,colour\nSMP,SMP-001,1,red\n")
    assert report.ignored_columns == ["colour"] and report.cards_added == 1


def test_too_many_rows_are_refused(sample_catalogue: Engine, alice: int) -> None:
    body = "name\n" + "山岳拳王\n" * (MAX_ROWS + 1)
    with pytest.raises(CollectionFileError) as caught:
        _import(sample_catalogue, alice, body, dry_run=True)
    assert f"{MAX_ROWS:,}" in caught.value.problems[0].message.zh


def test_a_refused_tool_file_changes_nothing(sample_catalogue: Engine, alice: int) -> None:
    _import(sample_catalogue, alice, MANABOX)
    with Session(sample_catalogue) as session:
        before = snapshot(session, alice)
    with pytest.raises(CollectionFileError):
        _import(sample_catalogue, alice, MANABOX.replace("near_mint,en", "shiny,en", 1))
    with Session(sample_catalogue) as session:
        assert snapshot(session, alice) == before


def _excel_style_xlsx() -> bytes:
    """A workbook as Excel writes it: texts in the shared string table, a rich-text inline string,
    a number, an empty cell skipped (openpyxl itself writes inline strings only)."""
    import zipfile

    base = _xlsx([["x"]])
    main = "http://schemas.openxmlformats.org/spreadsheetml/2006/main"
    shared = ["Card Name", "Set Code", "Card Number", "Quantity", "Trade Quantity", "SMP", "山岳拳王"]
    table = "".join(f"<si><t>{s}</t></si>" for s in shared)
    strings = f'<sst xmlns="{main}" count="{len(shared)}" uniqueCount="{len(shared)}">{table}</sst>'
    rich = "<is><r><t>锅盖</t></r><r><rPr><b/></rPr><t>哥布林</t></r></is>"
    sheet = (
        f'<worksheet xmlns="{main}"><sheetData>'
        '<row r="1"><c r="A1" t="s"><v>0</v></c><c r="B1" t="s"><v>1</v></c><c r="C1" t="s"><v>2</v></c>'
        '<c r="D1" t="s"><v>3</v></c><c r="E1" t="s"><v>4</v></c></row>'
        '<row r="2"><c r="A2" t="s"><v>6</v></c><c r="B2" t="s"><v>5</v></c><c r="C2"><v>1</v></c>'
        '<c r="D2"><v>3</v></c><c r="E2"><v>1</v></c></row>'
        f'<row r="4"><c r="A4" t="inlineStr">{rich}</c><c r="B4" t="s"><v>5</v></c><c r="C4"><v>2</v></c>'
        '<c r="D4"><v>2</v></c></row>'
        "</sheetData></worksheet>"
    )
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(base)) as source, zipfile.ZipFile(out, "w") as target:
        for item in source.infolist():
            data = source.read(item.filename)
            if item.filename == "xl/worksheets/sheet1.xml":
                data = sheet.encode()
            elif item.filename == "[Content_Types].xml":
                data = data.replace(
                    b"</Types>",
                    b'<Override PartName="/xl/sharedStrings.xml" ContentType="application/'
                    b'vnd.openxmlformats-officedocument.spreadsheetml.sharedStrings+xml"/></Types>',
                )
            elif item.filename == "xl/_rels/workbook.xml.rels":
                data = data.replace(
                    b"</Relationships>",
                    b'<Relationship Id="rIdS" Type="http://schemas.openxmlformats.org/officeDocument/2006/'
                    b'relationships/sharedStrings" Target="sharedStrings.xml"/></Relationships>',
                )
            target.writestr(item, data)
        target.writestr("xl/sharedStrings.xml", strings)
    return out.getvalue()


def test_an_excel_workbook_with_shared_and_rich_strings_imports(sample_catalogue: Engine, alice: int) -> None:
    report = _import(sample_catalogue, alice, _excel_style_xlsx())
    assert report.source["kind"] == "xlsx" and report.rows == 2
    with Session(sample_catalogue) as session:
        assert owned(session, alice, printing_id(session, "SMP", "SMP-001")) == (3, 1)
        assert owned(session, alice, printing_id(session, "SMP", "SMP-002")) == (2, 0)
