"""`release promote` says each step as it starts, on stderr (issue 30 item 4): the run is
in process, so stderr is not a terminal and the steps are plain lines."""

from __future__ import annotations


def _steps(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if line.startswith("release promote: ")]


def test_promote_says_each_step_as_it_starts(released):
    assert _steps(released["promote_stderr"]) == [
        "release promote: step 1/5 security evidence: AUTHZ",
        "release promote: step 2/5 security evidence: DELETION",
        "release promote: step 3/5 measure freshness and deletion",
        "release promote: step 4/5 check the gates",
        "release promote: step 5/5 publish the candidate",
    ]
    # the suite's own commands ran in process with their streams captured: none of their
    # progress reached the command's stderr, and its JSON came out whole (the fixture read it)
    assert not any(line.startswith("ingest: ") for line in released["promote_stderr"].splitlines())
    assert released["promote"]["state"] == "promoted"


def test_a_refused_promote_shows_the_steps_it_took_then_the_error(released):
    refused = released["refused"]  # --acceptance given: no suite to run; an unknown approver
    assert refused.returncode == 1
    assert _steps(refused.stderr) == ["release promote: step 1/3 measure freshness and deletion",
                                      "release promote: step 2/3 check the gates"]
    assert refused.stderr.splitlines()[-1].startswith("error: release R0001 is not promoted")
