package worksteal

// MonitorDumps is the number of stack dumps p's stall monitor has taken
// (each stops the world), for the external tests and benchmarks.
func MonitorDumps(p *Pool) int64 { return p.mon.dumpCount() }
