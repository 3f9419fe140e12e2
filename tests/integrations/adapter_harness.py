"""The three retriever adapters driven through their frameworks' own entry points
(`BaseRetriever.retrieve`, `BaseRetriever.invoke`, `Pipeline.run`), and the small store
they are tested on: two tenants' documents from examples/ in a temp SQLite store."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from weakref import WeakKeyDictionary

# Haystack reads this when it is imported: the tests send nothing anywhere.
os.environ["HAYSTACK_TELEMETRY_ENABLED"] = "False"

ROOT = Path(__file__).resolve().parents[2]
TENDER = ROOT / "examples" / "tender"
ADAPTERS = ("llamaindex", "langchain", "haystack")
LEGAL = "acme:ana:legal"          # reads anuncio.html only
FINANCE = "acme:bob:finance"      # reads pliego.pdf only
GLOBEX = "globex:ana:legal"       # another tenant, same user and group names
NOBODY = "initech:ana:legal"      # a tenant with no documents at all
QUERY = "presupuesto base de licitación"
PIPELINES: WeakKeyDictionary[Any, Any] = WeakKeyDictionary()


@dataclass(frozen=True)
class Hit:
    """What one adapter returned for one passage, read back from the framework's record."""

    text: str
    metadata: dict[str, Any]
    score: float | None
    record_id: str | None


def build_store(root: Path) -> Any:
    """Return a library at `root`: acme's anuncio.html (group legal, with a hidden
    paragraph) and pliego.pdf (group finance), globex's corrigendum of the pliego."""
    import pincite

    lib = pincite.open(root, create=True)
    lib.ingest([TENDER / "anuncio.html"], tenant="acme", acl=["group:legal"], publish=False)
    lib.ingest([TENDER / "pliego.pdf"], tenant="acme", acl=["group:finance"], publish=False)
    lib.ingest([TENDER / "corrigendum" / "pliego.pdf"], tenant="globex", acl=["group:legal"],
               source_id="corrigendum.pdf")
    return lib


def retriever(name: str, lib: Any, principal: Any, **opts: Any) -> Any:
    """Return adapter `name` built over `lib` for `principal` (`k` as each spells it)."""
    if name == "llamaindex":
        from pincite.integrations.llamaindex import PinciteRetriever as Li

        return Li(lib, principal, **opts)
    if name == "langchain":
        from pincite.integrations.langchain import PinciteRetriever as Lc

        return Lc(library=lib, principal=principal, **opts)
    from pincite.integrations.haystack import PinciteRetriever as Hs

    if "k" in opts:
        opts["top_k"] = opts.pop("k")
    return Hs(lib, principal, **opts)


def run(name: str, built: Any, query: str) -> list[Hit]:
    """Return what the built adapter `name` gives for `query` through its framework."""
    if name == "llamaindex":
        return [Hit(n.node.get_content(), dict(n.node.metadata), n.score, n.node.node_id)
                for n in built.retrieve(query)]
    if name == "langchain":
        return [Hit(d.page_content, dict(d.metadata), None, d.id) for d in built.invoke(query)]
    from haystack import Pipeline

    pipe = PIPELINES.get(built)
    if pipe is None:  # a component belongs to one pipeline
        pipe = PIPELINES[built] = Pipeline()
        pipe.add_component("pincite", built)
    docs = pipe.run({"pincite": {"query": query}})["pincite"]["documents"]
    return [Hit(d.content or "", dict(d.meta), d.score, d.id) for d in docs]


def retrieve(name: str, lib: Any, principal: Any, query: str = QUERY, **opts: Any) -> list[Hit]:
    """Return adapter `name`'s passages for `query`, built and run as `principal`."""
    return run(name, retriever(name, lib, principal, **opts), query)
