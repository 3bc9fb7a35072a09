"""`ForkedBytes`: work done by a forked child, its bytes read back; None (do it here) whenever that goes wrong.

Each case runs in a process of its own, which runs one thread as the command line does."""

from __future__ import annotations

import json
import subprocess
import sys

PRELUDE = """
import json, os, signal, sys, threading, time
from satori_ci.forked import ForkedBytes, can_fork

def gone(pid):
    # the child was reaped: it is neither running nor a zombie of ours
    try:
        os.waitpid(pid, os.WNOHANG)
    except ChildProcessError:
        return True
    return False
"""


def _run(script: str) -> dict[str, object]:
    proc = subprocess.run([sys.executable, "-c", PRELUDE + script], capture_output=True, text=True, timeout=60,
                          check=False)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == ""
    found: dict[str, object] = json.loads(proc.stdout.strip().splitlines()[-1])
    return found


def test_the_child_s_bytes_come_back_whole_and_it_is_reaped() -> None:
    got = _run("""
big = bytes(range(256)) * 20_000  # 5 MB: past any pipe's capacity
forked = ForkedBytes.start(lambda: big)
data = forked.result()
print(json.dumps({"forked": can_fork(), "same": data == big, "again": forked.result() == big,
                  "reaped": gone(forked._pid), "other_pid": forked._pid != os.getpid()}))
""")
    assert got == {"forked": True, "same": True, "again": True, "reaped": True, "other_pid": True}


def test_the_child_works_while_this_process_goes_on() -> None:
    got = _run("""
read_end, write_end = os.pipe()
forked = ForkedBytes.start(lambda: os.read(read_end, 5))  # waits for what this process sends after the start
os.write(write_end, b"hello")
print(json.dumps({"data": forked.result().decode()}))
""")
    assert got == {"data": "hello"}


def test_a_child_that_fails_or_is_killed_gives_none() -> None:
    got = _run("""
def fails():
    raise ValueError("no")

def killed():
    os.kill(os.getpid(), signal.SIGKILL)
    return b"never"

results = {}
for name, work in (("fails", fails), ("killed", killed), ("empty", lambda: b"")):
    forked = ForkedBytes.start(work)
    results[name] = [forked.result(), gone(forked._pid)]
print(json.dumps(results))
""")
    assert got == {"fails": [None, True], "killed": [None, True], "empty": [None, True]}


def test_a_result_nobody_reads_is_stopped_when_dropped() -> None:
    got = _run("""
forked = ForkedBytes.start(lambda: (time.sleep(30), b"late")[1])
pid = forked._pid
del forked  # an error before the result was needed
print(json.dumps({"reaped": gone(pid)}))
""")
    assert got == {"reaped": True}


def test_no_child_beside_other_threads() -> None:
    got = _run("""
stop = threading.Event()
thread = threading.Thread(target=stop.wait)
thread.start()
forked = ForkedBytes.start(lambda: b"x")
stop.set(); thread.join()
print(json.dumps({"while_threads": forked is None, "after": ForkedBytes.start(lambda: b"x").result().decode()}))
""")
    assert got == {"while_threads": True, "after": "x"}


def test_a_fork_settles_the_results_still_pending_so_children_never_read_their_parent_s_pipes() -> None:
    got = _run("""
first = ForkedBytes.start(lambda: (time.sleep(0.3), b"first")[1])
second = ForkedBytes.start(lambda: first.result() or b"none")  # in the child: the result it inherited, read
print(json.dumps({"settled": first._done, "second": second.result().decode(), "first": first.result().decode()}))
""")
    assert got == {"settled": True, "second": "first", "first": "first"}


def test_a_result_pending_when_another_process_forked_is_not_read_there() -> None:
    got = _run("""
forked = ForkedBytes.start(lambda: (time.sleep(0.3), b"mine")[1])
pid = os.fork()  # someone else's fork (multiprocessing): not ours to read
if pid == 0:
    os._exit(0 if forked.result() is None else 1)
_, status = os.waitpid(pid, 0)
print(json.dumps({"foreign": os.waitstatus_to_exitcode(status), "mine": forked.result().decode()}))
""")
    assert got == {"foreign": 0, "mine": "mine"}


def test_a_read_interrupted_stops_the_child() -> None:
    got = _run("""
def interrupt(signum, frame):
    raise KeyboardInterrupt

signal.signal(signal.SIGALRM, interrupt)
forked = ForkedBytes.start(lambda: (time.sleep(30), b"late")[1])
signal.setitimer(signal.ITIMER_REAL, 0.2)  # Ctrl-C while this process waits for the child
try:
    forked.result()
    outcome = "read"
except KeyboardInterrupt:
    outcome = "interrupted"
print(json.dumps({"outcome": outcome, "reaped": gone(forked._pid), "after": forked.result()}))
""")
    assert got == {"outcome": "interrupted", "reaped": True, "after": None}
