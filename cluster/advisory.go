package cluster

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/nats-io/nats.go"
)

// maxDeliveriesAdvisory is the part of the server's advisory that we read.
type maxDeliveriesAdvisory struct {
	Stream     string `json:"stream"`
	Consumer   string `json:"consumer"`
	StreamSeq  uint64 `json:"stream_seq"`
	Deliveries uint64 `json:"deliveries"`
}

// watchMaxDeliveries records a failure for every task the server gives up
// on. A work-queue stream keeps a message whose deliveries are spent, and
// only an advisory says so: without this, a task whose every worker died
// would never get a result. Every node subscribes in one queue group, so
// one of them handles each advisory; the result write is exactly-once
// anyway. (The server notices spent deliveries while pull requests wait,
// which live workers always have; with no worker at all the advisory comes
// when one returns.)
func (n *Node) watchMaxDeliveries() (*nats.Subscription, error) {
	subj := "$JS.EVENT.ADVISORY.CONSUMER.MAX_DELIVERIES." + n.streamName() + "." + n.consumerName()
	return n.nc.QueueSubscribe(subj, n.opts.stream+"_advisories", func(m *nats.Msg) {
		var adv maxDeliveriesAdvisory
		if err := json.Unmarshal(m.Data, &adv); err != nil || adv.StreamSeq == 0 {
			return
		}
		go n.giveUp(adv)
	})
}

// giveUp records the failure of the task stored at adv.StreamSeq and
// removes its message.
func (n *Node) giveUp(adv maxDeliveriesAdvisory) {
	ctx, cancel := context.WithTimeout(context.Background(), max(n.opts.defaultTimeout, 10e9))
	defer cancel()
	raw, err := n.stream.GetMsg(ctx, adv.StreamSeq)
	if err != nil {
		return // already handled by another node
	}
	job, task := raw.Header.Get(hdrJob), raw.Header.Get(hdrTask)
	if job != "" && task != "" {
		index, _ := strconv.Atoi(raw.Header.Get(hdrIndex))
		res := Result{Job: job, Task: task, Index: index, Handler: handlerOf(raw.Subject), Worker: n.opts.name,
			Attempt: int(adv.Deliveries), Error: fmt.Sprintf("%v (%d deliveries)", ErrMaxDeliveries, adv.Deliveries)}
		if _, err := n.record(ctx, resultKey(job, task), res); err != nil {
			n.opts.onError(fmt.Errorf("cluster: recording the failure of %s.%s: %w", job, task, err))
			return
		}
	}
	n.stream.DeleteMsg(ctx, adv.StreamSeq)
}
