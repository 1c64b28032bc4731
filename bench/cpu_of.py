#!/usr/bin/python3
"""Runs a command and prints its CPU seconds (user + sys of the child and its descendants) to stderr as JSON."""
import json
import resource
import subprocess
import sys
import time

t = time.perf_counter()
rc = subprocess.call(sys.argv[1:])
ru = resource.getrusage(resource.RUSAGE_CHILDREN)
print(json.dumps({"rc": rc, "cpu_s": ru.ru_utime + ru.ru_stime, "wall_s": time.perf_counter() - t}), file=sys.stderr)
sys.exit(rc)
