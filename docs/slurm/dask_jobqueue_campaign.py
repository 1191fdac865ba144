"""A resilsched campaign on Dask workers that SLURM starts (dask-jobqueue).

Run it on the login node, or in a small batch job, from the environment resilsched is in::

    pip install dask-jobqueue 'resilsched[dask]'
    python dask_jobqueue_campaign.py spec.toml results.sqlite

It asks SLURM for worker jobs, points the campaign at their scheduler and returns the
campaign's exit status. The store is written by this process only: keep it on a local disk
(docs/campaigns.md, "Dask"). Workers whose job ends (its time limit) are replaced while tasks
remain (`adapt`); the tasks they were running are run again elsewhere, each stored once. If this
process is stopped, run the same command again: the stored tasks are skipped.
"""

import sys

from dask_jobqueue import SLURMCluster

from resilsched.cli import main


def run(spec: str, store: str, jobs: int = 4) -> int:
    """Run the campaign `spec` into `store` on up to `jobs` SLURM jobs of Dask workers."""
    with SLURMCluster(
        cores=32, processes=32, memory="64GB",     # one single-threaded worker per core
        walltime="04:00:00", account="myproject", queue="normal",
        python=sys.executable,                     # the workers run this environment
    ) as cluster:
        cluster.adapt(minimum_jobs=1, maximum_jobs=jobs)
        return main(["campaign", "run", spec, "--store", store,
                     "--dask", cluster.scheduler_address])


if __name__ == "__main__":
    raise SystemExit(run(sys.argv[1], sys.argv[2]))
