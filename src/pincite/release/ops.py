"""The release lifecycle: freeze → shadow → diff → canary → promote → rollback, status and
drift samples. Each step appends to the release record (`release.record`).

- `freeze` writes the contract as its next version.
- `shadow GEN` opens a release for a built generation and replays the contract's
  labelled queries against it without serving it.
- `diff` dual-reads the published generation and the candidate per query class:
  quality, authorization, latency, cost, freshness (source watermarks), what moved.
- `canary GEN --cohort C` runs the cohort's principals' queries on the candidate, records
  what each saw, and decides pass/fail; `canary.json` names the cohort's generation.
- `promote` checks every gate (evaluation, canary, security evidence from the acceptance
  suite, measured freshness and deletion, an approver of the contract), then publishes
  the candidate in one pointer switch (query encoder and index move together: a
  generation carries its embedding space) and keeps the old one as rollback target.
- `rollback` switches back to the rollback target. `status` says `no_release`,
  `candidate`, `qualified`, `requalify` (with reasons) or `rolled_back`.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from ..errors import NotFound, ReleaseRefused, UsageError
from ..model import Principal, timestamp
from ..model.progress_report import Report, report_to
from ..store import Store
from ..vocab import ProgressUnit
from .contract import Contract, contract_from_dict, digest, load_contract
from .measure import gates, measure_slas, run_classes
from .record import (
    RECORD_SCHEMA,
    RECORD_VERSION,
    fingerprint,
    latest_contract,
    load_record,
    release_ids,
    releases_dir,
    save_contract,
    save_record,
    triggers,
)

OPEN = ("shadow", "diffed", "canary")


class Releases:
    """The release steps over one store and one releases folder, acting as `actor`."""

    # what `promote` does, in order, each reported as a step as it starts
    PROMOTE_STEPS = ("measure freshness and deletion", "check the gates",
                     "publish the candidate")

    def __init__(self, store: Store, root: Path, actor: str = "local") -> None:
        self.store, self.root, self.actor = store, root, actor

    # ---- helpers ------------------------------------------------------------------------

    def _contract(self) -> tuple[dict[str, Any], Contract]:
        entry = latest_contract(self.root)
        if entry is None:
            raise UsageError(f"no contract is frozen in {self.root}: run `pincite release "
                             "freeze CONTRACT.yaml` first")
        return entry, contract_from_dict(entry["contract"], entry["file"])

    def _manifest(self, gen: str) -> dict[str, Any]:
        g = self.store.generation(gen)
        if g is None or g.manifest is None:
            raise NotFound("generation", gen)
        return g.manifest

    def _step(self, record: dict[str, Any], step: str, state: str, note: str = "",
              **data: Any) -> dict[str, Any]:
        steps = [*record.get("steps", []), {"step": step, "at": timestamp(), "by": self.actor,
                                            "note": note}]
        return save_record(self.root, {**record, **data, "state": state, "steps": steps})

    def _open(self) -> dict[str, Any]:
        ids = release_ids(self.root)
        rec = load_record(self.root, ids[-1]) if ids else None
        if rec is None or rec["state"] not in OPEN:
            raise UsageError("no release is open: start one with `pincite release shadow GEN`")
        return rec

    # ---- steps --------------------------------------------------------------------------

    def freeze(self, path: str | Path) -> dict[str, Any]:
        """Check a contract file and write it as the next contract version; return it."""
        _, data = load_contract(path)
        return save_contract(self.root, data)

    def shadow(self, gen: str) -> dict[str, Any]:
        """Open a release for generation `gen` and replay the labelled queries on it
        without serving it; return the record."""
        entry, contract = self._contract()
        manifest = self._manifest(gen)
        ids = release_ids(self.root)
        rid = f"R{len(ids) + 1:04d}"
        (self.root / "canary.json").unlink(missing_ok=True)  # a new candidate: no route yet
        run = run_classes(self.store, contract, gen)
        record = {"schema_name": RECORD_SCHEMA, "version": RECORD_VERSION, "release_id": rid,
                  "contract": {"name": contract.name, "version": entry["version"],
                               "digest": entry["digest"], "file": entry["file"]},
                  "owner": contract.owner, "candidate": gen,
                  "baseline": self.store.pointer()[0], "manifest": manifest,
                  "manifest_sha256": digest(manifest), "evaluation": run,
                  "shadow": {"gates_missed": gates(contract, run)}, "steps": []}
        return self._step(record, "shadow", "shadow",
                          f"{sum(c['queries'] for c in run['classes'].values())} queries "
                          f"replayed on {gen}, not served")

    def diff(self) -> dict[str, Any]:
        """Dual-read the published generation and the candidate per query class; return the
        record."""
        from ..retrieve.diff import diff_generations

        rec = self._open()
        _, contract = self._contract()
        base = self.store.pointer()[0]
        cand = run_classes(self.store, contract, rec["candidate"])
        old = run_classes(self.store, contract, base) if base else None
        who = Principal.parse(contract.principal)
        moved = {}
        if base:
            for qc in contract.query_classes:
                d = diff_generations(self.store, who, base, rec["candidate"],
                                     [q.query for q in qc.queries], k=contract.k)
                moved[qc.name] = {"mean_overlap": round(sum(x["overlap"] for x in d) / len(d), 3),
                                  "entered": sum(len(x["entered"]) for x in d),
                                  "left": sum(len(x["left"]) for x in d)}
        wm = {g: (self._manifest(g).get("source_watermark") if g else None)
              for g in (base, rec["candidate"])}
        diff = {"baseline": base, "candidate": rec["candidate"], "per_class": {
            name: {"baseline": (old or {}).get("classes", {}).get(name),
                   "candidate": c, "moved": moved.get(name)}
            for name, c in cand["classes"].items()},
            "authorization": {"baseline": (old or {}).get("authorization"),
                              "candidate": cand["authorization"]},
            "latency_p95_ms": {"baseline": (old or {}).get("latency_p95_ms"),
                               "candidate": cand["latency_p95_ms"]},
            "cpu_ms_per_query": {"baseline": (old or {}).get("cpu_ms_per_query"),
                                 "candidate": cand["cpu_ms_per_query"]},
            "freshness": {"source_watermark": wm}}
        return self._step(rec, "diff", "diffed", f"dual read {base} vs {rec['candidate']}",
                          diff=diff, evaluation=cand)

    def canary(self, gen: str, cohort: str) -> dict[str, Any]:
        """Route a named cohort to the candidate: run its principals' queries on it, record
        what each saw and the decision; return the record."""
        rec = self._open()
        _, contract = self._contract()
        if gen != rec["candidate"]:
            raise UsageError(f"the open release {rec['release_id']} is for {rec['candidate']}, "
                             f"not {gen}: run `pincite release shadow {gen}` first")
        if cohort not in contract.cohorts:
            raise UsageError(f"cohort {cohort!r} is not in the contract: use one of "
                             f"{', '.join(sorted(contract.cohorts))}")
        seen, missed = [], []
        for p in contract.cohorts[cohort]:
            who = Principal.parse(p)
            if who.tenant not in contract.boundary.tenants:
                raise UsageError(f"cohort {cohort}: {p} is outside the corpus boundary")
            run = run_classes(self.store, contract, gen, principal=who)
            missed += [f"{p}: {m}" for m in gates(contract, run)]
            seen.append({"principal": p, "classes": {n: {k: c[k] for k in (
                f"recall@{contract.k}", "mrr", "latency_p95_ms", "flags")}
                for n, c in run["classes"].items()}, "authorization": run["authorization"]})
        decision = "fail" if missed else "pass"
        routes = {"cohort": cohort, "generation": gen, "principals": list(contract.cohorts[cohort]),
                  "release_id": rec["release_id"], "at": timestamp()}
        (self.root / "canary.json").write_text(json.dumps(routes, indent=1), "utf-8")
        canary = {"cohort": cohort, "principals": seen, "decision": decision, "missed": missed}
        return self._step(rec, "canary", "canary", f"cohort {cohort}: {decision}", canary=canary)

    def promote(self, approved_by: str, security: dict[str, Any], embedder: Any,
                report: Report | None = None) -> dict[str, Any]:
        """Check every gate, then publish the candidate and keep the old generation as the
        rollback target; return the record (ReleaseRefused, nothing switched, otherwise).
        Each of `PROMOTE_STEPS` is reported to `report` as it starts."""
        from ..index.generations import publish

        def step(k: int) -> None:
            names = self.PROMOTE_STEPS
            report_to(report, ProgressUnit.STEP, k, len(names), names[k] if k < len(names) else "")

        rec = self._open()
        entry, contract = self._contract()
        step(0)
        slas = measure_slas(contract, embedder)
        step(1)
        sec = {"report": security.get("schema_name"), "ok": bool(security.get("ok")),
               "tried": security.get("tried"), "bad": security.get("bad"),
               "groups": security.get("groups_run"), "seconds": security.get("seconds"),
               "figures": [{"group": g["group"], **f} for g in security.get("groups", ())
                           for f in g.get("figures", ())]}
        missing = list(gates(contract, rec["evaluation"]))
        if rec["state"] != "canary" or (rec.get("canary") or {}).get("decision") != "pass":
            missing.append("the canary has not passed (run `pincite release canary`)")
        if "diff" not in rec:
            missing.append("no dual read (run `pincite release diff`)")
        if not sec["ok"] or sec["bad"] or not sec["figures"]:
            missing.append(f"security evidence: {sec['bad']} bad of {sec['tried']} tried")
        if not slas["passes"]:
            missing.append(f"freshness {slas['freshness_seconds']} s / deletion "
                           f"{slas['deletion_seconds']} s miss the service levels")
        if approved_by not in contract.approvers:
            missing.append(f"{approved_by!r} is not an approver of the contract "
                           f"({', '.join(contract.approvers)})")
        if missing:
            self._step(rec, "promote_refused", rec["state"], "; ".join(missing),
                       security=sec, slas=slas)
            raise ReleaseRefused(f"release {rec['release_id']} is not promoted: "
                                 + "; ".join(missing))
        base = self.store.pointer()[0]
        step(2)
        publish(self.store, rec["candidate"])
        step(3)
        (self.root / "canary.json").unlink(missing_ok=True)  # everyone reads it now
        until = datetime.now(UTC) + timedelta(hours=contract.rollback.window_hours)
        return self._step(
            rec, "promote", "promoted", f"{base} → {rec['candidate']}", security=sec,
            slas=slas, approval={"approved_by": approved_by, "at": timestamp()},
            rollback_target=base, rollback_window_until=until.isoformat(),
            rollback_criteria=list(contract.rollback.criteria),
            strata=self._strata(), qualified=fingerprint(rec["manifest"], entry["contract"]))

    def rollback(self, reason: str) -> dict[str, Any]:
        """Switch readers back to the promoted release's rollback target; return the record."""
        from ..index.generations import publish
        from ..index.generations import rollback as switch_back

        rec = self._released()
        if rec is None or rec["state"] != "promoted":
            raise UsageError("no promoted release to roll back")
        target = rec.get("rollback_target")
        if not target:
            raise ReleaseRefused(f"release {rec['release_id']} has no rollback target (it was "
                                 "the first generation published)")
        if self.store.pointer()[1] == target:
            switch_back(self.store)  # the pointer's own previous: one switch
        else:
            publish(self.store, target)
        return self._step(rec, "rollback", "rolled_back", f"{rec['candidate']} → {target}: "
                          f"{reason}", rolled_back={"to": target, "reason": reason})

    # ---- reading ------------------------------------------------------------------------

    def _released(self) -> dict[str, Any] | None:
        for rid in reversed(release_ids(self.root)):
            rec = load_record(self.root, rid)
            if rec["state"] in ("promoted", "rolled_back"):
                return rec
        return None

    def _strata(self) -> dict[str, int]:
        return dict(Counter(r.media_type for t in self._tenants()
                            for s in self.store.sources(t)
                            for r in self.store.revisions(t, s.source_id)[-1:]))

    def _tenants(self) -> list[str]:
        entry = latest_contract(self.root)
        return list(entry["contract"]["boundary"]["tenants"]) if entry else []

    def _published(self) -> str | None:
        # a backend that keeps no index generations yet (the PostgreSQL skeleton) serves none
        pointer = getattr(self.store, "pointer", None)
        return pointer()[0] if pointer is not None else None

    def status(self) -> dict[str, Any]:
        """Return where the releases stand (a store without any is a state, not an error)."""
        cur = self._published()
        ids = release_ids(self.root)
        latest = load_record(self.root, ids[-1]) if ids else None
        rec = self._released()
        out: dict[str, Any] = {"schema_name": "pincite.release_status", "version": 1,
                               "releases_dir": str(self.root), "published_generation": cur,
                               "release": None, "reasons": [],
                               "open_candidate": latest["release_id"]
                               if latest and latest["state"] in OPEN else None}
        if rec is None:
            out["state"] = "candidate" if out["open_candidate"] else "no_release"
            return out
        out["release"], out["generation"] = rec["release_id"], rec["candidate"]
        if rec["state"] == "rolled_back":
            out["state"] = "rolled_back"
            out["reasons"] = [f"rolled back to {rec['rolled_back']['to']}: "
                              f"{rec['rolled_back']['reason']}"]
            return out
        reasons = []
        entry = latest_contract(self.root)
        if cur != rec["candidate"]:
            reasons.append(f"published generation {cur} is not the released {rec['candidate']}")
        if cur is not None and entry is not None:
            reasons += triggers(rec["qualified"], fingerprint(self._manifest(cur),
                                                              entry["contract"]))
        out["state"], out["reasons"] = ("requalify" if reasons else "qualified"), reasons
        target = rec.get("rollback_target")
        kept = self.store.generation(target) if target else None
        if target and (kept is None or kept.state not in ("published", "retired", "ready")):
            out["warnings"] = [f"the rollback target {target} is no longer kept (pruned before "
                               f"{rec.get('rollback_window_until')}?): keep it with `index "
                               "prune --keep`"]
        return out

    def sample(self, per_class: int, seed: int, show_payloads: bool = False) -> dict[str, Any]:
        """Re-run a seeded sample of each class's labelled queries on the published
        generation and compare with the release record; append to drift.jsonl."""
        rec = self._released()
        if rec is None:
            raise UsageError("no release to compare with: promote one first")
        entry, contract = self._contract()
        rng = random.Random(seed)
        classes = []
        for qc in contract.query_classes:
            qs = rng.sample(list(qc.queries), min(per_class, len(qc.queries)))
            classes.append({**qc.model_dump(), "queries": [q.model_dump() for q in qs]})
        sub = contract_from_dict({**entry["contract"], "query_classes": classes}, "sample")
        run = run_classes(self.store, sub, None)
        released = rec["evaluation"]["classes"]
        changes = {}
        for n, c in run["classes"].items():
            before = released.get(n, {}).get("per_query", {})
            moved = {d: {"now": v, "released": before.get(d)} for d, v in c["per_query"].items()
                     if before.get(d) != v}
            changes[n] = {"sampled": c["queries"], "changed": moved}
        strata = self._strata()
        line = {"at": timestamp(), "release": rec["release_id"], "seed": seed,
                "queries": {c["name"]: [q["query"] if show_payloads else
                                        digest(q["query"])[:12] for q in c["queries"]]
                            for c in classes},
                "classes": changes, "documents_by_stratum": strata,
                "documents_by_stratum_released": rec.get("strata", {}),
                "drifted": sorted(n for n, c in changes.items() if c["changed"])
                + (["documents"] if strata != rec.get("strata", {}) else [])}
        with (self.root / "drift.jsonl").open("a", encoding="utf-8") as f:
            f.write(json.dumps(line, ensure_ascii=False) + "\n")
        return line


def canary_generation(lib: Any, store_url: str, releases: str | Path | None,
                      principal: Principal) -> str | None:
    """Return the generation the open canary routes `principal` to (it is in the cohort),
    else None: the published one serves it. The query path passes it as `generation=`."""
    path = releases_dir(store_url, releases) / "canary.json"
    if not path.is_file():
        return None
    try:
        route = json.loads(path.read_text("utf-8"))
        members = {str(Principal.parse(p)) for p in route.get("principals", ())}
    except (OSError, ValueError, UsageError, AttributeError, TypeError):
        return None  # a route being rewritten or damaged routes nobody: the published serves
    gen = route.get("generation")
    return gen if str(principal) in members and isinstance(gen, str) else None


def routed_generation(store_url: str, principal: Principal,
                      releases: str | Path | None = None) -> str | None:
    """Return the generation a query of `principal` is served from when an open canary
    routes it there, else None (the published one). The CLI and the service both ask this.
    The release records are in `releases`, else `$PINCITE_RELEASES`, else beside a path
    store; a URL store without either has no canary to route."""
    import os

    releases = releases if releases is not None else os.environ.get("PINCITE_RELEASES")
    if releases is None and "://" in str(store_url):
        return None
    return canary_generation(None, str(store_url), releases, principal)


def release_ops(lib: Any, store_url: str, releases: str | Path | None,
                actor: str = "local") -> Releases:
    """Return the release steps over a library's store and its releases folder."""
    return Releases(lib.store, releases_dir(store_url, releases), actor)


def release_status(lib: Any, store_url: str, releases: str | Path | None) -> dict[str, Any]:
    """Return `pincite release status` of a library (no release yet is a state)."""
    return release_ops(lib, store_url, releases).status()
