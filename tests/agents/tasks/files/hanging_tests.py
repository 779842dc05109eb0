"""Two quick tests and one that sleeps past any gate's limit; each time pytest imports the file, a
line goes to notes/tries.txt, so a test can count how often the gate ran."""

import time
from pathlib import Path

with Path("notes/tries.txt").open("a") as tries:
    tries.write("tried\n")


def test_quick():
    time.sleep(0.1)


def test_slower():
    time.sleep(0.5)


def test_hangs():
    time.sleep(120)
