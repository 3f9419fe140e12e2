"""REVIEW: each review item is claimed by one reviewer at a time and decided at most once,
and none is lost.

Exhaustive small interleavings: two reviewers share a queue of two real review items (an
extraction under strict thresholds) and a hand-moved clock. Each runs a two-step script
over the operations N (claim next), D (decide what it holds, or try another's item), R
(release what it holds, or try another's) and E (the clock moves past the lease); every
pair of scripts is run in every interleaving, each on a fresh copy of the store. After
each run: no two live claims ever covered one item, no item was decided twice, and every
undecided item can be claimed again once leases run out. In `large`, threads with their
own connections also race for a few seconds on one store with short real leases; the
claims each was granted (the store's own timestamps) must never overlap on one item.
"""

from __future__ import annotations

import itertools
import random
import shutil
import threading
import time
from collections import defaultdict
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from ...errors import NotFound, ReviewConflict
from ...extract.schema import schema_from_dict
from ...model import Principal
from .builders import Spec, render
from .harness import Drivers, Size, Workspace
from .scoreboard import Scoreboard

GROUP = "REVIEW"
F_DOUBLE = "double claims (two live claims on one item)"
F_TWICE = "items decided twice"
F_LOST = "lost items (neither decided nor claimable again)"
F_ERRORS = "unexpected errors in claim, decide or release"
F_LIVE = "decisions refused to the holder of a live claim (not vacuous)"
REVIEWERS = (Principal.parse("acme:ana:legal"), Principal.parse("acme:bob:legal"))
LATE = tuple(Principal("acme", f"late{k}", ("legal",)) for k in range(4))
LEASE = 60.0
SCHEMA = {"name": "strict", "fields": [
    {"name": f, "type": t, "synonyms": {"en": [w]}, "tau_show": 0.99, "tau_flag": 0.99}
    for f, t, w in (("fee", "money", "annual fee"), ("term", "duration", "term"))]}


class Clock:
    """A clock moved by hand."""

    def __init__(self) -> None:
        self.t = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.t


def _template(ws: Workspace, drivers: Drivers, docs: int) -> tuple[Path, list[int]]:
    """A store whose review queue holds two items per document; return it and their ids."""
    store = ws.path("review-template")
    with drivers.open_library(store, create=True) as lib:
        for i in range(docs):
            spec = Spec(f"Terms {i}", (f"1.1 The annual fee is {i + 1}5,000 EUR.",
                                       f"1.2 The term is {i + 2} months."))
            lib.ingest_bytes(render(spec, "md"), source_id=f"terms-{i}.md", tenant="acme",
                             acl=["group:legal"], sandbox=False)
            lib.extract(REVIEWERS[0], schema_from_dict(SCHEMA), [f"terms-{i}.md"])
        ids = [it["id"] for it in lib.review_queue(REVIEWERS[0]).items()]
    return store, ids


def _run(drivers: Drivers, store: Path, ids: list[int], order: list[tuple[int, str]],
         f: dict[str, Any]) -> None:
    """Run one interleaving; check it."""
    clock = Clock()
    claims: list[tuple[int, str, datetime, datetime]] = []   # item, who, from, until
    ended: dict[tuple[int, str], datetime] = {}
    decided: dict[int, list[str]] = defaultdict(list)
    errors: list[str] = []
    with drivers.open_library(store) as lib:
        queues = [lib.review_queue(p, clock=clock) for p in REVIEWERS]
        held: list[int | None] = [None, None]
        for who, op in order:
            q, name = queues[who], REVIEWERS[who].subject
            mine = held[who]
            target = mine if mine is not None else ids[0]
            live = held[who] is not None and any(c[0] == held[who] and c[1] == name
                                                  and c[3] > clock.t for c in claims[-2:])
            try:
                if op == "N":
                    it = q.next(lease=LEASE)
                    if it is not None:
                        held[who] = it["id"]
                        claims.append((it["id"], name, clock.t, clock.t + timedelta(seconds=LEASE)))
                elif op == "D":
                    q.decide(target, "accept")
                    if live:
                        f[F_LIVE].attempt(True)
                    decided[target].append(name)
                    ended[(target, name)] = clock.t
                    held[who] = None
                elif op == "R":
                    q.release(target)
                    ended[(target, name)] = clock.t
                    held[who] = None
                elif op == "E":
                    clock.t += timedelta(seconds=LEASE + 1)
            except (ReviewConflict, NotFound) as exc:
                if op == "D" and live:
                    f[F_LIVE].attempt(False, f"{name} holds {target} live: {exc}")
                continue  # refused: what a second reviewer must get
            except Exception as exc:  # noqa: BLE001 - counted, the run goes on
                errors.append(f"{op} by {name}: {type(exc).__name__}: {exc}")
        script = " ".join(f"{REVIEWERS[w].subject}:{o}" for w, o in order)
        f[F_ERRORS].attempt(not errors, f"{script}: {errors[:1]}")
        overlap = [(a, b) for a, b in itertools.combinations(claims, 2) if a[0] == b[0]
                   and a[1] != b[1] and max(a[2], b[2]) < min(_end(a, ended), _end(b, ended))]
        f[F_DOUBLE].attempt(not overlap, f"{script}: {overlap[:1]}")
        labels: dict[int, int] = defaultdict(int)
        for lb in lib.store.review_labels("acme"):
            labels[lb["item_id"]] += 1
        twice = [i for i in ids if labels[i] > 1 or len(decided[i]) > 1]
        f[F_TWICE].attempt(not twice, f"{script}: items {twice}")
        clock.t += timedelta(seconds=2 * LEASE + 1)
        again = set()  # each late reviewer claims one item left open
        for p in LATE[:len(ids)]:
            it = lib.review_queue(p, clock=clock).next(lease=LEASE)
            if it is not None:
                again.add(it["id"])
        lost = [i for i in ids if i not in again and labels[i] == 0]
        f[F_LOST].attempt(not lost, f"{script}: items {lost} neither decided nor claimable")


def _end(claim: tuple[int, str, datetime, datetime],
         ended: dict[tuple[int, str], datetime]) -> datetime:
    """When a claim stopped counting: its lease's end, or its release or decision."""
    stop = ended.get((claim[0], claim[1]))
    return min(claim[3], stop) if stop is not None and stop >= claim[2] else claim[3]


def _orders(a: str, b: str) -> list[list[tuple[int, str]]]:
    """Every interleaving of reviewer 0's script `a` and reviewer 1's script `b`."""
    n = len(a) + len(b)
    out = []
    for slots in itertools.combinations(range(n), len(a)):
        ia, ib, order = iter(a), iter(b), []
        for k in range(n):
            order.append((0, next(ia)) if k in slots else (1, next(ib)))
        out.append(order)
    return out


def run_interleavings(board: Scoreboard, ws: Workspace, drivers: Drivers, size: Size,
                      seed: int) -> None:
    """Run the REVIEW group into `board`."""
    f = {n: board.figure(GROUP, n) for n in (F_DOUBLE, F_TWICE, F_LOST, F_ERRORS, F_LIVE)}
    template, ids = _template(ws, drivers, 1)
    scripts = ["".join(s) for s in itertools.product(size.review_ops, repeat=2)]
    runs = 0
    # the two reviewers are alike: (a, b) and (b, a) are the same runs with names swapped
    for a, b in itertools.combinations_with_replacement(scripts, 2):
        for order in _orders(a, b):
            store = ws.path("review-run")
            shutil.copytree(template, store)
            _run(drivers, store, ids, order, f)
            shutil.rmtree(store, ignore_errors=True)
            runs += 1
    board.note(GROUP, f"{runs} interleavings of two-step scripts over {size.review_ops!r} "
               f"(N claim, D decide, R release, E lease expires) by two reviewers, 2 items (each pair of scripts once: the reviewers are alike)")
    if size.review_stress_seconds > 0:
        _stress(board, ws, drivers, size, seed, f)


def _stress(board: Scoreboard, ws: Workspace, drivers: Drivers, size: Size, seed: int,
            f: dict[str, Any]) -> None:
    """Threads with their own connections race on one store with short real leases."""
    store, ids = _template(ws, drivers, 40)
    lease, until = 0.5, time.time() + size.review_stress_seconds
    claims: list[tuple[int, str, str, str]] = []  # item, who, claimed at, lease until
    decided: dict[int, int] = defaultdict(int)
    lock = threading.Lock()
    errors: list[str] = []

    def worker(k: int) -> None:
        rng = random.Random(seed + k)
        who = Principal("acme", f"w{k}", ("legal",))
        with drivers.open_library(store) as lib:
            q = lib.review_queue(who)
            while time.time() < until:
                try:
                    it = q.next(lease=lease)
                    if it is None:
                        time.sleep(0.01)
                        continue
                    with lock:
                        claims.append((it["id"], who.subject, it["claimed_at"],
                                       it["lease_until"]))
                    if rng.random() < 0.1:
                        time.sleep(lease + 0.1)  # a stall past the lease
                    q.decide(it["id"], "accept" if rng.random() < 0.7 else "reject")
                    with lock:
                        decided[it["id"]] += 1
                except (ReviewConflict, NotFound):
                    continue
                except Exception as exc:  # noqa: BLE001 - counted
                    errors.append(f"{type(exc).__name__}: {exc}")
                    return

    threads = [threading.Thread(target=worker, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    f[F_ERRORS].attempt(not errors, f"stress: {errors[:1]}")
    by_item: dict[int, list[tuple[int, str, str, str]]] = defaultdict(list)
    for c in claims:  # what each worker was granted, as the store told it
        by_item[c[0]].append(c)
    for item, cl in by_item.items():
        cl.sort(key=lambda c: c[2])
        for a, b in zip(cl, cl[1:], strict=False):
            f[F_DOUBLE].attempt(a[1] == b[1] or b[2] >= a[3], f"stress item {item}: {a} / {b}")
    with drivers.open_library(store) as lib:
        labels: dict[int, int] = defaultdict(int)
        for lb in lib.store.review_labels("acme"):
            labels[lb["item_id"]] += 1
        for i in ids:
            f[F_TWICE].attempt(labels[i] <= 1 and decided[i] <= 1, f"stress item {i}")
        states = {it["id"]: it["state"] for it in lib.review_queue(REVIEWERS[0]).items()}
        f[F_LOST].add(len(ids), sum(1 for i in ids if states.get(i) not in ("decided", "open")),
                      "stress: an item neither decided nor open")
    board.note(GROUP, f"stress: 4 threads for {size.review_stress_seconds:g} s on {len(ids)} "
               f"items, {len(claims)} claims, {sum(decided.values())} decisions")
