package testdeadline

import (
	"sync/atomic"
	"testing"
	"time"
)

// Left stays inside the test's deadline, and leaves a margin before it.
func TestLeftEndsBeforeTheDeadline(t *testing.T) {
	end, ok := t.Deadline()
	left := Left(t)
	if !ok {
		if left != noDeadline {
			t.Fatalf("without a deadline Left = %v; want %v", left, noDeadline)
		}
		return
	}
	if until := time.Until(end); left <= 0 || left >= until {
		t.Fatalf("Left = %v with %v to the deadline; want a positive time short of it", left, until)
	}
}

// A benchmark has no deadline: Left gives it a day.
func TestLeftWithoutDeadline(t *testing.T) {
	var b testing.B
	if got := Left(&b); got != noDeadline {
		t.Fatalf("Left(benchmark) = %v; want %v", got, noDeadline)
	}
}

// Wait returns as soon as its condition holds.
func TestWaitReturnsWhenTheConditionHolds(t *testing.T) {
	var n atomic.Int32
	if !Wait(t, time.Millisecond, func() bool { return n.Add(1) == 3 }) {
		t.Fatal("Wait = false; want true once the condition held")
	}
	if got := n.Load(); got != 3 {
		t.Fatalf("cond called %d times; want 3", got)
	}
}
