package runner

import (
	"bytes"
	"context"
	"errors"
	"os/exec"
	"testing"
	"time"

	"github.com/golem-box/golem-box/mountspec"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestCapBuffer(t *testing.T) {
	c := &CapBuffer{Limit: 10}
	n, err := c.Write([]byte("hello "))
	require.NoError(t, err)
	assert.Equal(t, 6, n)
	assert.False(t, c.Truncated())
	n, _ = c.Write([]byte("world, and more"))
	assert.Equal(t, 15, n, "a write past the cap still reports success: the process must never block")
	assert.Equal(t, "hello worl", string(c.Bytes()))
	assert.True(t, c.Truncated())
	c.Write(bytes.Repeat([]byte("x"), 1<<20))
	assert.Len(t, c.Bytes(), 10, "memory stays bounded")
}

func TestJobDefaults(t *testing.T) {
	j := &Job{Sandbox: &mountspec.Sandbox{}}
	assert.Equal(t, int64(DefaultOutputBytes), j.OutputLimit())
	assert.Zero(t, j.TimeoutOrDefault())
	j.Sandbox.Limits = mountspec.Limits{OutputBytes: 5, Timeout: mountspec.Duration(7)}
	assert.Equal(t, int64(5), j.OutputLimit())
	assert.EqualValues(t, 7, j.TimeoutOrDefault())
	j.Timeout = 9
	assert.EqualValues(t, 9, j.TimeoutOrDefault(), "the job's own timeout wins")
}

type fake struct{ Backend }

func (fake) Name() string { return "fake" }

func TestRegistry(t *testing.T) {
	Register(func(Settings) Backend { return fake{} }, "fake-test")
	b, err := New("fake-test", Settings{})
	require.NoError(t, err)
	assert.Equal(t, "fake", b.Name())
	_, err = New("no-such-backend", Settings{})
	require.True(t, errors.Is(err, ErrUnavailable))
	assert.Contains(t, err.Error(), "fake-test", "the error lists the known backends")
}

func TestSupervise(t *testing.T) {
	job := &Job{Sandbox: &mountspec.Sandbox{}}
	ended := make(chan struct{})
	close(ended)
	assert.Equal(t, Reason(""), Supervise(context.Background(), job, ended, func() { t.Fatal("nothing to kill") }))

	// At the deadline kill is called once, and the run is still waited for.
	job.Timeout = 10 * time.Millisecond
	ended = make(chan struct{})
	kills := 0
	assert.Equal(t, ReasonTimeout, Supervise(context.Background(), job, ended, func() { kills++; close(ended) }))
	assert.Equal(t, 1, kills)

	job.Timeout = 0
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	ended = make(chan struct{})
	assert.Equal(t, ReasonKilled, Supervise(ctx, job, ended, func() { close(ended) }))
}

func TestExitStatus(t *testing.T) {
	for script, want := range map[string]int{"exit 0": 0, "exit 7": 7, "kill -TERM $$": 128 + 15, "kill -KILL $$": 128 + 9} {
		code, err := ExitStatus(exec.Command("/bin/sh", "-c", script).Run())
		require.NoError(t, err)
		assert.Equal(t, want, code, script)
	}
	_, err := ExitStatus(exec.ErrNotFound)
	assert.ErrorIs(t, err, exec.ErrNotFound)
}
