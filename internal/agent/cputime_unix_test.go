//go:build unix

package agent

import (
	"syscall"
	"time"
)

// cpuTime is the process's user+system CPU time: on a shared machine,
// benchmarks report it beside wall time, which other processes inflate.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
