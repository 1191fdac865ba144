#!/bin/bash
# A resilsched campaign as a SLURM job array (docs/campaigns.md, "A SLURM job array"): array
# task I runs shard I/N of the spec into its own store, OUT/shard-I.sqlite; `resilsched campaign
# merge` then puts the N stores together.
#
#   sbatch --array=1-16 campaign-array.sh spec.toml 16 results
#   sbatch --dependency=afterany:JOBID --wrap \
#       "resilsched campaign merge results/shard-*.sqlite --store results/all.sqlite --spec spec.toml"
#
# N (here 16) is given, not read from the array: a shard rerun alone (sbatch --array=7 ...
# spec.toml 16 results) must cut the same slices. Submit from the environment resilsched is
# installed in (sbatch passes it to the job). A shard that stopped (time limit, preemption,
# Ctrl-C) resumes from its last copy when its index is submitted again, running only its missing
# tasks; the merge counts the tasks no store holds, per shard, and exits with status 1 until
# none is missing.
#
#SBATCH --job-name=resilsched-campaign
#SBATCH --cpus-per-task=8
#SBATCH --time=04:00:00
#SBATCH --output=resilsched-shard-%a.log
set -euo pipefail

USAGE="usage: sbatch --array=1-N campaign-array.sh SPEC.toml N [OUT_DIR]"
SPEC=${1:?$USAGE}
N=${2:?$USAGE}
OUT=${3:-results}
I=${SLURM_ARRAY_TASK_ID:?$USAGE}
mkdir -p "$OUT"

# SQLite's WAL mode needs a local file system: the shard writes its store on the node's local
# disk and copies it to OUT when it ends, also when SLURM stops it with SIGTERM (the -wal file
# of a stopped run is checkpointed first, so the one file copied holds every committed row).
LOCAL=$(mktemp -d "${TMPDIR:-/tmp}/resilsched-shard-$I.XXXXXX")
STORE=$LOCAL/shard-$I.sqlite
if [ -f "$OUT/shard-$I.sqlite" ]; then  # resume from the last copy of this shard
    cp "$OUT/shard-$I.sqlite" "$STORE"
fi
save() {
    if [ -f "$STORE" ]; then
        python3 - "$STORE" <<'EOF'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
db.execute("PRAGMA wal_checkpoint(TRUNCATE)")  # every committed row into the one file
db.close()
EOF
        cp "$STORE" "$OUT/.shard-$I.sqlite.tmp"
        mv "$OUT/.shard-$I.sqlite.tmp" "$OUT/shard-$I.sqlite"
    fi
    rm -rf "$LOCAL"
}
trap save EXIT
trap 'exit 143' TERM  # run `save` after resilsched stops (SLURM signals every process)
trap 'exit 130' INT

resilsched campaign run "$SPEC" --shard "$I/$N" --store "$STORE" \
    --jobs "${SLURM_CPUS_PER_TASK:-1}"
