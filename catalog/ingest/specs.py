"""What a catalogue source says, as plain specs: its sets, pack templates, formats and card
files, and every problem found reading them. Nothing here touches the database.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from catalog.games import GameModule
from catalog.ingest.cardfiles import CsvFile, Problem, Row


@dataclass(frozen=True)
class StoredVocabulary:
    """What the database already holds for a game: its declared words, and whether it has
    printings (then the ladder in use is the module's default unless one was declared)."""

    vocabulary: dict[str, Any]
    has_printings: bool


@dataclass
class SetSpec:
    code: str
    name: str
    series: str
    kind: str
    release: str
    description: str
    pack: str | None
    position: int
    line: int
    source: str | None = None  # a set's own ``source``, over the manifest's
    sample: bool | None = None  # a set's own ``sample``, over the manifest's (a game mixing both)


@dataclass
class TemplateSpec:
    name: str
    packs_per_box: int
    slots: list[dict[str, Any]]
    line: int


@dataclass
class ManifestFormat:
    code: str
    name: str
    rules: str
    legal_sets: list[str]
    banlist: dict[str, int]
    params: dict[str, int | None]
    line: int


@dataclass
class Source:
    """Everything one game folder (or one community JSON file) says.

    The card rows are not held: :meth:`iter_rows` reads them from the files each time it is
    called (an import reads them twice: to check, then to write), so a million-row catalogue
    costs the memory of one row at a time here.
    """

    path: str
    game: GameModule | None
    sample: bool = False
    provenance: str = ""  # manifest ``source``, or the community file read; shown on each set's page
    sets: list[SetSpec] = field(default_factory=list)
    templates: list[TemplateSpec] = field(default_factory=list)
    formats: list[ManifestFormat] = field(default_factory=list)
    csv_files: list[CsvFile] = field(default_factory=list)
    json_rows: list[Row] = field(default_factory=list)  # a JSON catalogue (one set) is read whole
    problems: list[Problem] = field(default_factory=list)
    # the game's vocabulary after this import: the stored one plus the manifest's [vocabulary]
    vocabulary: dict[str, Any] = field(default_factory=dict)
    # a file that holds no cards but that an import may meet beside card files (KeyForge decks)
    skipped: Problem | None = None

    def iter_rows(self, problems: list[Problem] | None = None) -> Iterator[Row]:
        """Every card row, file by file, in order. A row that cannot be read (more fields than
        the header, a CSV syntax error, bytes that are not UTF-8) is left out and, when
        ``problems`` is given, reported there; the rows of a file after such an error are
        not read."""
        yield from self.json_rows
        for csv_file in self.csv_files:
            yield from csv_file.rows(problems if problems is not None else [])

    def files(self) -> list[str]:
        """The display names of the files rows come from, in :meth:`iter_rows` order."""
        return list(dict.fromkeys([row.file for row in self.json_rows] + [f.display for f in self.csv_files]))

    def estimated_rows(self) -> int:
        """About how many rows :meth:`iter_rows` gives (line count less headers), for progress."""
        total = len(self.json_rows)
        for csv_file in self.csv_files:
            with csv_file.path.open("rb") as handle:
                total += sum(chunk.count(b"\n") for chunk in iter(lambda: handle.read(1 << 20), b"")) - 1
        return max(total, 0)
