"""Events: the monthly 永恒之轮 tournament run on the site.

- ``registration``: events, players, deck snapshots with a canonical hash, the lock, drops, DQ;
- ``pairing``: pairing systems in a registry (``swiss``: networkx maximum-weight matching);
- ``standings``: match points and tiebreak sets in a registry (``mtr``, ``buchholz``), pure;
- ``rounds``: MTR Appendix E rounds for a player count;
- ``results``: stored rounds and results, and the standings computed from them;
- ``running``: pair a round (or import it), swap by hand, results, reports;
- ``playoff``: the optional top cut (single elimination seeded by the standings);
- ``prizes``: silver chests by place, balances with their ledger, exchange lists, redemptions;
- ``seasons``: leaderboards and the national-championship cut;
- ``export``: the XLSX/CSV score sheet;
- ``views``: read-only queries and the JSON shapes of DESIGN §12 for the pages and the API.
"""
