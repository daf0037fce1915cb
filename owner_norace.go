//go:build !race

package worksteal

// Without -race the ownership check of owner_race.go costs nothing.

type ownerState struct{}

func (w *Worker) ownerStart() { _ = w.owner } // the field exists in every build
func (w *Worker) ownerEnter() {}
func (w *Worker) ownerLeave() {}

func checkOwner(*Worker) {}
