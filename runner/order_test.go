package runner

import (
	"reflect"
	"testing"
	"time"
)

func TestPlanOrder(t *testing.T) {
	jobs := []Job{{Seq: 1, Command: "a", Weight: 1}, {Seq: 2, Command: "b", Weight: 5}, {Seq: 3, Command: "c"}, {Seq: 4, Command: "d", Weight: 3}}
	p := makePlan(jobs, OrderAuto, nil)
	if !p.lpt || !reflect.DeepEqual(p.order, []int{1, 2, 3, 0}) { // c counts at the median, 3, tied with d
		t.Errorf("plan %+v; want LPT order [1 2 3 0]", p)
	}
	if p = makePlan(jobs, OrderInput, nil); p.lpt || !reflect.DeepEqual(p.order, []int{0, 1, 2, 3}) {
		t.Errorf("input plan %+v", p)
	}
	hist := map[string]time.Duration{"a": time.Second, "c": 9 * time.Second}
	noWeights := []Job{{Seq: 1, Command: "a"}, {Seq: 2, Command: "b"}, {Seq: 3, Command: "c"}}
	if p = makePlan(noWeights, OrderAuto, hist); !p.lpt || p.known != 2 || !reflect.DeepEqual(p.order, []int{2, 1, 0}) { // b counts at the median, 5s
		t.Errorf("history plan %+v; want [2 1 0] with 2 known", p)
	}
	if p = makePlan(noWeights, OrderAuto, nil); p.lpt {
		t.Errorf("no costs: plan %+v; want input order", p)
	}
}
