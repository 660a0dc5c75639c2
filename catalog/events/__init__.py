"""Events (issue 14): the monthly 永恒之轮 tournament run on the site.

- ``registration``: events, players, deck snapshots with a canonical hash, the lock, drops, DQ;
- ``pairing``: pairing systems in a registry (``swiss``: networkx maximum-weight matching);
- ``standings``: match points and tiebreak sets in a registry (``mtr``, ``buchholz``), pure;
- ``rounds``: MTR Appendix E rounds for a player count;
- ``running``: pair a round (or import it), swap by hand, results, reports, standings;
- ``prizes``: silver chests by place, balances with their ledger, exchange lists, redemptions;
- ``seasons``: leaderboards and the national-championship cut;
- ``export``: the XLSX/CSV score sheet.
"""
