package clusterops

// ObserverPermissions lists the subjects the dashboard of stream uses
// (package clusterdash), for an account that may only watch it: what it must be allowed to publish (JetStream
// API requests that read state: stream info, the task stream's consumer
// list, direct gets of job records) and to subscribe to (worker statuses,
// its own inbox). None of them changes the cluster or creates anything (no
// consumer: NATS cannot confine a consumer's deliveries to its creator),
// and none reads a result, so no task's output. Its connection must use
// nats.CustomInboxPrefix(InboxPrefix("observer")) (cluster.ConnectOptions sets it).
func ObserverPermissions(stream string) (publish, subscribe []string) {
	publish = []string{"$JS.API.INFO", "$JS.API.STREAM.INFO." + stream + "_tasks",
		"$JS.API.CONSUMER.LIST." + stream + "_tasks",    // the routes, for what their tasks wait for
		"$JS.API.STREAM.INFO.KV_" + stream + "_results", // count a job's results
		"$JS.API.STREAM.INFO.KV_" + stream + "_jobs",    // list the jobs
		"$JS.API.DIRECT.GET.KV_" + stream + "_jobs.>",   // and read their records
	}
	subscribe = []string{stream + ".status.*", stream + ".refusals", InboxPrefix(roleObserver) + ".>"}
	return publish, subscribe
}
