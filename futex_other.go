//go:build !linux

package worksteal

import (
	"sync/atomic"
	"time"
)

// futexParks: workers park on their wake channel only (park.go, parkMode).
const futexParks = false

func futexWait(*atomic.Uint32, uint32, time.Duration) {
	panic("worksteal: futexWait without futexParks")
}

func futexWake(*atomic.Uint32) { panic("worksteal: futexWake without futexParks") }
