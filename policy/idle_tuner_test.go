package policy

import (
	"testing"
	"time"
)

func TestIdleTuner(t *testing.T) {
	p, _ := Idle{Adaptive: true}.Normalize()
	if p.Rounds != 8 || !p.Adaptive || p.Jitter != DefaultIdle.Jitter {
		t.Fatalf("Idle{Adaptive: true}.Normalize() = %+v; want the default schedule, adaptive", p)
	}
	tu := NewIdleTuner(p)
	if tu.Rounds() != 8 || tu.Idle().Rounds != 8 {
		t.Fatalf("starts at %d rounds; want 8", tu.Rounds())
	}
	tu.Found(7) // found in the last round: one more
	if tu.Rounds() != 9 {
		t.Errorf("after work found in the last round: %d rounds; want 9", tu.Rounds())
	}
	tu.Woken(10 * time.Microsecond)
	w := tu.WakeLatency()
	if w >= 20*time.Microsecond || w <= 10*time.Microsecond {
		t.Errorf("wake latency estimate %v after one 10 µs sample from 20 µs; want in between", w)
	}
	tu.Parked(w, true) // work came within two wake-ups of parking: two more
	if tu.Rounds() != 11 {
		t.Errorf("after a park shorter than two wake-ups: %d rounds; want 11", tu.Rounds())
	}
	tu.Parked(time.Millisecond/2, true) // neither short nor long: no change
	if tu.Rounds() != 11 {
		t.Errorf("after a 0.5 ms park: %d rounds; want 11 unchanged", tu.Rounds())
	}
	for range 50 {
		tu.Parked(time.Second, true) // an idle pool: spinning first was waste
	}
	if tu.Rounds() != 2 {
		t.Errorf("after long parks: %d rounds; want the minimum, 2", tu.Rounds())
	}
	for range 100 {
		tu.Found(tu.Rounds() - 1) // always the last round: grows, to the maximum
	}
	if tu.Rounds() != 32 {
		t.Errorf("after work always found in the last round: %d rounds; want the maximum, 32", tu.Rounds())
	}
	for range 31 {
		tu.Found(0)
	}
	if tu.Rounds() != 32 {
		t.Errorf("31 early finds changed the rounds to %d", tu.Rounds())
	}
	tu.Found(0)
	if tu.Rounds() != 31 {
		t.Errorf("after 32 early finds: %d rounds; want 31", tu.Rounds())
	}
}
