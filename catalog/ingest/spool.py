"""The checked chunks an import keeps for its writer: in memory while they are few, in a
temporary file once they pass a bound (the idea of :class:`tempfile.SpooledTemporaryFile`, for
lists of plain values rather than bytes)."""

from __future__ import annotations

import marshal
import tempfile
from collections.abc import Iterator
from typing import IO, Any

SPOOL_ROWS = 100_000  # rows kept in memory at most; past them every chunk goes to the file


class Spool:
    """Chunks (plain values only: what :mod:`marshal` writes) given back in the order added.

    While the chunks added hold at most ``limit`` rows, they stay as they are: marshalling each
    chunk and reading it back cost a first import of 100,000 printings ~0.5 s of CPU, and a
    first import's kept chunks take ~1.2 KB per printing. The chunk that takes the total past
    ``limit`` sends every chunk kept so far to the file, and so does each one after it, so the
    memory they hold is bounded by ``limit`` rows whatever the size of the import.
    """

    def __init__(self, limit: int | None = None):
        self.limit = SPOOL_ROWS if limit is None else limit
        self.rows = 0
        self.kept: list[Any] = []
        self.file: IO[bytes] | None = None

    def add(self, chunk: Any, rows: int) -> None:
        """Keep ``chunk`` (of ``rows`` rows)."""
        self.rows += rows
        if self.file is None and self.rows <= self.limit:
            self.kept.append(chunk)
            return
        if self.file is None:
            self.file = tempfile.TemporaryFile(prefix="lunzang-import-")  # noqa: SIM115  (closed by close())
            for earlier in self.kept:
                self._write(earlier)
            self.kept = []
        self._write(chunk)

    def _write(self, chunk: Any) -> None:
        assert self.file is not None
        data = marshal.dumps(chunk)
        self.file.write(len(data).to_bytes(8, "little") + data)

    @property
    def spilled(self) -> bool:
        """Whether the chunks went to the file."""
        return self.file is not None

    def __iter__(self) -> Iterator[Any]:
        """The chunks, in the order added; one kept in memory is let go once given back."""
        if self.file is None:
            while self.kept:
                yield self.kept.pop(0)
            return
        self.file.seek(0)
        while size := int.from_bytes(self.file.read(8), "little"):
            yield marshal.loads(self.file.read(size))

    def close(self) -> None:
        """Let go of the chunks and of the temporary file."""
        self.kept = []
        if self.file is not None:
            self.file.close()
