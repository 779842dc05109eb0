"""Starts a child that outlives this process unless its whole process group is ended, writes the
child's pid to the file $SLOW_CHILD_PID names, then sleeps: a command that runs past any limit."""

import os
import subprocess
import sys
import time
from pathlib import Path

child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
Path(os.environ["SLOW_CHILD_PID"]).write_text(str(child.pid))
print("started", flush=True)
time.sleep(60)
