"""`python linger.py` kills the process that started it (the agent) with SIGKILL, the first time
only ($KILL_PARENT_DIR/linger marks that it did), and lingers: it and a child it started sleep on
in the process group the workflow gave the command, for a resume to end. Each start adds a line to
$KILL_PARENT_DIR/linger-runs, and the ids of both processes go to $KILL_PARENT_DIR/linger-pids.

It kills only once the run's in_flight.json (in the run folder, above the sandbox it runs in)
names its process group, so the kill lands while the workflow has the command on record."""

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

folder = Path(os.environ["KILL_PARENT_DIR"])
with (folder / "linger-runs").open("a") as runs:
    runs.write("ran\n")
child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(300)"])
(folder / "linger-pids").write_text(f"{os.getpid()} {child.pid}\n")
record = Path("..") / "in_flight.json"
deadline = time.monotonic() + 30
while json.loads(record.read_text()).get("group") != os.getpid():
    assert time.monotonic() < deadline, f"{record} never named this command's group"
    time.sleep(0.01)
marker = folder / "linger"
if not marker.exists():
    marker.write_text(str(os.getppid()))
    os.kill(os.getppid(), signal.SIGKILL)
time.sleep(300)
