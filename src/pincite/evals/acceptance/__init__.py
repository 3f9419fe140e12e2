"""The acceptance suite (`pincite eval acceptance`): the promises of `../shared/RELIABILITY.md`
measured by comparison — a reference model (`oracle`), canary tokens (`canaries`), spies at
the candidate seams (`spies`) — against fresh temporary stores, one module per group:

    AUTHZ       authz            canary documents per tenant and ACL; random principals x
                                 queries through search, ask, show, cite, sources; revocation
    NONINTERF   noninterference  hidden documents stuffed with the query terms change nothing
    DELETION    erasure          delete: every surface; purge: a byte grep of the store
    REVISIONS   revisions        revise cycles; old citations superseded, no orphan chunks
    INJECTION   prompt_injection payloads (own EN/ES set, BIPIA) in visible and hidden carriers
    CSRF/ORIGIN origin           the review page over HTTP from hostile origins and hosts
    SYMLINKS    symlinks         directory ingest never follows a link out of its root
    LIMITS      size_limits      files over the limit refused without being read
    HOSTILE     bad_inputs,      bad values through the CLI; hostile files through ingest
                hostile_files
    DURABILITY  durability       kill -9 at every fault point, fsck, retry
    REVIEW      interleavings    exhaustive two-reviewer interleavings; threads in `large`

and the classes of issue 25:

    WRITE AUTHZ        write_authz   every write path by a writer who cannot read the source
    TOKEN DOS          token_dos     forged JWTs: JWKS fetches, another tenant's latency
    MCP SCOPES         mcp_scopes    MCP tools with a credential lacking the scope or tenant
    SESSIONS           sessions      review sessions after key revocation and token expiry
    FAIRNESS           fairness      one tenant flooding; the other's latency, /ui limits
    DURABLE-RUN COPIES run_copies    purge, then every value of the runs database decoded
    FORMULA INJECTION  formulas      hostile labels through fill; CSV and XLSX cells read back
    YAML BOMBS         yaml_bombs    alias bombs, deep nesting, non-finite numbers, huge files

Every figure is a `scoreboard.Figure`: attempts made through real code paths (`tried`) and
the attempts that broke the promise (`bad`).
"""

from .harness import SIZES, CliRun, Drivers
from .scoreboard import table, write
from .suite import GROUPS, check_selection, run_acceptance

__all__ = ["GROUPS", "SIZES", "CliRun", "Drivers", "check_selection", "run_acceptance", "table",
           "write"]
