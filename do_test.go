package worksteal

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"
)

// Do and DoErr wait for everything f started, carry f's error and panics,
// and refuse work after Close.
func TestDoAndDoErr(t *testing.T) {
	defer watchdog(t)()
	p, err := New(Config{Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	var ran atomic.Int64
	if err := p.Do(func(w *Worker) {
		_ = w.Scope(context.Background(), func(w *Worker, s *Scope) error {
			for range 100 {
				s.Spawn(w, func(*Worker) { time.Sleep(10 * time.Microsecond); ran.Add(1) })
			}
			return nil
		})
	}); err != nil {
		t.Fatalf("Do = %v; want nil", err)
	}
	if got := ran.Load(); got != 100 {
		t.Errorf("Do returned after %d of the 100 tasks f spawned had run", got)
	}
	errBody := errors.New("body failed")
	if err := p.DoErr(func(*Worker) error { return errBody }); err != errBody {
		t.Errorf("DoErr = %v; want f's error", err)
	}
	if err := p.DoErr(func(w *Worker) error { return nil }); err != nil {
		t.Errorf("DoErr = %v; want nil", err)
	}
	r := catchPanic(func() { p.Do(func(*Worker) { panic("boom") }) })
	if pe, ok := r.(*PanicError); !ok || pe.Value != "boom" {
		t.Errorf("Do of a panicking f: recovered %v; want a *PanicError of boom", r)
	}
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	if err := p.Do(func(*Worker) { t.Error("Do after Close ran f") }); err != ErrClosed {
		t.Errorf("Do after Close = %v; want ErrClosed", err)
	}
	if err := p.DoErr(func(*Worker) error { t.Error("DoErr after Close ran f"); return nil }); err != ErrClosed {
		t.Errorf("DoErr after Close = %v; want ErrClosed", err)
	}
}

// BlockingErr and BlockingValue return what the blocking call returned,
// and compensate like Blocking: on one worker, the call waits for a task
// that only a spare worker can run.
func TestBlockingErrAndBlockingValue(t *testing.T) {
	defer watchdog(t)()
	p := newTestPool(t, Config{Workers: 1})
	errRead := errors.New("read failed")
	err := p.Do(func(w *Worker) {
		ch := make(chan int)
		if err := p.Submit(func(*Worker) { ch <- 42; ch <- 0 }); err != nil {
			t.Error(err)
			return
		}
		v, err := BlockingValue(w, func() (int, error) { return <-ch, nil })
		if v != 42 || err != nil {
			t.Errorf("BlockingValue = %d, %v; want 42, nil", v, err)
		}
		if err := w.BlockingErr(func() error { <-ch; return errRead }); err != errRead {
			t.Errorf("BlockingErr = %v; want the call's error", err)
		}
		v, err = BlockingValue(w, func() (int, error) { return 7, errRead })
		if v != 7 || err != errRead {
			t.Errorf("BlockingValue = %d, %v; want 7 and the call's error", v, err)
		}
		// Inside them a nested Run is allowed, as inside Blocking.
		if err := w.BlockingErr(func() error { _, err := Run(p, func(*Worker) int { return 1 }); return err }); err != nil {
			t.Errorf("Run inside BlockingErr: %v", err)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
}
