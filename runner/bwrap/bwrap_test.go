package bwrap_test

import (
	"testing"

	"github.com/golem-box/golem-box/runner"
	"github.com/golem-box/golem-box/runner/bwrap"
	"github.com/golem-box/golem-box/runner/runnertest"
)

func TestConformance(t *testing.T) {
	runnertest.Run(t, func(t *testing.T) runner.Backend {
		return bwrap.New(bwrap.WithStateDir(t.TempDir()))
	})
}
