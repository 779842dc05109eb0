"""`python kill_parent.py NAME` kills the process that started it (the agent) with SIGKILL, the
first time only ($KILL_PARENT_DIR/NAME marks that it did): run as a gate script or as a command
of the run tool, it is a real kill in the middle of that node. It then prints an empty findings
report, as a gate script does, and exits 0."""

import json
import os
import signal
import sys
from pathlib import Path

marker = Path(os.environ["KILL_PARENT_DIR"]) / sys.argv[1]
if not marker.exists():
    marker.write_text(str(os.getppid()))
    os.kill(os.getppid(), signal.SIGKILL)
print(json.dumps({"findings": []}))
