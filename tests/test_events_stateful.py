"""Events as a state machine (the events half;): hypothesis drives
register, pair, report, correct, drop, undrop, finish, reopen and spending chests in any order
against a real SQLite database, and after every step checks that nobody met the same opponent
twice, that an event's chests are in the ledger exactly once while it is finished (and not at
all after a reopen), and that the ledger sums to the balances."""

from __future__ import annotations

import itertools
from collections import Counter
from typing import Any

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    invariant,
    precondition,
    rule,
    run_state_machine_as_test,
)
from sqlalchemy import func, select
from sqlalchemy.engine import Engine
from sqlmodel import Session

from catalog.events import prizes, running, safety
from catalog.events import registration as reg
from catalog.events.registration import EventError
from catalog.models import ChestBalance, ChestLedger, Match
from tests.kits.deck import legal_samsara_list
from tests.kits.event import NOW, make_event

SCORES = [(2, 0, 0), (2, 1, 0), (1, 2, 0), (0, 2, 0), (1, 1, 1), (1, 0, 1)]
NAMES = [f"选手{i}" for i in range(12)]
_stores = itertools.count()
REACHED: Counter[str] = Counter()


DECK: list[str] = []


def machine(engine: Engine) -> type[RuleBasedStateMachine]:
    DECK[:] = [legal_samsara_list(engine)]

    class EventMachine(RuleBasedStateMachine):
        @initialize(players=st.integers(min_value=2, max_value=7), rounds=st.integers(min_value=1, max_value=3))
        def start(self, players: int, rounds: int) -> None:
            self.session = Session(engine)
            self.spent = 0
            self.event = make_event(self.session, store=f"店{next(_stores)}", rounds=rounds)
            self.players = [  # every other player with a legal list: flagged winners on both sides
                reg.register_player(session=self.session, event=self.event, player_name=n, now=NOW,
                                    deck_text=DECK[0] if i % 2 == 0 else None)
                for i, n in enumerate(NAMES[:players])
            ]  # fmt: skip

        def teardown(self) -> None:
            if hasattr(self, "session"):
                self.session.rollback()
                self.session.close()

        def _try(self, action: Any, **kwargs: Any) -> None:
            try:
                with self.session.begin_nested():
                    action(session=self.session, event=self.event, **kwargs)
            except EventError:
                pass  # refused: a savepoint rolled back whatever it started; nothing changed

        @precondition(lambda self: len(self.players) < len(NAMES))
        @rule()
        def register(self) -> None:
            name = NAMES[len(self.players)]
            try:
                with self.session.begin_nested():
                    self.players.append(
                        reg.register_player(session=self.session, event=self.event, player_name=name, now=NOW)
                    )
            except EventError:
                pass

        @rule(seed=st.integers(min_value=0, max_value=2**32))
        def pair(self, seed: int) -> None:
            self._try(running.pair_next_round, seed=seed, now=NOW)

        def _tables(self, reported: bool | None) -> list[Match]:
            found = [m for m in running.matches(session=self.session, event=self.event) if m.player_b_id is not None]
            return [m for m in found if reported is None or m.reported == reported]

        @rule(data=st.data(), score=st.sampled_from(SCORES))
        def report(self, data: st.DataObject, score: tuple[int, int, int]) -> None:
            last = reg.last_round(session=self.session, event=self.event)
            open_now = [m for m in self._tables(False) if m.round_number == last]
            if open_now:
                match = data.draw(st.sampled_from(open_now))
                self._try(running.record_result, match=match, wins_a=score[0], wins_b=score[1], draws=score[2], now=NOW)

        @rule(data=st.data(), score=st.sampled_from(SCORES))
        def correct(self, data: st.DataObject, score: tuple[int, int, int]) -> None:
            done = self._tables(True)
            if done:
                match = data.draw(st.sampled_from(done))
                self._try(running.record_result, match=match, wins_a=score[0], wins_b=score[1], draws=score[2], now=NOW)

        @rule(data=st.data())
        def drop(self, data: st.DataObject) -> None:
            self._try(reg.drop_player, registration=data.draw(st.sampled_from(self.players)))

        @rule(data=st.data())
        def undrop(self, data: st.DataObject) -> None:
            self._try(safety.undrop, registration=data.draw(st.sampled_from(self.players)))

        @rule(flagged=st.sampled_from(["award", "withhold"]))
        def finish(self, flagged: str) -> None:
            def finish_and_award(*, session: Session, event: Any) -> None:
                running.finish_event(session=session, event=event)
                prizes.award_chests(session=session, event=event, now=NOW, flagged=flagged)

            self._try(finish_and_award)
            REACHED["finished" if self.event.chests_awarded else "finish refused"] += 1

        @rule()
        def finish_and_reopen(self) -> None:
            """Finish, award and reopen at once: nothing was spent, so the reopen must go through."""
            try:
                with self.session.begin_nested():
                    running.finish_event(session=self.session, event=self.event)
                    prizes.award_chests(session=self.session, event=self.event, now=NOW, flagged="award")
            except EventError:
                return
            safety.reopen(session=self.session, event=self.event, now=NOW)
            REACHED["reopened"] += 1
            assert self.event.state == "running" and not self.event.chests_awarded

        @rule()
        def reopen(self) -> None:
            was = self.event.state
            self._try(safety.reopen, now=NOW)
            if was == "finished":
                REACHED["reopened" if self.event.state == "running" else "reopen refused (spent)"] += 1

        @precondition(lambda self: self.spent < 2)  # a few spends: reopening is refused, not always
        @rule(data=st.data())
        def spend(self, data: st.DataObject) -> None:
            held = [b for b in self.session.scalars(select(ChestBalance).where(ChestBalance.chests > 0))]  # type: ignore[arg-type]  # SQLModel column
            if held:
                balance = data.draw(st.sampled_from(held))
                self.spent += 1
                prizes.change_chests(session=self.session, store=balance.store, player_key=balance.player_key,
                                     player_name=balance.player_name, user_id=None, delta=-1, reason="redeem",
                                     now=NOW)  # fmt: skip

        @invariant()
        def nobody_meets_twice(self) -> None:
            if not hasattr(self, "event"):
                return
            pairs = [frozenset((m.player_a_id, m.player_b_id)) for m in self._tables(None)]
            assert len(pairs) == len(set(pairs)), "a rematch"
            for number in range(1, reg.last_round(session=self.session, event=self.event) + 1):
                seated = [p for m in running.matches(session=self.session, event=self.event, round_number=number)
                          for p in (m.player_a_id, m.player_b_id) if p is not None]  # fmt: skip
                assert len(seated) == len(set(seated)), f"a player twice in round {number}"

        @invariant()
        def chests_are_awarded_once(self) -> None:
            if not hasattr(self, "event"):
                return
            net = self.session.scalar(
                select(func.coalesce(func.sum(ChestLedger.delta), 0)).where(ChestLedger.event_id == self.event.id)  # type: ignore[arg-type]  # SQLModel column
            )
            if self.event.chests_awarded:
                assert self.event.state == "finished"
                given = prizes.placings(session=self.session, event=self.event)
                legal = sum(p.chests for p in given if p.registration.legal)
                assert legal <= net <= sum(p.chests for p in given)  # withheld flagged winners get none
            else:
                assert net == 0

        @invariant()
        def the_ledger_sums_to_the_balances(self) -> None:
            if hasattr(self, "session"):
                self.session.flush()
                assert prizes.check_chests(self.session) == []

    return EventMachine


def test_events_hold_their_invariants_in_any_order(sample_catalogue: Engine) -> None:
    REACHED.clear()
    run_state_machine_as_test(
        machine(sample_catalogue),
        settings=settings(
            max_examples=60,
            stateful_step_count=40,
            deadline=None,
            derandomize=True,
            database=None,
            suppress_health_check=list(HealthCheck),
        ),
    )
    assert REACHED["finished"] and REACHED["reopened"], REACHED  # the runs reach the end and come back
