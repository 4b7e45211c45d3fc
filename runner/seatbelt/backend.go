package seatbelt

import "github.com/golem-box/golem-box/runner"

// Name is the backend's name.
const Name = "seatbelt"

// Limitations are what the package documentation lists, for run --explain.
func (b *Backend) Limitations() []string {
	return []string{
		"paths are not remapped: inside, virtual paths are host paths",
		"no process or network namespace: other processes are visible; the network is denied by the profile",
		"no memory or process limits: macOS has no control groups (limits the configuration sets are refused)",
	}
}

func init() {
	runner.Register(func(s runner.Settings) runner.Backend { return New() }, Name)
}
