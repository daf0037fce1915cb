package gnuinput_test

import (
	"fmt"

	"github.com/worksteal/worksteal/internal/gnuinput"
	"github.com/worksteal/worksteal/internal/jobio"
)

// A template with ::: arguments, as GNU parallel users write it: every
// combination of the groups, values shell-quoted.
func ExampleInput_Jobs() {
	in := gnuinput.Input{
		Template: []string{"convert", "{}", "{.}.png"},
		Sources:  []gnuinput.Source{{Args: []string{"a.jpg", "my photo.jpg"}}},
	}
	jobs, _ := in.Jobs()
	for _, j := range jobs {
		fmt.Println(j.Seq, j.Command)
	}
	// Output:
	// 1 convert a.jpg a.png
	// 2 convert 'my photo.jpg' 'my photo'.png
}

// Sources combine as in GNU parallel: every combination, or, for a linked
// source (":::+"), side by side with the source before it.
func ExampleSource() {
	in := gnuinput.Input{
		Template: []string{"echo", "{1}={2}", "{3}"},
		Sources: []gnuinput.Source{
			{Args: []string{"a", "b"}},
			{Args: []string{"1", "2"}, Linked: true},
			{Args: []string{"x", "y"}},
		},
	}
	jobs, _ := in.Jobs()
	for _, j := range jobs {
		fmt.Println(j.Command)
	}
	// Output:
	// echo a=1 x
	// echo a=1 y
	// echo b=2 x
	// echo b=2 y
}

// {%} is the slot a job runs in, known only when it starts.
func ExampleInput_slot() {
	jobs, _ := gnuinput.Input{Template: []string{"render", "--gpu", "{%}", "{}"}, Sources: []gnuinput.Source{{Args: []string{"frame 1"}}}}.Jobs()
	fmt.Println(jobs[0].Command)
	fmt.Println(jobio.Of(jobs[0]).CommandIn(jobs[0].Command, 2))
	// Output:
	// render --gpu {%} 'frame 1'
	// render --gpu 2 'frame 1'
}

// Several arguments per job, as GNU parallel's -X: the word that holds {}
// is repeated for each, and the last arguments are spread over the slots;
// each job is tagged with its arguments (--tag).
func ExampleInput_contextReplace() {
	tag := "{}"
	jobs, err := gnuinput.Input{
		Template: []string{"convert", "pic{}.jpg", "out.pdf"},
		Sources:  []gnuinput.Source{{Args: []string{"1", "2", "3", "4", "5"}}},
		Fill:     true, ContextReplace: true, Spread: 2, Tag: &tag,
	}.Jobs()
	if err != nil {
		panic(err)
	}
	for _, j := range jobs {
		fmt.Printf("%s\t(tag %q)\n", j.Command, jobio.Of(j).TagIn(1))
	}
	// Output:
	// convert pic1.jpg pic2.jpg pic3.jpg out.pdf	(tag "1 2 3")
	// convert pic4.jpg pic5.jpg out.pdf	(tag "4 5")
}

// GNU parallel's --plus {uniq}: the jobs whose values repeat are skipped;
// Run records them failed (exit status -2) without running anything.
func ExampleInput_skipped() {
	in := gnuinput.Input{
		Plus:     true,
		Template: []string{"echo", "{uniq}"},
		Sources:  []gnuinput.Source{{Args: []string{"a", "b"}}, {Args: []string{"a", "b"}}},
	}
	jobs, _ := in.Jobs()
	for _, j := range jobs {
		fmt.Println(j.Command, jobio.Of(j).Skipped())
	}
	// Output:
	// echo a a true
	// echo a b false
	// echo b a false
	// echo b b true
}

// ParseHalt reads GNU parallel's --halt, long form or short.
func ExampleParseHalt() {
	for _, s := range []string{"now,fail=1", "soon,fail=20%", "-1"} {
		h, err := gnuinput.ParseHalt(s)
		if err != nil {
			panic(err)
		}
		fmt.Printf("%s: when %d, why %d, count %d, percent %g\n", s, h.When, h.Why, h.Count, h.Percent)
	}
	// Output:
	// now,fail=1: when 2, why 0, count 1, percent 0
	// soon,fail=20%: when 1, why 0, count 0, percent 20
	// -1: when 1, why 1, count 1, percent 0
}
