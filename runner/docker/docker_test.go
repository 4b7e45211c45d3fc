package docker_test

import (
	"testing"

	"github.com/golem-box/golem-box/runner"
	"github.com/golem-box/golem-box/runner/docker"
	"github.com/golem-box/golem-box/runner/runnertest"
)

// The conformance suite runs against the engine scripts/setup starts.
func TestConformance(t *testing.T) {
	runnertest.Run(t, func(t *testing.T) runner.Backend {
		return docker.New(docker.WithStateDir(t.TempDir()))
	})
}

func TestEngineDown(t *testing.T) {
	b := docker.New(docker.WithHost("unix:///nonexistent/docker.sock"), docker.WithStateDir(t.TempDir()))
	runnertest.DaemonDown(t, b, "Docker Engine", "/nonexistent/docker.sock")
}
