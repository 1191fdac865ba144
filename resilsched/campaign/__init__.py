"""Campaigns: experiments as resumable lists of tasks in a SQLite result store.

docs/architecture.md, "Campaigns and scale", and docs/campaigns.md. The engine
(`resilsched.campaign.engine`: `Task`, `run_campaign`) and the store
(`resilsched.campaign.store`: `ResultStore`) serve the paper reproductions and the campaigns
declared in a TOML spec file (`resilsched.campaign.spec`, `resilsched.campaign.plan`,
`resilsched.campaign.tasks`), whose results `resilsched.campaign.export` and
`resilsched.campaign.report` turn into tables, CSV files and plots.
"""

from resilsched.campaign.engine import (
    DEFAULT_CHUNK_SECONDS,
    EXIT_INTERRUPTED,
    Task,
    add_cli_options,
    require_dask,
    run_campaign,
    run_script,
)
from resilsched.campaign.store import (
    CampaignError,
    ResultStore,
    canonical_json,
    task_key,
)

__all__ = ["DEFAULT_CHUNK_SECONDS", "EXIT_INTERRUPTED", "CampaignError", "ResultStore", "Task",
           "add_cli_options", "canonical_json", "require_dask", "run_campaign", "run_script",
           "task_key"]
