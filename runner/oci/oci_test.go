package oci_test

import (
	"testing"

	"github.com/golem-box/golem-box/runner"
	"github.com/golem-box/golem-box/runner/oci"
	"github.com/golem-box/golem-box/runner/runnertest"
)

// The conformance suite runs against each real runtime the setup script
// installs.
func TestConformanceRunc(t *testing.T) {
	runnertest.Run(t, func(t *testing.T) runner.Backend {
		return oci.New(oci.WithRuntime("runc"), oci.WithStateDir(t.TempDir()))
	})
}

func TestConformanceCrun(t *testing.T) {
	runnertest.Run(t, func(t *testing.T) runner.Backend {
		return oci.New(oci.WithRuntime("crun"), oci.WithStateDir(t.TempDir()))
	})
}
