package runnertest

import (
	"context"
	"errors"
	"os"
	"testing"
	"time"

	"github.com/golem-box/golem-box/mountspec"
	"github.com/golem-box/golem-box/runner"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// SleepJob is a job that runs until killed, in a sandbox of an empty root.
func SleepJob(t *testing.T) *runner.Job {
	t.Helper()
	sb := &mountspec.Sandbox{Root: t.TempDir()}
	require.NoError(t, sb.Validate())
	return &runner.Job{Sandbox: sb, Args: []string{"sleep", "300"}}
}

// DaemonDown checks a backend whose daemon is not there: Available and
// Run fail at once with ErrUnavailable and a message that names the
// daemon and the fix.
func DaemonDown(t *testing.T, b runner.Backend, words ...string) {
	t.Helper()
	start := time.Now()
	err := b.Available(context.Background())
	require.ErrorIs(t, err, runner.ErrUnavailable)
	for _, w := range append(words, "not reachable", "scripts/setup") {
		assert.Contains(t, err.Error(), w)
	}
	_, err = b.Run(context.Background(), SleepJob(t))
	require.ErrorIs(t, err, runner.ErrUnavailable)
	assert.Less(t, time.Since(start), 15*time.Second, "nothing hangs")
}

// DaemonLost runs a job through a proxy to the real daemon, cuts the
// proxy once started() says the command runs, and checks that the run
// ends with an error that says the daemon is gone, without hanging.
func DaemonLost(t *testing.T, b runner.Backend, p *Proxy, started func() bool) {
	t.Helper()
	type result struct {
		res *runner.Result
		err error
	}
	done := make(chan result, 1)
	go func() {
		res, err := b.Run(context.Background(), SleepJob(t))
		done <- result{res, err}
	}()
	require.Eventually(t, started, 30*time.Second, 50*time.Millisecond, "the run must start")
	p.Cut()
	select {
	case r := <-done:
		require.Error(t, r.err, "a run whose daemon is gone has no result")
		assert.True(t, errors.Is(r.err, runner.ErrUnavailable), "the error says the daemon is gone: %v", r.err)
		assert.Nil(t, r.res)
	case <-time.After(60 * time.Second):
		t.Fatal("the run hangs after the daemon went away")
	}
	_ = os.Remove(p.Path)
}
