package shelltask_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"

	"github.com/worksteal/worksteal/cluster/shelltask"
)

// A submitter encodes a Task as a cluster.Task's payload; a worker's handler
// runs it and answers with a Result. Here the handler is called directly, as
// a worker would call it for a delivered task.
func ExampleNewHandler() {
	payload, err := json.Marshal(shelltask.Task{Cmd: "echo hello; echo oops >&2; exit 3", Seq: 7})
	if err != nil {
		panic(err)
	}
	handle := shelltask.NewHandler("/bin/sh", 0, nil)
	out, err := handle(context.Background(), payload)
	var r shelltask.Result
	if jerr := json.Unmarshal(out, &r); jerr != nil {
		panic(jerr)
	}
	fmt.Printf("error: %v\nexit %d, stdout %q, stderr %q\n", err, r.Exit, r.Stdout, r.Stderr)
	// Output:
	// error: exit status 3
	// exit 3, stdout "hello\n", stderr "oops\n"
}

// A malformed payload is refused for good: retrying it cannot help.
func ExampleNewHandler_malformed() {
	_, err := shelltask.NewHandler("/bin/sh", 0, nil)(context.Background(), []byte(`{"seq": 1}`))
	fmt.Println(err)
	// Output:
	// malformed shell task "{\"seq\": 1}"
}

// A child task made inside a parent task's command (as worksteal spawn
// makes it) inherits what the parent was given: the run --env variables,
// with their values from the command's environment, and the time limit.
// The parent's handler puts their names and the limit in the command's
// environment; here the example sets them itself.
func ExampleInherit() {
	env := map[string]string{
		"WORKSTEAL_ENV_NAMES":  "REGION,BUCKET", // the parent ran with --env REGION --env BUCKET
		"WORKSTEAL_TIMEOUT_MS": "5000",          // and --timeout 5s
		"REGION":               "eu-west",
		"BUCKET":               "logs",
	}
	for k, v := range env {
		os.Setenv(k, v)
	}
	defer func() {
		for k := range env {
			os.Unsetenv(k)
		}
	}()
	child := shelltask.Task{Cmd: "gzip part-2.log", Seq: 3}
	shelltask.Inherit(&child)
	payload, _ := json.Marshal(child) // the child's cluster.Task payload
	fmt.Println(string(payload))
	// Output:
	// {"cmd":"gzip part-2.log","seq":3,"timeout_ms":5000,"env":["REGION=eu-west","BUCKET=logs"]}
}
