#!/bin/bash
# Harbor task format schema_version 1.4, harbor 0.20.0: Harbor's oracle for isobench task topp-filter.
# Applies the human commit's change (d421a95b2bfe, isobench's human arm) to /app/repo: its reward is 1
# exactly when the task replays on this machine (isobench's replay validity).
set -euo pipefail
cd /app/repo
git apply --binary /solution/human.diff
