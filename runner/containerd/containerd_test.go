package containerd_test

import (
	"testing"

	"github.com/golem-box/golem-box/runner"
	"github.com/golem-box/golem-box/runner/containerd"
	"github.com/golem-box/golem-box/runner/runnertest"
)

// The conformance suite runs against the containerd scripts/setup starts.
func TestConformance(t *testing.T) {
	runnertest.Run(t, func(t *testing.T) runner.Backend {
		return containerd.New(containerd.WithStateDir(t.TempDir()))
	})
}

func TestDaemonDown(t *testing.T) {
	b := containerd.New(containerd.WithAddress("/nonexistent/containerd.sock"), containerd.WithStateDir(t.TempDir()))
	runnertest.DaemonDown(t, b, "containerd", "/nonexistent/containerd.sock")
}
