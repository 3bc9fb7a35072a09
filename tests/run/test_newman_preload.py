"""`satori-preload.js` in Newman's process: a UTF-8 file is read as UTF-8 without chardet's byte-by-byte guess
(8 s on GitHub's collection), anything else is still guessed; it is required through NODE_OPTIONS ahead of the
user's own options, from a folder whose name needs quoting too (real Node.js, Newman's own chardet)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from satori_ci.run import newman
from tests.run.conftest import newman_available

PROBE = """
const chardet = require('chardet');
const utf8 = Buffer.from(JSON.stringify({name: 'caf\\u00e9 \\u{1F600}', text: 'x'.repeat(100000)}), 'utf8');
const utf16 = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('{"a": "b"}', 'utf16le')]);
console.log(JSON.stringify({marked: chardet.satoriUtf8First === true, utf8: chardet.detect(utf8),
                            utf16: chardet.detect(utf16)}));
"""


def _probe(node_options: str) -> dict[str, object]:
    newman_available()  # Node.js and the checkout's node_modules (Newman's chardet)
    env = {**os.environ, "NODE_OPTIONS": node_options}
    done = subprocess.run(["node", "-e", PROBE], env=env, cwd=newman.REPO_ROOT, capture_output=True, text=True,
                          timeout=60, check=True)
    result: dict[str, object] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def test_newman_takes_a_utf8_file_as_utf8_and_still_guesses_the_others(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("NODE_OPTIONS", raising=False)
    assert _probe(newman._node_options()) == {"marked": True, "utf8": "UTF-8", "utf16": "UTF-16LE"}
    # without the preload chardet guesses (the same answers, byte by byte): the probe tells them apart
    assert _probe("")["marked"] is False


def test_the_preload_comes_from_a_quoted_folder_and_the_users_options_stay(monkeypatch: pytest.MonkeyPatch,
                                                                           tmp_path: Path) -> None:
    folder = tmp_path / 'a "quoted" folder with spaces'
    folder.mkdir()
    preload = folder / newman.PRELOAD.name
    shutil.copyfile(newman.PRELOAD, preload)
    monkeypatch.setattr(newman, "PRELOAD", preload)
    monkeypatch.setenv("NODE_OPTIONS", "--max-old-space-size=1536")
    options = newman._node_options()
    assert options.endswith(" --max-old-space-size=1536")
    assert _probe(options)["marked"] is True
