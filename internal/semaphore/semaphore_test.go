//go:build unix

package semaphore

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// holder starts a process that stands for a holder; the test's end kills it.
func holder(t *testing.T) *exec.Cmd {
	t.Helper()
	c := exec.Command("sleep", "60")
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Process.Kill(); c.Wait() })
	return c
}

func TestSemaphoreCounts(t *testing.T) {
	ctx := context.Background()
	s := &Semaphore{Dir: t.TempDir(), Name: "not a tty", Slots: 2}
	a, b := holder(t), holder(t)
	for _, h := range []*exec.Cmd{a, b} {
		if stolen, err := s.Acquire(ctx, h.Process.Pid, 0); err != nil || stolen {
			t.Fatalf("acquire: %v, stolen %v", err, stolen)
		}
	}
	// GNU's layout: the name's other characters in hex, a link per holder.
	if _, err := os.Stat(filepath.Join(s.Dir, "id-not20a20tty", "id-not20a20tty")); err != nil {
		t.Fatalf("GNU's id file: %v", err)
	}
	if n, _ := s.Holders(ctx); n != 2 {
		t.Fatalf("%d holders, want 2", n)
	}
	c := holder(t)
	// Full: a negative timeout gives up.
	if _, err := s.Acquire(ctx, c.Process.Pid, -50*time.Millisecond); !errors.Is(err, ErrTimeout) {
		t.Fatalf("acquire on a full semaphore: %v, want %v", err, ErrTimeout)
	}
	// A holder that died leaves a slot: the dead are reclaimed.
	a.Process.Kill()
	a.Wait()
	if stolen, err := s.Acquire(ctx, c.Process.Pid, -10*time.Second); err != nil || stolen {
		t.Fatalf("acquire after a holder died: %v, stolen %v", err, stolen)
	}
	// A positive timeout takes it anyway.
	d := holder(t)
	if stolen, err := s.Acquire(ctx, d.Process.Pid, 50*time.Millisecond); err != nil || !stolen {
		t.Fatalf("acquire with a timeout to steal: %v, stolen %v", err, stolen)
	}
	if n, _ := s.Holders(ctx); n != 3 {
		t.Fatalf("%d holders, want 3 (one stole)", n)
	}
	// Hand to another process, release all: the files are gone.
	e := holder(t)
	if err := s.Hand(d.Process.Pid, e.Process.Pid); err != nil {
		t.Fatal(err)
	}
	for _, h := range []*exec.Cmd{b, c, e} {
		if err := s.Release(h.Process.Pid); err != nil {
			t.Fatal(err)
		}
	}
	if ents, _ := os.ReadDir(s.Dir); len(ents) != 0 {
		t.Errorf("left after the last release: %v", ents)
	}
	if err := s.Wait(ctx); err != nil {
		t.Errorf("wait on a free semaphore: %v", err)
	}
}

// Many acquirers at once never hold more than Slots (the lock decides).
func TestSemaphoreStress(t *testing.T) {
	ctx := context.Background()
	s := &Semaphore{Dir: t.TempDir(), Name: "stress", Slots: 3}
	const n = 12
	procs := make([]*exec.Cmd, n)
	for i := range procs {
		procs[i] = holder(t)
	}
	held := make(chan int, n)
	for _, p := range procs {
		go func() {
			if _, err := s.Acquire(ctx, p.Process.Pid, 0); err != nil {
				t.Error(err)
			}
			held <- p.Process.Pid
		}()
	}
	for range n {
		pid := <-held
		if k, _ := s.Holders(ctx); k > 3 {
			t.Fatalf("%d holders of a 3-slot semaphore", k)
		}
		s.Release(pid)
	}
	if err := s.Wait(ctx); err != nil {
		t.Fatal(err)
	}
}
