// Package clusterops is what the worksteal command (serve, worker, job,
// run --nats) and the dashboard use of a cluster tier beyond package
// cluster's API, which is what a program that makes a worker, submits a
// job, writes a handler or spawns a task tree needs:
//
//   - the roles' NATS permissions (RolePermissions, RolePermissionsFor,
//     ObserverPermissions, InboxPrefix), which serve init writes into the
//     server's users.json;
//   - the recorder (Record) with its counts and refusal reasons
//     (RecorderStats, Refused*), which worksteal serve runs;
//   - the tier's storage limits (StorageLimits, WithLimits);
//   - the registries and a node's reports (Jobs, Job, Workers, StatsOf,
//     Stalls, Handlers), for job list/status, run --nats and the
//     worker's start line;
//   - the worker options only the command sets (WithReady, WithSpeed) and
//     the labels it measures (MachineLabels).
//
// Package cluster imports this one and sets its function values in its
// init (hooks.go); the types keep the fields and JSON they had in cluster.
package clusterops
