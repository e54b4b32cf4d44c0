// This page load. The lab keeps a run's `--html` report for the runs it made, and its run ids
// start again at 1 when it restarts: the report is linked only for this page load's runs.
export const SESSION = `${Date.now()}-${Math.random()}`;
