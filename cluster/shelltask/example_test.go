package shelltask_test

import (
	"context"
	"encoding/json"
	"fmt"

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
