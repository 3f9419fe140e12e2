"""The release record names what it must hold `required_items` (no project jargon in it),
and a record written before (version 1, `seed_items`) is still read, then written anew."""

from __future__ import annotations

import json
import shutil

from pincite.release.record import RECORD_VERSION, REQUIRED_ITEMS, load_record, releases_dir
from tests.release.conftest import ok


def _newest(folder):
    return sorted(folder.glob("record-v*.json"))[-1]


def test_a_record_says_what_it_must_hold_without_the_word_seed(released):
    folder = releases_dir(str(released["store"]), None) / "R0001"
    data = _newest(folder).read_text("utf-8")
    page = (folder / "record.html").read_text("utf-8")
    assert "seed" not in data.lower() and "seed" not in page.lower()
    rec = json.loads(data)
    assert rec["version"] == RECORD_VERSION
    assert rec["required_items"] == {item: True for item in REQUIRED_ITEMS}
    assert '<h2>What a release record must hold</h2>' in page
    assert '<table id="required-items">' in page


def test_a_version_1_record_is_read_and_the_next_step_writes_version_2(released, tmp_path):
    store = tmp_path / "store"
    shutil.copytree(released["store"], store)
    root = releases_dir(str(store), None)
    newest = _newest(root / "R0001")
    old = json.loads(newest.read_text("utf-8"))
    held = old.pop("required_items")
    newest.write_text(json.dumps({**old, "version": 1, "seed_items": held}), "utf-8")

    read = load_record(root, "R0001")
    assert read["required_items"] == held and "seed_items" not in read
    assert ok("release", "status", store=store)["state"] == "qualified"

    rec = ok("release", "rollback", "--reason", "drill", store=store)
    assert rec["state"] == "rolled_back"
    written = json.loads(_newest(root / "R0001").read_text("utf-8"))
    assert written["record_version"] == old["record_version"] + 1
    assert written["version"] == RECORD_VERSION and "seed_items" not in written
    assert written["required_items"] == held
    assert "seed" not in (root / "R0001" / "record.html").read_text("utf-8").lower()
