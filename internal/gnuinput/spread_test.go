package gnuinput

import (
	"errors"
	"io"
	"slices"
	"testing"
	"time"

	"github.com/worksteal/worksteal/internal/testdeadline"
)

// A block whose read outlasts BlockTimeout is cut from what was read: the
// writer sends the rest only after the first chunk is out, so without the
// timeout Chunks would wait for it forever (the test's deadline).
func TestBlockTimeoutCutsWhatWasRead(t *testing.T) {
	pr, pw := io.Pipe()
	first := make(chan struct{})
	go func() {
		pw.Write([]byte("1\n2\n3"))
		<-first
		pw.Write([]byte("\n4\n"))
		pw.Close()
	}()
	var got []string
	done := make(chan error, 1)
	go func() {
		done <- Pipe{BlockTimeout: 10 * time.Millisecond}.Chunks(pr, func(c []byte) error {
			if len(got) == 0 {
				close(first)
			}
			got = append(got, string(c))
			return nil
		})
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-testdeadline.Context(t).Done():
		pw.CloseWithError(errors.New("the test's deadline"))
		err := <-done
		t.Fatalf("no chunk before the input's end: the block was never cut (%v; chunks %q)", err, got)
	}
	if want := []string{"1\n2\n", "3\n4\n"}; !slices.Equal(got, want) {
		t.Fatalf("chunks %q, want %q", got, want)
	}
}

// A read error under BlockTimeout is Chunks' error.
func TestBlockTimeoutPassesReadErrors(t *testing.T) {
	boom := errors.New("boom")
	err := Pipe{BlockTimeout: time.Hour}.Chunks(errReader{boom}, func([]byte) error { return nil })
	if !errors.Is(err, boom) {
		t.Fatalf("err %v, want %v", err, boom)
	}
}

func TestSplitCSV(t *testing.T) {
	for _, c := range []struct {
		rec, sep string
		want     []string
		bad      bool
	}{
		{rec: `a,"b,c",d`, sep: ",", want: []string{"a", "b,c", "d"}},
		{rec: `"2""x4""",,`, sep: ",", want: []string{`2"x4"`, "", ""}},
		{rec: "", sep: ",", want: []string{""}},
		{rec: "\"a\nb\";c", sep: ";", want: []string{"a\nb", "c"}},
		{rec: `a, "b"`, sep: ",", bad: true},
		{rec: `"a"b,c`, sep: ",", bad: true},
		{rec: `"a`, sep: ",", bad: true},
		{rec: "a,b\r", sep: ",", bad: true},
	} {
		got, err := splitCSV(c.rec, c.sep)
		if (err != nil) != c.bad || (!c.bad && !slices.Equal(got, c.want)) {
			t.Errorf("splitCSV(%q, %q) = %q, %v; want %q (error: %v)", c.rec, c.sep, got, err, c.want, c.bad)
		}
	}
}

func TestCSVCutAndRecords(t *testing.T) {
	if got := csvCut([]byte("a,\"x\ny\"\nb,\"c\nd")); got != 8 {
		t.Errorf("csvCut = %d, want 8 (after the closed record)", got)
	}
	got, err := joinCSVRecords([]string{`a,"x`, `y"`, "b"}, "stdin")
	if err != nil || !slices.Equal(got, []string{"a,\"x\ny\"", "b"}) {
		t.Errorf("joinCSVRecords = %q, %v", got, err)
	}
	if _, err := joinCSVRecords([]string{`a,"x`}, "stdin"); !errors.Is(err, ErrBadInput) {
		t.Errorf("an open quote at the end: %v, want ErrBadInput", err)
	}
}

// --bin reads the column as Perl reads a number; % takes the sign of n.
func TestBinSlot(t *testing.T) {
	k, err := Column{Col: 1, ColSep: ","}.compile()
	if err != nil {
		t.Fatal(err)
	}
	s := Spread{Bin: true}
	for line, want := range map[string]int{"1\n": 0, "3\n": 2, "0\n": 2, "-1\n": 1, "2.7\n": 1, "x\n": 2, " 4\n": 0, "5abc\n": 1, "1e1\n": 0} {
		if got := s.slot(k, line, 3); got != want {
			t.Errorf("--bin -j3 %q: job %d, want %d", line, got+1, want+1)
		}
	}
}

type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }
