package landlock_test

import (
	"testing"

	"github.com/golem-box/golem-box/runner"
	"github.com/golem-box/golem-box/runner/landlock"
	"github.com/golem-box/golem-box/runner/runnertest"
)

// TestConformance runs the suite with exactly the limitations the package
// documents.
func TestConformance(t *testing.T) {
	runnertest.Run(t, func(t *testing.T) runner.Backend {
		return landlock.New(landlock.WithStateDir(t.TempDir()))
	}, runnertest.HostPaths, runnertest.HostNetworkNamespace, runnertest.HostPIDNamespace, runnertest.PermissionDenied)
}
