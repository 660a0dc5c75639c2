"""The search language (DESIGN §6): tokens with positions, and a recursive-descent parser.

Grammar (space is AND, ``or`` binds looser, ``-`` negates, parentheses group)::

    query   := or_expr
    or_expr := and_expr ("or" and_expr)*
    and_expr:= unary+
    unary   := "-" unary | primary
    primary := "(" or_expr ")" | term
    term    := KEY OP VALUE | WORD | "quoted phrase"
    OP      := ":" | "=" | "!=" | "<" | "<=" | ">" | ">="

Positions count characters of the query as typed (0-based), so a message can point at the
bad term. Full-width punctuation (：（）＝＜＞) is read as its ASCII twin.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass, field

from catalog.errors import LunzangError, Message

OPERATORS = ("!=", "<=", ">=", ":", "=", "<", ">")
MAX_LENGTH = 1000  # characters; a query is typed, not generated
MAX_DEPTH = 40  # nested parentheses / negations: the parser recurses once per level


class QueryError(LunzangError):
    """A query that cannot be understood: says what, where, and which keys exist."""

    code = "bad_query"

    def __init__(self, message: Message, *, position: int, length: int = 1, term: str = "") -> None:
        super().__init__(message)
        self.position = position
        self.length = max(1, length)
        self.term = term


@dataclass(frozen=True)
class Token:
    kind: str  # WORD, QUOTED, TERM, LPAREN, RPAREN, OR, MINUS
    text: str
    position: int
    key: str = ""
    op: str = ""
    value: str = ""
    value_quoted: bool = False


@dataclass(frozen=True)
class Term:
    """``key op value``; a bare word has key ``""`` (name search)."""

    key: str
    op: str
    value: str
    position: int
    length: int
    quoted: bool = False

    @property
    def text(self) -> str:
        return f"{self.key}{self.op}{self.value}" if self.key else self.value


@dataclass(frozen=True)
class Not:
    item: Node
    position: int


@dataclass(frozen=True)
class And:
    items: tuple[Node, ...]


@dataclass(frozen=True)
class Or:
    items: tuple[Node, ...]


Node = Term | Not | And | Or


@dataclass
class Query:
    """A parsed query: the filter tree plus directives (order, unique, direction)."""

    text: str
    root: Node | None
    directives: dict[str, Term] = field(default_factory=dict)


def _normalise(text: str) -> str:
    # Character by character, so positions stay those of the typed query.
    out = []
    for char in text:
        folded = unicodedata.normalize("NFKC", char)
        out.append(folded if len(folded) == 1 else char)
    return "".join(out).replace("“", '"').replace("”", '"').replace("「", '"').replace("」", '"')


def _error_at(token: Token, zh: str, en: str) -> QueryError:
    """A query error pointing at ``token`` as typed."""
    return QueryError(Message(zh, en), position=token.position, length=len(token.text), term=token.text)


def tokenize(text: str) -> list[Token]:
    source = _normalise(text)
    tokens: list[Token] = []
    i, size = 0, len(source)
    while i < size:
        char = source[i]
        if char.isspace():
            i += 1
            continue
        if char == "(":
            tokens.append(Token("LPAREN", char, i))
            i += 1
            continue
        if char == ")":
            tokens.append(Token("RPAREN", char, i))
            i += 1
            continue
        at_term_start = not tokens or source[i - 1].isspace() or source[i - 1] == "("
        if char == "-" and at_term_start:
            if i + 1 == size or source[i + 1].isspace() or source[i + 1] == ")":
                raise QueryError(
                    Message(
                        f"第 {i + 1} 个字符处的“-”后面缺少要排除的条件", f"'-' at position {i + 1} negates nothing"
                    ),
                    position=i,
                    term="-",
                )
            tokens.append(Token("MINUS", char, i))
            i += 1
            continue
        if char == '"':
            end = source.find('"', i + 1)
            if end == -1:
                raise QueryError(
                    Message(f"第 {i + 1} 个字符处的引号没有闭合", f"unclosed quote at position {i + 1}"),
                    position=i,
                    length=size - i,
                    term=source[i:],
                )
            tokens.append(Token("QUOTED", source[i + 1 : end], i, value=source[i + 1 : end], value_quoted=True))
            i = end + 1
            continue
        start = i
        while i < size and not source[i].isspace() and source[i] not in '()"':
            i += 1
            # A value may carry a parenthesised argument: kw:军团(5), kw:『星武装机』载具(2).
            if i < size and source[i] == "(" and _split_key(source[start:i])[1] and source[i - 1] not in ":=<>":
                close = source.find(")", i)
                if close != -1 and not any(c.isspace() for c in source[i:close]):
                    i = close + 1
        word = source[start:i]
        # key:"quoted value"
        if i < size and source[i] == '"' and word.endswith(OPERATORS):
            end = source.find('"', i + 1)
            if end == -1:
                raise QueryError(
                    Message(f"第 {i + 1} 个字符处的引号没有闭合", f"unclosed quote at position {i + 1}"),
                    position=i,
                    length=size - i,
                    term=source[start:],
                )
            key, op = _split_key(word)
            tokens.append(Token("TERM", source[start : end + 1], start, key, op, source[i + 1 : end], True))
            i = end + 1
            continue
        if word.lower() == "or":
            tokens.append(Token("OR", word, start))
            continue
        key, op = _split_key(word)
        if op:
            value = word[len(key) + len(op) :]
            tokens.append(Token("TERM", word, start, key, op, value))
        else:
            tokens.append(Token("WORD", word, start, value=word))
    return tokens


def _split_key(word: str) -> tuple[str, str]:
    """``cost>=3`` → (``cost``, ``>=``); a word without operator → (word, "")."""
    for index, char in enumerate(word):
        if char in ":=<>!":
            if index == 0:
                return word, ""
            for op in OPERATORS:
                if word.startswith(op, index):
                    return word[:index], op
            return word, ""
    return word, ""


class _Parser:
    def __init__(self, text: str, tokens: list[Token]):
        self.text = text
        self.tokens = tokens
        self.index = 0
        self.depth = 0

    def peek(self) -> Token | None:
        return self.tokens[self.index] if self.index < len(self.tokens) else None

    def take(self) -> Token:
        token = self.tokens[self.index]
        self.index += 1
        return token

    def parse(self) -> Node | None:
        if not self.tokens:
            return None
        node = self.or_expr()
        token = self.peek()
        if token is not None:
            raise _error_at(
                token,
                f"第 {token.position + 1} 个字符处多了一个「{token.text}」",
                f"unexpected '{token.text}' at position {token.position + 1}",
            )
        return node

    def or_expr(self) -> Node:
        items = [self.and_expr()]
        while (token := self.peek()) is not None and token.kind == "OR":
            self.take()
            following = self.peek()
            if following is None or following.kind in ("OR", "RPAREN"):
                raise _error_at(
                    token,
                    f"第 {token.position + 1} 个字符处的 or 后面缺少条件",
                    f"'or' at position {token.position + 1} has nothing after it",
                )
            items.append(self.and_expr())
        return items[0] if len(items) == 1 else Or(tuple(items))

    def and_expr(self) -> Node:
        items: list[Node] = []
        while (token := self.peek()) is not None and token.kind not in ("OR", "RPAREN"):
            items.append(self.unary())
        if not items:
            token = self.peek()
            position = token.position if token else len(self.text)
            text = token.text if token else ""
            raise QueryError(
                Message(
                    f"第 {position + 1} 个字符处缺少搜索条件", f"a condition is missing at position {position + 1}"
                ),
                position=position,
                length=len(text) or 1,
                term=text,
            )
        return items[0] if len(items) == 1 else And(tuple(items))

    def unary(self) -> Node:
        self.depth += 1
        try:
            return self._unary()
        finally:
            self.depth -= 1

    def _unary(self) -> Node:
        token = self.take()
        if self.depth > MAX_DEPTH:
            raise QueryError(
                Message(
                    f"第 {token.position + 1} 个字符处：括号或“-”嵌套太深（最多 {MAX_DEPTH} 层）",
                    f"nesting too deep at position {token.position + 1} (at most {MAX_DEPTH})",
                ),
                position=token.position,
                term=token.text,
            )
        if token.kind == "MINUS":
            if self.peek() is None:
                raise QueryError(
                    Message("“-”后面缺少要排除的条件", "'-' has nothing to negate"), position=token.position
                )
            return Not(self.unary(), token.position)
        if token.kind == "LPAREN":
            if (nxt := self.peek()) is not None and nxt.kind == "RPAREN":
                raise QueryError(
                    Message(
                        f"第 {token.position + 1} 个字符处的括号是空的",
                        f"empty parentheses at position {token.position + 1}",
                    ),
                    position=token.position,
                    length=2,
                    term="()",
                )
            node = self.or_expr()
            closing = self.peek()
            if closing is None or closing.kind != "RPAREN":
                raise QueryError(
                    Message(
                        f"第 {token.position + 1} 个字符处的括号没有闭合",
                        f"unclosed parenthesis at position {token.position + 1}",
                    ),
                    position=token.position,
                    term="(",
                )
            self.take()
            return node
        if token.kind == "RPAREN":
            raise QueryError(
                Message(
                    f"第 {token.position + 1} 个字符处多了一个右括号", f"unmatched ')' at position {token.position + 1}"
                ),
                position=token.position,
                term=")",
            )
        if token.kind == "TERM":
            if token.value == "":
                raise QueryError(
                    Message(f"「{token.text}」缺少值", f"'{token.text}' has no value"),
                    position=token.position,
                    length=len(token.text),
                    term=token.text,
                )
            return Term(token.key.lower(), token.op, token.value, token.position, len(token.text), token.value_quoted)
        # WORD or QUOTED: a name search
        length = len(token.text) + (2 if token.kind == "QUOTED" else 0)
        return Term("", ":", token.value, token.position, length, token.kind == "QUOTED")


def parse(text: str) -> Query:
    """Parse a query into its filter tree; raises :class:`QueryError` with a position."""
    if len(text) > MAX_LENGTH:
        raise QueryError(
            Message(
                f"查询太长（{len(text)} 个字符，最多 {MAX_LENGTH}）", f"query too long ({len(text)} > {MAX_LENGTH})"
            ),
            position=MAX_LENGTH,
            length=len(text) - MAX_LENGTH,
        )
    node = _Parser(text, tokenize(text)).parse()
    return Query(text=text, root=node)
