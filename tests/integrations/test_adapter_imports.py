"""The frameworks are optional: `import pincite` (and the adapters' shared module) loads
none of them, and an adapter whose framework is missing names the extra to install."""

from __future__ import annotations

import json
import subprocess
import sys

FRAMEWORKS = ("llama_index", "langchain_core", "haystack")
CODE = """
import json, sys
import pincite, pincite.integrations, pincite.integrations.verified_search
from pincite.errors import MissingExtra
loaded = sorted({m.split('.')[0] for m in sys.modules} & set(FRAMEWORKS))
for top in FRAMEWORKS:
    sys.modules[top] = None  # as if it were not installed
messages = {}
for name in ("llamaindex", "langchain", "haystack"):
    try:
        __import__("pincite.integrations." + name)
    except MissingExtra as exc:
        messages[name] = exc.message
print(json.dumps({"loaded": loaded, "messages": messages}))
"""


def test_frameworks_load_only_with_their_adapter_and_name_their_extra_when_missing():
    out = subprocess.run([sys.executable, "-c", f"FRAMEWORKS = {FRAMEWORKS!r}\n{CODE}"],
                         capture_output=True, text=True, timeout=120, check=True)
    seen = json.loads(out.stdout)
    assert seen["loaded"] == []
    assert seen["messages"] == {
        "llamaindex": "llama-index-core is not installed: pip install 'pincite[llamaindex]'",
        "langchain": "langchain-core is not installed: pip install 'pincite[langchain]'",
        "haystack": "haystack-ai is not installed: pip install 'pincite[haystack]'",
    }
